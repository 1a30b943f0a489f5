/**
 * The SQLite index's lazy indexing: a put stores the page, and its words are added when the index
 * is next read, or once no page has been put for a while; pages waiting survive a restart, a
 * replaced or removed page leaves no words behind, and a file of the layout before is moved over.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { SqliteStore, type IndexEntry } from '@trawl/core';

const newPath = () => join(mkdtempSync(join(tmpdir(), 'trawl-search-index-')), 'store.sqlite');

function entry(url: string, body: string): IndexEntry {
  return {
    team: 'default',
    url,
    title: `Page ${url}`,
    description: '',
    headings: '',
    body,
    domain: new URL(url).hostname,
    language: 'en',
    fetchedAt: Date.now(),
  };
}

/** The index's state as another connection to the file sees it. */
function fileState(path: string): { pages: number; indexedThrough: number; lastId: number } {
  const db = new DatabaseSync(path);
  // The store may be indexing in idle time meanwhile: wait for its lock rather than fail.
  db.exec('PRAGMA busy_timeout = 5000');
  try {
    const pages = db.prepare('SELECT count(*) AS n, max(id) AS last FROM search_pages').get() as {
      n: number;
      last: number | null;
    };
    const mark = db
      .prepare("SELECT value FROM search_state WHERE name = 'indexed_through'")
      .get() as {
      value: number;
    };
    // FTS5 checks its own lists and, once every page is indexed, their match with the pages
    // (rank 1): words left of a removed page fail it. Throws when either does not hold.
    const allIndexed = mark.value === (pages.last ?? 0);
    db.exec(
      `INSERT INTO search_words (search_words, rank) VALUES ('integrity-check', ${allIndexed ? 1 : 0})`,
    );
    return { pages: pages.n, indexedThrough: mark.value, lastId: pages.last ?? 0 };
  } finally {
    db.close();
  }
}

const urls = (hits: { url: string }[]) => hits.map((hit) => hit.url).sort();

