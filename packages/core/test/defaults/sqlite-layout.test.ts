/**
 * How SqliteStore lays out and reads its file: files written before `expires_at` moved ahead of
 * `value` are migrated on open, keeping every entry and its expiry; a prefix list is a bounded
 * range scan of the primary key.
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

  it('lists a prefix with a range scan of the primary key, not a filter over later keys', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'trawl-layout-')), 'plan.sqlite');
    void new SqliteStore({ path }).close();
    const db = new DatabaseSync(path);
    for (const sql of [listStatements.from, listStatements.after]) {
      const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all('ns', 'q/', prefixEnd('q/'), 10) as {
        detail: string;
      }[];
      expect(plan.map((row) => row.detail).join('\n')).toMatch(
        /SEARCH kv USING PRIMARY KEY \(namespace=\? AND key>=?\? AND key<\?\)/,
      );
    }
    db.close();
  });
});
