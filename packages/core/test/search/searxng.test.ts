/**
 * search() with SearXNG as the web provider, against the fake SearXNG: each request option
 * changes the request SearXNG receives or the results returned; its failures become warnings;
 * with the built-in index too, results are fused by reciprocal rank and de-duplicated.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { search, SearxngProvider, SqliteStore, type SearchOptions } from '@trawl/core';
import {
  defaultCorpus,
  startFakeSearx,
  type FakeSearx,
} from '../../../../test/fakes/searxng-server.ts';

const site = inject('fixtureUrl');
let searx: FakeSearx;
let providers: SearxngProvider[];

beforeAll(async () => {
  searx = await startFakeSearx();
  providers = [new SearxngProvider({ url: searx.url })];
});
afterAll(() => searx.close());
afterEach(() => {
  searx.requests.length = 0;
  searx.mode = 'ok';
  searx.unresponsive = [];
  searx.corpus = defaultCorpus();
});

const run = (query: string, options: SearchOptions = {}) => search(query, options, { providers });
const sent = (name: string) => searx.requests.map((request) => request.get(name));

describe('search() over SearXNG', () => {
  it('asks /search with q and format=json, in the general category, page 1', async () => {
    const result = await run('lighthouse', { limit: 5 });
    expect(sent('q')).toEqual(['lighthouse']);
    expect(sent('format')).toEqual(['json']);
    expect(sent('categories')).toEqual(['general']);
    expect(sent('pageno')).toEqual(['1']);
    expect(result.web).toHaveLength(5);
    expect(result.web?.[0]).toMatchObject({ position: 1, metadata: { source: 'duckduckgo' } });
  });

  it('reads further pages until limit is reached', async () => {
    const result = await run('lighthouse', { limit: 22 });
    expect(sent('pageno')).toEqual(['1', '2', '3']);
    expect(result.web).toHaveLength(22);
  });

  it('asks the news and images categories for those sources', async () => {
    const result = await run('lighthouse', { sources: ['news', { type: 'images' }] });
    expect(new Set(sent('categories'))).toEqual(new Set(['images', 'news']));
    expect(result.web).toBeUndefined();
    expect(result.news?.[0]).toMatchObject({
      title: 'Lighthouse restored',
      date: expect.any(String),
    });
    expect(result.images?.[0]).toMatchObject({ imageWidth: 1920, imageHeight: 1080 });
  });

  it('narrows by categories: github by site, pdf by filetype, research and developer by category', async () => {
    await run('lighthouse', { categories: ['github', 'pdf', { type: 'research' }, 'developer'] });
    expect(sent('q')[0]).toBe('lighthouse site:github.com filetype:pdf');
    expect(sent('categories')[0]).toBe('general,science,it');
  });

  it('sends includeDomains as site: and keeps only their results', async () => {
    const result = await run('lighthouse', { includeDomains: ['site2.example'] });
    expect(sent('q')[0]).toBe('lighthouse site:site2.example');
    expect(result.web?.length).toBeGreaterThan(0);
    expect(result.web?.every((item) => item.url.startsWith('https://site2.example/'))).toBe(true);
  });

  it('sends excludeDomains as -site: and drops their results even when an engine ignores it', async () => {
    searx.corpus = defaultCorpus().map((result) => ({ ...result }));
    const result = await run('lighthouse', { excludeDomains: ['site3.example', 'site4.example'] });
    expect(sent('q')[0]).toBe('lighthouse -site:site3.example -site:site4.example');
    expect(result.web?.some((item) => /site[34]\.example/.test(item.url))).toBe(false);
  });

  it('maps tbs to time_range and drops results dated outside the window', async () => {
    const week = await run('lighthouse', { tbs: 'qdr:w', sources: ['news'] });
    expect(new Set(sent('time_range'))).toEqual(new Set(['week']));
    expect(week.news?.map((item) => item.title)).toEqual(['Lighthouse restored']);
    searx.requests.length = 0;
    await run('lighthouse', { tbs: 'qdr:h' });
    expect(new Set(sent('time_range'))).toEqual(new Set(['day']));
    const old = await run('lighthouse', {
      tbs: 'cdr:1,cd_min:1/1/2001,cd_max:12/31/2001',
      sources: ['news'],
    });
    expect(old.news?.map((item) => item.title)).toEqual(['Lighthouse closed']);
  });

  it('sends lang as language, and lang with country as a locale', async () => {
    await run('lighthouse', { lang: 'fr' });
    await run('lighthouse', { country: 'us' });
    await run('lighthouse', { lang: 'de', country: 'at' });
    expect(sent('language')).toEqual(['fr', 'en-US', 'de-AT']);
  });

  it('drops results with URLs it cannot scrape when ignoreInvalidURLs is set', async () => {
    searx.corpus = [
      {
        url: 'ftp://files.example/lighthouse',
        title: 'Lighthouse ftp',
        content: '',
        engine: 'e',
        category: 'general',
      },
      {
        url: 'https://ok.example/lighthouse',
        title: 'Lighthouse ok',
        content: '',
        engine: 'e',
        category: 'general',
      },
    ];
    expect((await run('lighthouse')).web).toHaveLength(2);
    const strict = await run('lighthouse', { ignoreInvalidURLs: true });
    expect(strict.web?.map((item) => item.url)).toEqual(['https://ok.example/lighthouse']);
  });

  it('scrapes the results with scrapeOptions, keeping the engine as metadata.source', async () => {
    searx.corpus = [
      {
        url: `${site}/docs/install.html`,
        title: 'Install',
        content: 'install',
        engine: 'brave',
        category: 'general',
      },
      {
        url: `${site}/status/404`,
        title: 'Gone',
        content: 'install',
        engine: 'brave',
        category: 'general',
      },
    ];
    const result = await run('install', { scrapeOptions: { formats: ['markdown'] } });
    expect(result.web?.[0]?.markdown).toMatch(/single binary/);
    expect(result.web?.[0]?.metadata).toMatchObject({ source: 'brave', statusCode: 200 });
    expect(result.web?.[1]?.metadata?.statusCode).toBe(404);
    expect(result.web?.[1]?.metadata?.error).toBeDefined();
  });

  it('names unresponsive engines in the warning', async () => {
    searx.unresponsive = [
      ['google', 'timeout'],
      ['bing', 'Suspended: too many requests'],
    ];
    const result = await run('lighthouse');
    expect(result.warning).toContain('google (timeout)');
    expect(result.warning).toContain('bing (Suspended: too many requests)');
  });

  it('warns instead of failing when SearXNG answers HTML, refuses, or is down', async () => {
    searx.mode = 'html';
    expect((await run('lighthouse')).warning).toMatch(/instead of JSON.*search\.formats/);
    searx.mode = 'forbidden';
    expect((await run('lighthouse')).warning).toMatch(/403/);
    searx.mode = 'limited';
    expect((await run('lighthouse')).warning).toMatch(/429.*limiter/);
    const down = await search(
      'lighthouse',
      {},
      {
        providers: [new SearxngProvider({ url: 'http://127.0.0.1:1' })],
      },
    );
    expect(down.web).toEqual([]);
    expect(down.warning).toMatch(/cannot reach SearXNG/);
  });

  it('gives up on a SearXNG that does not answer within timeout, with a warning', async () => {
    searx.mode = 'hang';
    const result = await run('lighthouse', { timeout: 300 });
    expect(result.web).toEqual([]);
    expect(result.warning).toMatch(/timeout/);
  });

  it('fuses the built-in index with SearXNG by rank, one result per normalised URL', async () => {
    const store = new SqliteStore({
      path: join(mkdtempSync(join(tmpdir(), 'trawl-rrf-')), 't.db'),
    });
    try {
      await store.searchIndex.put({
        team: 'default',
        url: 'https://www.site1.example/lighthouse/1/',
        title: 'Lighthouse page 1',
        description: '',
        headings: '',
        body: 'lighthouse',
        domain: 'www.site1.example',
        language: 'en',
        fetchedAt: Date.now(),
      });
      const result = await search('lighthouse', { source: 'all', limit: 5 }, { store, providers });
      const urls = result.web?.map((item) => item.url) ?? [];
      // Ranked by both (first locally, second by SearXNG), so it leads, and appears once.
      expect(urls[0]).toBe('https://www.site1.example/lighthouse/1/');
      expect(urls.filter((url) => url.includes('site1.example/lighthouse/1'))).toHaveLength(1);
      expect(result.web?.[0]?.metadata?.source).toBe('local');
      const local = await search('lighthouse', { source: 'local' }, { store, providers });
      expect(local.web?.map((item) => item.url)).toEqual([
        'https://www.site1.example/lighthouse/1/',
      ]);
    } finally {
      await store.close();
    }
  });
});