describe('SqliteSearchIndex lazy indexing', () => {
  it('stores pages without indexing them, and the next reader, in another process, indexes them', async () => {
    const path = newPath();
    const writer = new SqliteStore({ path });
    await writer.searchIndex.put(entry('https://a.example/1', 'heron wetlands'));
    await writer.searchIndex.put(entry('https://a.example/2', 'heron estuary'));
    await writer.close();
    expect(fileState(path)).toMatchObject({ pages: 2, indexedThrough: 0 });

    const reader = new SqliteStore({ path });
    const hits = await reader.searchIndex.query({ team: 'default', words: ['heron'], limit: 10 });
    expect(urls(hits)).toEqual(['https://a.example/1', 'https://a.example/2']);
    await reader.close();
    const after = fileState(path);
    expect(after.indexedThrough).toBe(after.lastId);
  });

  it('writes a page with the store’s writes of the same turn, in their commit', async () => {
    const path = newPath();
    const store = new SqliteStore({ path });
    try {
      void store.searchIndex.put(entry('https://g.example/1', 'plover'));
      // Resolves once the turn's group has committed: the page is in the file with it, long
      // before a queue's delay would have written it.
      await store.set('notes', 'k', 1);
      expect(fileState(path)).toMatchObject({ pages: 1 });
    } finally {
      await store.close();
    }
  });

  it('loses only the page when its write fails, not the store’s writes of the turn', async () => {
    const store = new SqliteStore({ path: newPath() });
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on('warning', onWarning);
    try {
      // SQLite cannot bind undefined: the insert fails with the transaction still open.
      const broken = { ...entry('https://g.example/2', 'x'), body: undefined as unknown as string };
      void store.searchIndex.put(broken);
      await store.set('notes', 'after', 1);
      expect(await store.get('notes', 'after')).toBe(1);
      await sleep(10);
      expect(warnings.some((message) => message.includes('search index lost 1 pages'))).toBe(true);
    } finally {
      process.off('warning', onWarning);
      await store.close();
    }
  });

  it('indexes in idle time once no page has been put for a second', async () => {
    const path = newPath();
    const store = new SqliteStore({ path });
    for (let i = 0; i < 30; i++)
      await store.searchIndex.put(entry(`https://b.example/${i}`, `kingfisher ${i}`));
    await sleep(400);
    // Written, not yet indexed.
    expect(fileState(path)).toMatchObject({ pages: 30, indexedThrough: 0 });
    await sleep(1500);
    const state = fileState(path);
    expect(state.indexedThrough).toBe(state.lastId);
    await store.close();
  });

  it('catches up on a large backlog a slice at a time, letting other work run between', async () => {
    const path = newPath();
    const store = new SqliteStore({ path });
    for (let i = 0; i < 200; i++)
      await store.searchIndex.put(entry(`https://e.example/${i}`, `sandpiper number${i}`));
    let otherWorkRan = false;
    setImmediate(() => (otherWorkRan = true));
    const hits = await store.searchIndex.query({
      team: 'default',
      words: ['sandpiper'],
      limit: 500,
    });
    expect(hits).toHaveLength(200);
    // Indexed in one go, the answer would come before any other callback could run.
    expect(otherWorkRan).toBe(true);
    await store.close();
    const state = fileState(path);
    expect(state.indexedThrough).toBe(state.lastId);
  });

  it('leaves no words of a page replaced or removed, indexed or not', async () => {
    const path = newPath();
    const store = new SqliteStore({ path });
    const index = store.searchIndex;
    await index.put(entry('https://c.example/indexed', 'plover'));
    await index.put(entry('https://c.example/waiting', 'avocet'));
    expect(urls(await index.query({ team: 'default', words: ['plover'], limit: 10 }))).toHaveLength(
      1,
    );
    // One page indexed and replaced, one replaced before it was indexed, one removed each way.
    await index.put(entry('https://c.example/indexed', 'curlew'));
    await index.put(entry('https://c.example/late', 'godwit'));
    await index.put(entry('https://c.example/late', 'dunlin'));
    expect(await index.remove('default', 'https://c.example/waiting')).toBe(true);
    expect(await index.query({ team: 'default', words: ['plover'], limit: 10 })).toEqual([]);
    expect(await index.query({ team: 'default', words: ['godwit'], limit: 10 })).toEqual([]);
    expect(await index.query({ team: 'default', words: ['avocet'], limit: 10 })).toEqual([]);
    expect(urls(await index.query({ team: 'default', words: ['curlew'], limit: 10 }))).toEqual([
      'https://c.example/indexed',
    ]);
    expect(urls(await index.query({ team: 'default', words: ['dunlin'], limit: 10 }))).toEqual([
      'https://c.example/late',
    ]);
    await index.put(entry('https://c.example/after', 'sanderling'));
    expect(await index.remove('default', 'https://c.example/indexed')).toBe(true);
    expect(await index.stats()).toMatchObject({ documents: 2 });
    await store.close();
    expect(fileState(path).pages).toBe(2);
  });

  it('moves a file of the layout before lazy indexing over and finds its pages', async () => {
    const path = newPath();
    const old = new DatabaseSync(path);
    old.exec(`
      CREATE TABLE search_docs (id INTEGER PRIMARY KEY, url TEXT NOT NULL UNIQUE,
        domain TEXT NOT NULL, language TEXT NOT NULL, fetched_at INTEGER NOT NULL);
      CREATE VIRTUAL TABLE search_text USING fts5(title, description, headings, body,
        tokenize = 'unicode61 remove_diacritics 2');
      INSERT INTO search_docs VALUES (7, 'https://d.example/old', 'd.example', 'en', 1);
      INSERT INTO search_text (rowid, title, description, headings, body)
        VALUES (7, 'Old page', 'kept over', '', 'turnstone');
    `);
    old.close();

    const store = new SqliteStore({ path });
    const hits = await store.searchIndex.query({
      team: 'default',
      words: ['turnstone'],
      limit: 10,
    });
    expect(hits).toMatchObject([
      { url: 'https://d.example/old', title: 'Old page', description: 'kept over' },
    ]);
    await store.close();
    const db = new DatabaseSync(path);
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE name IN ('search_docs', 'search_text')")
      .all();
    db.close();
    expect(tables).toEqual([]);
  });
});
