/**
 * How SqliteStore lays out and reads its file: files of an earlier layout (`expires_at` after
 * `value`; a WITHOUT ROWID table) are migrated on open, keeping every entry and its expiry; a
 * prefix list is a bounded range scan of the key's index.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { SqliteStore } from '@trawl/core';
import { listStatements, prefixEnd } from '../../src/defaults/sqlite-store.js';

describe('SqliteStore file layout', () => {
  it('migrates a file of the first layout and keeps its entries and expiries', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'trawl-layout-')), 'old.sqlite');
    const old = new DatabaseSync(path);
    old.exec(`CREATE TABLE kv (namespace TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
      expires_at INTEGER, PRIMARY KEY (namespace, key)) WITHOUT ROWID;`);
    const insert = old.prepare('INSERT INTO kv VALUES (?, ?, ?, ?)');
    insert.run('ns', 'kept', JSON.stringify({ a: 1 }), null);
    insert.run('ns', 'expired', JSON.stringify('gone'), Date.now() - 1000);
    old.close();

    const store = new SqliteStore({ path });
    expect(await store.get('ns', 'kept')).toEqual({ a: 1 });
    expect(await store.get('ns', 'expired')).toBeUndefined();
    expect(await store.list('ns')).toEqual([{ key: 'kept', value: { a: 1 } }]);
    await store.close();

    const reopened = new DatabaseSync(path);
    const columns = reopened.prepare('PRAGMA table_info(kv)').all() as { name: string }[];
    expect(columns.map((column) => column.name)).toEqual([
      'namespace',
      'key',
      'expires_at',
      'value',
    ]);
    reopened.close();
  });

  it('moves a WITHOUT ROWID file to a rowid table with its key and expiry indexes', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'trawl-layout-')), 'keyed.sqlite');
    const old = new DatabaseSync(path);
    old.exec(`CREATE TABLE kv (namespace TEXT NOT NULL, key TEXT NOT NULL, expires_at INTEGER,
      value TEXT NOT NULL, PRIMARY KEY (namespace, key)) WITHOUT ROWID;
      CREATE INDEX kv_next_expiry ON kv (expires_at) WHERE expires_at IS NOT NULL;`);
    const insert = old.prepare('INSERT INTO kv VALUES (?, ?, ?, ?)');
    insert.run('ns', 'kept', null, JSON.stringify({ a: 1 }));
    insert.run('ns', 'later', Date.now() + 60_000, JSON.stringify('still here'));
    insert.run('ns', 'expired', Date.now() - 1000, JSON.stringify('gone'));
    old.close();

    const store = new SqliteStore({ path });
    expect(await store.get('ns', 'kept')).toEqual({ a: 1 });
    expect(await store.get('ns', 'later')).toBe('still here');
    expect(await store.get('ns', 'expired')).toBeUndefined();
    await store.set('ns', 'kept', { a: 2 });
    expect(await store.get('ns', 'kept')).toEqual({ a: 2 });
    await store.close();

    const reopened = new DatabaseSync(path);
    const table = reopened.prepare("SELECT sql FROM sqlite_schema WHERE name = 'kv'").get() as {
      sql: string;
    };
    expect(table.sql).not.toMatch(/WITHOUT ROWID/i);
    const indexes = reopened
      .prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'kv'")
      .all() as { name: string }[];
    expect(indexes.map((index) => index.name).sort()).toEqual([
      'kv_expiry',
      'sqlite_autoindex_kv_1',
    ]);
    reopened.close();
    // Opening the migrated file again leaves it as it is.
    const again = new SqliteStore({ path });
    expect(await again.list('ns')).toEqual([
      { key: 'kept', value: { a: 2 } },
      { key: 'later', value: 'still here' },
    ]);
    await again.close();
  });

  it('makes new files with 16 KiB pages and leaves an older file its own', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-layout-'));
    const pageSizeOf = (path: string) => {
      const db = new DatabaseSync(path);
      const { page_size: bytes } = db.prepare('PRAGMA page_size').get() as { page_size: number };
      db.close();
      return bytes;
    };
    const fresh = new SqliteStore({ path: join(dir, 'new.sqlite') });
    await fresh.set('ns', 'k', 'x'.repeat(50_000));
    await fresh.close();
    expect(pageSizeOf(join(dir, 'new.sqlite'))).toBe(16_384);

    const old = new DatabaseSync(join(dir, 'old.sqlite'));
    old.exec('PRAGMA journal_mode = WAL; CREATE TABLE other (a)');
    old.close();
    const reopened = new SqliteStore({ path: join(dir, 'old.sqlite') });
    await reopened.set('ns', 'k', 'kept');
    expect(await reopened.get('ns', 'k')).toBe('kept');
    await reopened.close();
    expect(pageSizeOf(join(dir, 'old.sqlite'))).toBe(4096);
  });

  it('bounds a prefix by the least string above it, astral characters included', () => {
    expect(prefixEnd('q/')).toBe('q0');
    expect(prefixEnd('job:1/r/')).toBe('job:1/r0');
    expect(prefixEnd('a\u{10FFFF}')).toBe('b');
    expect(prefixEnd('\uD7FF')).toBe('\uE000');
    expect(prefixEnd('')).toBeInstanceOf(Uint8Array);
    const db = new DatabaseSync(':memory:');
    db.exec('CREATE TABLE t (k TEXT PRIMARY KEY) WITHOUT ROWID');
    const insert = db.prepare('INSERT INTO t VALUES (?)');
    const keys = ['p', 'p\u{1F600}', 'p\uFFFF', 'pz', 'q', 'p\u{10FFFF}x', 'o\u{10FFFF}'];
    for (const key of keys) insert.run(key);
    const inRange = db.prepare('SELECT k FROM t WHERE k >= ? AND k < ? ORDER BY k');
    const found = (inRange.all('p', prefixEnd('p')) as { k: string }[]).map((row) => row.k);
    expect(found.sort()).toEqual(keys.filter((key) => key.startsWith('p')).sort());
    const everything = inRange.all('', prefixEnd('')) as { k: string }[];
    expect(everything).toHaveLength(keys.length);
    db.close();
  });

  it('lists a prefix with a range scan of the key index, not a filter over later keys', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'trawl-layout-')), 'plan.sqlite');
    void new SqliteStore({ path }).close();
    const db = new DatabaseSync(path);
    for (const sql of [listStatements.from, listStatements.after]) {
      const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all('ns', 'q/', prefixEnd('q/'), 10) as {
        detail: string;
      }[];
      expect(plan.map((row) => row.detail).join('\n')).toMatch(
        /SEARCH kv USING INDEX sqlite_autoindex_kv_1 \(namespace=\? AND key>=?\? AND key<\?\)/,
      );
    }
    db.close();
  });
});
