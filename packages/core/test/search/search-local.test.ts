/**
 * search() over the built-in index: crawl the fixture site into a SQLite store, then find its
 * pages by words of their main content; filters, re-indexing, and hostile query text.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { crawl, MemoryStore, scrape, search, SqliteStore, TrawlError } from '@trawl/core';
import { indexEntry as entry } from '../../../../test/contracts/search-provider.contract.ts';

const site = inject('fixtureUrl');
let store: SqliteStore;

beforeEach(() => {
  store = new SqliteStore({ path: join(mkdtempSync(join(tmpdir(), 'trawl-search-')), 't.db') });
});
afterEach(async () => {
  await store.close();
});

async function crawlDocs(): Promise<void> {
  const job = crawl(
    `${site}/docs/index.html`,
    {
      limit: 10,
      crawlEntireDomain: true,
      includePaths: ['^/docs/'],
    },
    { store },
  );
  for await (const _document of job) {
    // Draining the job; the documents are indexed as they are scraped.
  }
  await job.done;
}

describe('search over the built-in index', () => {
  it('finds crawled pages by words of their main content, best title and body match first', async () => {
    await crawlDocs();
    const byConfig = await search('configuration environment variables', {}, { store });
    expect(byConfig.web?.[0]?.url).toBe(`${site}/docs/configuration.html`);
    expect(byConfig.web?.[0]?.metadata?.source).toBe('local');
    expect(byConfig.web?.[0]?.position).toBe(1);
    const byInstall = await search('install single binary', {}, { store });
    expect(byInstall.web?.[0]?.url).toBe(`${site}/docs/install.html`);
    // The description is an excerpt around the words that matched.
    expect(byInstall.web?.[0]?.description).toMatch(/binary/i);
  });

  it('returns the stored description instead of an excerpt when highlights is false', async () => {
    await store.searchIndex.put(
      entry('https://a.example/', { description: 'Stored text', body: 'tidal charts' }),
    );
    const result = await search('tidal', { highlights: false }, { store });
    expect(result.web?.[0]?.description).toBe('Stored text');
  });

  it('replaces the entry of a URL that is scraped again', async () => {
    await store.searchIndex.put(entry('https://a.example/page', { body: 'old words' }));
    await store.searchIndex.put(entry('https://a.example/page', { body: 'fresh words' }));
    expect((await search('old', {}, { store })).web).toEqual([]);
    expect((await search('fresh', {}, { store })).web).toHaveLength(1);
    expect((await store.searchIndex.stats()).documents).toBe(1);
  });

  it('indexes a scrape, but not a zeroDataRetention scrape', async () => {
    await scrape(`${site}/docs/install.html`, { zeroDataRetention: true }, { store });
    expect((await store.searchIndex.stats()).documents).toBe(0);
    await scrape(`${site}/docs/install.html`, { formats: ['html'] }, { store });
    expect((await search('binary', {}, { store })).web?.[0]?.url).toBe(`${site}/docs/install.html`);
  });

  it('keeps to includeDomains and away from excludeDomains, subdomains included', async () => {
    await store.searchIndex.put(entry('https://docs.alpha.example/'));
    await store.searchIndex.put(entry('https://beta.example/'));
    const only = await search('lighthouse', { includeDomains: ['alpha.example'] }, { store });
    expect(only.web?.map((result) => result.url)).toEqual(['https://docs.alpha.example/']);
    const without = await search('lighthouse', { excludeDomains: ['alpha.example'] }, { store });
    expect(without.web?.map((result) => result.url)).toEqual(['https://beta.example/']);
  });

  it('filters by fetch time with qdr and custom ranges', async () => {
    const day = 24 * 60 * 60 * 1000;
    await store.searchIndex.put(entry('https://new.example/', { fetchedAt: Date.now() - 1000 }));
    await store.searchIndex.put(
      entry('https://week.example/', { fetchedAt: Date.now() - 3 * day }),
    );
    await store.searchIndex.put(
      entry('https://old.example/', { fetchedAt: Date.UTC(2020, 5, 15, 12) }),
    );
    const urls = async (tbs: string) =>
      (await search('lighthouse', { tbs }, { store })).web?.map((result) => result.url).sort();
    expect(await urls('qdr:h')).toEqual(['https://new.example/']);
    expect(await urls('qdr:w')).toEqual(['https://new.example/', 'https://week.example/']);
    expect(await urls('cdr:1,cd_min:6/1/2020,cd_max:6/30/2020')).toEqual(['https://old.example/']);
  });

  it('filters by language, keeping regional variants and pages of unknown language', async () => {
    await store.searchIndex.put(entry('https://en.example/', { language: 'en-gb' }));
    await store.searchIndex.put(entry('https://fr.example/', { language: 'fr' }));
    await store.searchIndex.put(entry('https://unknown.example/', { language: '' }));
    const result = await search('lighthouse', { lang: 'en' }, { store });
    expect(result.web?.map((item) => item.url).sort()).toEqual([
      'https://en.example/',
      'https://unknown.example/',
    ]);
  });

  it('treats FTS syntax in a query as text, never as a query language', async () => {
    await store.searchIndex.put(entry('https://a.example/', { body: 'near the star quote' }));
    for (const query of ['"', '"unbalanced', 'star*', 'NEAR(star quote)', '-star', 'a OR', '(']) {
      const result = await search(query, {}, { store });
      expect(Array.isArray(result.web)).toBe(true);
    }
    expect((await search('NEAR', {}, { store })).web).toHaveLength(1);
    expect((await search('-star', {}, { store })).web).toHaveLength(1);
  });

  it('answers a 2000-character query and refuses an empty or longer one with BAD_REQUEST', async () => {
    await store.searchIndex.put(entry('https://a.example/'));
    const long = `${'word '.repeat(390)}lighthouse`;
    expect((await search(long, {}, { store })).web).toBeDefined();
    for (const query of ['', '   ', 'x'.repeat(10_240)]) {
      const failure = await search(query, {}, { store }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(TrawlError);
      expect((failure as TrawlError).code).toBe('BAD_REQUEST');
    }
  });

  it('refuses includeDomains with excludeDomains, and a bad tbs, naming the field', async () => {
    const both = await search(
      'x',
      { includeDomains: ['a.example'], excludeDomains: ['b.example'] },
      { store },
    ).then(
      () => undefined,
      (error: unknown) => error as TrawlError,
    );
    expect(both?.message).toMatch(/includeDomains and excludeDomains/);
    const tbs = await search('x', { tbs: 'qdr:z' }, { store }).then(
      () => undefined,
      (error: unknown) => error as TrawlError,
    );
    expect(tbs?.code).toBe('BAD_REQUEST');
    expect(tbs?.message).toMatch(/tbs/);
  });

  it('says NOT_CONFIGURED when the store has no index and no web provider is set', async () => {
    const memory = new MemoryStore();
    const failure = await search('x', {}, { store: memory }).then(
      () => undefined,
      (error: unknown) => error as TrawlError,
    );
    expect(failure?.code).toBe('NOT_CONFIGURED');
  });

  it('scrapes every result when scrapeOptions has formats, and marks a failed one', async () => {
    await crawlDocs();
    await store.searchIndex.put(entry(`${site}/status/500`, { body: 'quiver missing page' }));
    const result = await search(
      'quiver',
      { limit: 5, scrapeOptions: { formats: ['markdown'] } },
      { store },
    );
    const web = result.web ?? [];
    expect(web.length).toBeGreaterThan(1);
    const scraped = web.filter((item) => item.markdown !== undefined);
    expect(scraped.length).toBeGreaterThan(0);
    expect(scraped.every((item) => item.metadata?.source === 'local')).toBe(true);
    const failed = web.find((item) => item.url === `${site}/status/500`);
    expect(failed?.metadata?.error).toBeDefined();
    expect(result.counts.scraped).toBe(scraped.length);
  });
});
