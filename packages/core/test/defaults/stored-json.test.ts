/**
 * The JSON text a built-in store wrote for a marked object, taken by the next writer of that
 * object (the CLI's output of a crawl's documents) instead of serialising it again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryStore, SqliteStore, type Store } from '@trawl/core';
import { jsonAsStored } from '@trawl/core/server';
import { keepJsonWhenStored } from '../../src/defaults/stored-json.js';

const directory = mkdtempSync(join(tmpdir(), 'trawl-stored-json-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe.each([
  ['SqliteStore', () => new SqliteStore({ path: join(directory, 'stored.db') })],
  ['MemoryStore', () => new MemoryStore()],
])('jsonAsStored with %s', (_name, open: () => Store) => {
  it('gives the text the store wrote, which is what reads back', async () => {
    const store = open();
    try {
      const document = { markdown: '# Title\n\nText "quoted"', metadata: { statusCode: 200 } };
      keepJsonWhenStored(document);
      await store.set('results', 'r/1', document);
      // Changed after it was stored: the text still says what the store holds.
      document.metadata.statusCode = 500;
      const text = jsonAsStored(document);
      expect(JSON.parse(text)).toEqual(await store.get('results', 'r/1'));
      expect(JSON.parse(text)).toMatchObject({ metadata: { statusCode: 200 } });
    } finally {
      await store.close();
    }
  });

  it('does not keep the text of an object nobody marked', async () => {
    // A page-cache entry holds the page's HTML: its JSON must not live as long as the entry.
    const store = open();
    try {
      const entry = { text: '<p>page</p>', status: 200 };
      await store.set('page-cache', 'k', entry);
      entry.status = 404;
      expect(jsonAsStored(entry)).toBe(JSON.stringify(entry));
    } finally {
      await store.close();
    }
  });

  it('serialises an object no store wrote, as it is now', () => {
    const value = { a: [1, 'two'], b: null };
    expect(jsonAsStored(value)).toBe(JSON.stringify(value));
  });
});
