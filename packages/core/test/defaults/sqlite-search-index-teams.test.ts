/**
 * The SQLite index keeps each team's pages apart (the team contract), a file of the layout
 * without teams still opens with its pages given to the default team, and the scrape pipeline
 * indexes and caches a page for the team it was scraped for — and not at all when it was fetched
 * with the caller's credentials — over the fixture site.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, inject, it } from 'vitest';
import { rebuildSearchIndex, scrape, search, SqliteStore } from '@trawl/core';
import { describeSearchIndexTeamContract } from '../../../../test/contracts/search-index.contract.ts';

const site = inject('fixtureUrl');
const newPath = () => join(mkdtempSync(join(tmpdir(), 'trawl-index-teams-')), 'store.sqlite');

describeSearchIndexTeamContract('SQLite', () => {
  const store = new SqliteStore({ path: newPath() });
  return Promise.resolve({ store, close: () => store.close() });
});

describe('a SQLite index file of the layout without teams', () => {
  it('opens, gives its pages to the default team, and never gives an id twice', async () => {
    const path = newPath();
    const old = new DatabaseSync(path);
    old.exec(`
      CREATE TABLE search_pages (id INTEGER PRIMARY KEY AUTOINCREMENT, url TEXT NOT NULL UNIQUE,
        domain TEXT NOT NULL, language TEXT NOT NULL, fetched_at INTEGER NOT NULL,
        title TEXT NOT NULL, description TEXT NOT NULL, headings TEXT NOT NULL, body TEXT NOT NULL);
      CREATE INDEX search_pages_domain ON search_pages (domain);
      CREATE VIRTUAL TABLE search_words USING fts5(title, description, headings, body,
        content = 'search_pages', content_rowid = 'id',
        tokenize = 'unicode61 remove_diacritics 2');
      CREATE TABLE search_state (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
      INSERT INTO search_pages (url, domain, language, fetched_at, title, description, headings, body)
        VALUES ('https://o.example/kept', 'o.example', 'en', 1, 'Kept', '', '', 'wheatear'),
               ('https://o.example/dropped', 'o.example', 'en', 1, 'Dropped', '', '', 'redstart');
      INSERT INTO search_words (rowid, title, description, headings, body)
        SELECT id, title, description, headings, body FROM search_pages;
      INSERT INTO search_state VALUES ('indexed_through', 2);
      DELETE FROM search_pages WHERE id = 2;
    `);
    old.close();

    const store = new SqliteStore({ path });
    const index = store.searchIndex;
    const urls = async (team: string, word: string) =>
      (await index.query({ team, words: [word], limit: 10 })).map((hit) => hit.url);
    expect(await urls('default', 'wheatear')).toEqual(['https://o.example/kept']);
    expect(await urls('team-a', 'wheatear')).toEqual([]);
    // Id 2 was taken and indexed before: a new page must not get it, or its words would be lost.
    await index.put({
      team: 'team-a',
      url: 'https://o.example/new',
      title: 'New',
      description: '',
      headings: '',
      body: 'stonechat',
      domain: 'o.example',
      language: 'en',
      fetchedAt: 2,
    });
    expect(await urls('team-a', 'stonechat')).toEqual(['https://o.example/new']);
    await store.close();
    // Opened again: the move is done once.
    const again = new SqliteStore({ path });
    expect((await again.searchIndex.stats()).documents).toBe(2);
    await again.close();
  });
});

describe('the scrape pipeline and the index', () => {
  it("indexes and caches a page for its team only, and rebuilds each team's from the cache", async () => {
    const store = new SqliteStore({ path: newPath() });
    const url = `${site}/docs/install.html`;
    await scrape(url, {}, { store, team: 'team-a' });
    const found = async (team: string) =>
      (await search('install binary', { source: 'local' }, { store, team })).web?.map(
        (result) => result.url,
      );
    expect(await found('team-a')).toEqual([url]);
    expect(await found('team-b')).toEqual([]);
    // Team B's lockdown finds nothing of team A's cache; team A's finds its own.
    await expect(scrape(url, { lockdown: true }, { store, team: 'team-b' })).rejects.toMatchObject({
      code: 'SCRAPE_LOCKDOWN_CACHE_MISS',
    });
    const own = await scrape(url, { lockdown: true }, { store, team: 'team-a' });
    expect(own.metadata.cacheState).toBe('hit');
    // A cache entry of before teams (no team in it) is not given to anyone by a rebuild.
    await store.set('page-cache', 'from-before-teams', {
      url: `${site}/docs/configuration.html`,
      status: 200,
      contentType: 'text/html',
      text: '<html><body><main><h1>Old</h1><p>install binary</p></main></body></html>',
      charset: 'utf-8',
      fetchedAt: Date.now(),
    });
    expect(await rebuildSearchIndex(store)).toBe(1);
    expect(await found('team-a')).toEqual([url]);
    expect(await found('team-b')).toEqual([]);
    expect(await found('default')).toEqual([]);
    await store.close();
  });

  it('indexes and caches nothing fetched with headers or a password in the URL', async () => {
    const store = new SqliteStore({ path: newPath() });
    const withHeaders = `${site}/docs/install.html`;
    const withPassword = `${site.replace('http://', 'http://alice:s3cret@')}/docs/configuration.html`;
    const headed = await scrape(withHeaders, { headers: { 'x-session': 'a' } }, { store });
    const passworded = await scrape(withPassword, {}, { store });
    expect(JSON.stringify(passworded)).not.toContain('s3cret');
    expect(headed.markdown).toBeTruthy();
    expect((await store.searchIndex.stats()).documents).toBe(0);
    expect(await store.list('page-cache')).toEqual([]);
    // The same pages without credentials are indexed and cached.
    await scrape(withHeaders, {}, { store });
    expect((await store.searchIndex.stats()).documents).toBe(1);
    expect(await store.list('page-cache')).toHaveLength(1);
    await store.close();
  });
});
