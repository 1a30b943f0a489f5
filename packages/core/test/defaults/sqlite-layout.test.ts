/**
 * SqliteStore files written before `expires_at` moved ahead of `value` are migrated on open,
 * keeping every entry and its expiry.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { SqliteStore } from '@trawl/core';

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
});
