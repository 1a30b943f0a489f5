import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryStore, SqliteStore } from '@trawl/core';
import { describeStoreContract } from '../../../../test/contracts/store.contract.ts';

const directory = mkdtempSync(join(tmpdir(), 'trawl-store-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describeStoreContract('memory', () => Promise.resolve(new MemoryStore()));

const sqlitePath = join(directory, 'contract.db');
describeStoreContract('sqlite', () => Promise.resolve(new SqliteStore({ path: sqlitePath })), {
  reopen: () => Promise.resolve(new SqliteStore({ path: sqlitePath })),
});

describe('SqliteStore', () => {
  it('creates the folder of its file and uses WAL journaling', async () => {
    const path = join(directory, 'nested', 'deeper', 'trawl.db');
    const store = new SqliteStore({ path });
    await store.set('ns', 'k', 1);
    await store.close();
    const { DatabaseSync } = await import('node:sqlite');
    const db = new DatabaseSync(path);
    expect(db.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
    db.close();
  });

  it('reports an unopenable file as STORE_UNAVAILABLE', () => {
    // A folder cannot be made beneath a regular file, whoever runs the test.
    const file = join(directory, 'plain-file');
    writeFileSync(file, 'not a folder');
    expect(() => new SqliteStore({ path: join(file, 'x.db') })).toThrow(
      expect.objectContaining({ code: 'STORE_UNAVAILABLE' }),
    );
  });
});
