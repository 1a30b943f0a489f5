/**
 * PostgresStore's search index against the real PostgreSQL (127.0.0.1:5432, database `test`):
 * the SearchProvider contract, and the built-in index's scenarios of the SQLite tests — a crawl
 * of the fixture site found by words of its pages, filters, replacement, hostile queries.
 */
import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { crawl, LocalSearchProvider, search } from '@trawl/core';
import { PostgresStore } from '@trawl/adapters';
import {
  describeSearchProviderContract,
  indexEntry as entry,
} from '../../../../test/contracts/search-provider.contract.ts';

const site = inject('fixtureUrl');
const connectionString = 'postgres://127.0.0.1:5432/test';
const tables: string[] = [];
const raw = new Pool({
  host: '127.0.0.1',
  port: 5432,
  database: 'test',
  user: process.env['PGUSER'] ?? userInfo().username,
  max: 1,
});
afterAll(async () => {
  for (const table of tables) {
    await raw.query(`DROP TABLE IF EXISTS public."${table}"`);
    await raw.query(`DROP TABLE IF EXISTS public."${table}_search"`);
  }
  await raw.end();
});

function open(): PostgresStore {
  const table = `trawl_search_${randomUUID().replaceAll('-', '')}`;
  tables.push(table);
  return new PostgresStore({ connectionString, table });
}

describeSearchProviderContract('local (PostgreSQL full-text)', () => {
  const store = open();
  return Promise.resolve({
    provider: new LocalSearchProvider(store.searchIndex, 'default'),
    seed: async (pages) => {
      for (const page of pages)
        await store.searchIndex.put(entry(page.url, { title: page.title, body: page.content }));
    },
    close: () => store.close(),
  });
});

describe('search over the PostgreSQL index', () => {
  let store: PostgresStore;
  beforeAll(() => {
    store = open();
  });
  afterAll(() => store.close());

  it('finds crawled pages by words of their main content, best title and body match first', async () => {
    const job = crawl(
      `${site}/docs/index.html`,
      { limit: 10, crawlEntireDomain: true, includePaths: ['^/docs/'] },
      { store },
    );
    for await (const _document of job) {
      // Drained; pages are indexed as they are scraped.
    }
    await job.done;
    const byConfig = await search('configuration environment variables', {}, { store });
    expect(byConfig.web?.[0]?.url).toBe(`${site}/docs/configuration.html`);
    const byInstall = await search('install single binary', {}, { store });
    expect(byInstall.web?.[0]?.url).toBe(`${site}/docs/install.html`);
    expect(byInstall.web?.[0]?.description).toMatch(/binary/i);
    expect((await store.searchIndex.stats()).documents).toBeGreaterThanOrEqual(4);
  });

  it('replaces the entry of a URL indexed again', async () => {
    await store.searchIndex.put(entry('https://r.example/page', { body: 'stale walrus' }));
    await store.searchIndex.put(entry('https://r.example/page', { body: 'fresh walrus' }));
    expect((await search('stale', {}, { store })).web).toEqual([]);
    expect((await search('fresh', {}, { store })).web).toHaveLength(1);
  });

  it('filters by domain, fetch time and language', async () => {
    const day = 24 * 60 * 60 * 1000;
    await store.searchIndex.put(entry('https://docs.alpha.example/', { body: 'pelican' }));
    await store.searchIndex.put(
      entry('https://beta.example/', { body: 'pelican', fetchedAt: Date.now() - 3 * day }),
    );
    await store.searchIndex.put(
      entry('https://fr.example/', {
        body: 'pelican',
        language: 'fr',
        fetchedAt: Date.UTC(2020, 5, 15),
      }),
    );
    const urls = async (options: Parameters<typeof search>[1]) =>
      (await search('pelican', options, { store })).web?.map((item) => item.url).sort();
    expect(await urls({ includeDomains: ['alpha.example'] })).toEqual([
      'https://docs.alpha.example/',
    ]);
    expect(await urls({ excludeDomains: ['alpha.example', 'fr.example'] })).toEqual([
      'https://beta.example/',
    ]);
    expect(await urls({ tbs: 'qdr:d' })).toEqual(['https://docs.alpha.example/']);
    expect(await urls({ tbs: 'cdr:1,cd_min:6/1/2020,cd_max:6/30/2020' })).toEqual([
      'https://fr.example/',
    ]);
    expect(await urls({ lang: 'fr' })).toEqual(['https://fr.example/']);
  });

  it('treats tsquery syntax in a query as text', async () => {
    await store.searchIndex.put(entry('https://q.example/', { body: 'near the star quote' }));
    for (const query of ["'", '"', 'star:*', 'star & !quote', '<->', '(', 'NEAR(star quote)']) {
      const result = await search(query, {}, { store });
      expect(Array.isArray(result.web), query).toBe(true);
    }
    expect((await search('star:*', {}, { store })).web?.map((item) => item.url)).toEqual([
      'https://q.example/',
    ]);
  });
});
