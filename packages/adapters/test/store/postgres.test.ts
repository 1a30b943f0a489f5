/**
 * PostgresStore against the real PostgreSQL on 127.0.0.1:5432, database `test`. The stores of
 * this run use their own table (and a test of schema creation its own schema), and `afterAll`
 * drops every one of them.
 */
import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import { Pool } from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { PostgresStore, type PostgresStoreOptions } from '@trawl/adapters';
import { describeStoreContract, listedKeys } from '../../../../test/contracts/store.contract.ts';
import { closingOpener } from './closing-opener.ts';
import { relaysClosedAfterEach } from './tcp-relay.ts';

const connectionString = 'postgres://127.0.0.1:5432/test';
const runId = randomUUID().replaceAll('-', '');
const table = `trawl_test_${runId}`;
const ns = () => `t_${randomUUID()}`;

// A plain pool to look at and drop what the stores created. Each test that makes a table or a
// schema of its own registers it here.
// It connects as the operating system user, as the stores do when the URL names none.
const raw = new Pool({
  host: '127.0.0.1',
  port: 5432,
  database: 'test',
  user: process.env['PGUSER'] ?? userInfo().username,
  max: 2,
});
const tables = new Set([table]);
const schemas = new Set<string>();
afterAll(async () => {
  for (const name of tables) await raw.query(`DROP TABLE IF EXISTS public."${name}"`);
  for (const name of schemas) await raw.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
  await raw.end();
});

const open = closingOpener(
  (options: PostgresStoreOptions) => new PostgresStore({ connectionString, table, ...options }),
);

describeStoreContract(
  'postgres',
  () => Promise.resolve(new PostgresStore({ connectionString, table })),
  { reopen: () => Promise.resolve(new PostgresStore({ connectionString, table })), shared: true },
);

describe('PostgresStore', () => {
  it('creates its table once when several stores start together', async () => {
    const fresh = `trawl_test_${randomUUID().replaceAll('-', '')}`;
    tables.add(fresh);
    const stores = Array.from({ length: 6 }, () => open({ table: fresh }));
    const namespace = ns();
    await Promise.all(stores.map((store, index) => store.set(namespace, `k${index}`, index)));
    expect(await stores[0]!.list(namespace)).toHaveLength(6);
    const { rows } = await raw.query<{ column_name: string; collation_name: string | null }>(
      `SELECT column_name, collation_name FROM information_schema.columns
       WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position`,
      [fresh],
    );
    expect(rows).toEqual([
      { column_name: 'namespace', collation_name: 'C' },
      { column_name: 'key', collation_name: 'C' },
      { column_name: 'value', collation_name: null },
      { column_name: 'expires_at', collation_name: null },
    ]);
  });

  it('creates a missing schema for its table', async () => {
    const schema = `trawl_test_${randomUUID().replaceAll('-', '')}`;
    schemas.add(schema);
    const store = open({ schema, table: 'kv' });
    await store.set(ns(), 'k', 'v');
    const { rows } = await raw.query(`SELECT count(*)::int AS n FROM "${schema}".kv`);
    expect(rows).toEqual([{ n: 1 }]);
  });

  it('keeps values exactly as JSON text, NUL characters and key order included', async () => {
    const store = open();
    const namespace = ns();
    const value = { zeta: 'a\u0000b', alpha: 'lone \ud800 surrogate', dup: [1.5, -0, 1e300] };
    await store.set(namespace, 'k', value);
    const read = await store.get<typeof value>(namespace, 'k');
    expect(read).toEqual({ ...value, dup: [1.5, 0, 1e300] });
    expect(Object.keys(read!)).toEqual(['zeta', 'alpha', 'dup']);
  });

  it('lists keys in code point order and keeps LIKE wildcards in a prefix literal', async () => {
    const store = open();
    const namespace = ns();
    for (const key of ['b', 'a\u{1F600}', 'a\uffff', 'ab', 'a', '', 'a%x', 'a_y', 'a\\z', 'aQ']) {
      await store.set(namespace, key, key);
    }
    expect(await listedKeys(store, namespace, { prefix: 'a' })).toEqual([
      'a',
      'a%x',
      'aQ',
      'a\\z',
      'a_y',
      'ab',
      'a\uffff',
      'a\u{1F600}',
    ]);
    expect(await listedKeys(store, namespace, { prefix: 'a%' })).toEqual(['a%x']);
    expect(await listedKeys(store, namespace, { prefix: 'a_' })).toEqual(['a_y']);
    expect(await listedKeys(store, namespace, { prefix: 'a\\' })).toEqual(['a\\z']);
    // The empty key is a key like any other: listed first, and excluded only by after: ''.
    expect(await listedKeys(store, namespace, { limit: 1 })).toEqual(['']);
    expect(await listedKeys(store, namespace, { after: '' })).toHaveLength(9);
  });

  it('sweeps expired rows out of the table every thousand writes', async () => {
    // A table of its own: a sweep removes at most 1000 rows, from any namespace.
    const fresh = `trawl_test_${randomUUID().replaceAll('-', '')}`;
    tables.add(fresh);
    const store = open({ table: fresh });
    const namespace = ns();
    await Promise.all(
      Array.from({ length: 999 }, (_, index) =>
        store.set(namespace, `k${index}`, index, { ttlMs: 1 }),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    await store.set(namespace, 'live', true);
    const { rows } = await raw.query(`SELECT key FROM public."${fresh}" WHERE namespace = $1`, [
      namespace,
    ]);
    expect(rows).toEqual([{ key: 'live' }]);
  });

  it('refuses names PostgreSQL cannot store exactly with BAD_REQUEST', async () => {
    const store = open();
    await expect(store.set(ns(), 'nul\u0000key', 1)).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    await expect(store.get(ns(), 'lone\udc00')).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(store.set(ns(), 'k', () => 1)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect(() => new PostgresStore({ table: 'x'.repeat(64) })).toThrow(
      expect.objectContaining({ code: 'BAD_REQUEST' }),
    );
  });

  it(
    'fails with STORE_UNAVAILABLE when nothing listens, without hanging',
    { timeout: 5000 },
    async () => {
      const store = open({
        connectionString: 'postgres://127.0.0.1:1/test',
        connectTimeoutMs: 1000,
      });
      await expect(store.get(ns(), 'k')).rejects.toMatchObject({
        code: 'STORE_UNAVAILABLE',
        retryable: true,
        message: expect.stringContaining('127.0.0.1:1/test') as unknown,
      });
      // A failed set-up is not remembered: the next call tries again, and fails the same way.
      await expect(store.set(ns(), 'k', 1)).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    },
  );

  it('names the server but never the password in its errors', async () => {
    const store = open({ connectionString: 'postgres://trawl:s3cret@127.0.0.1:1/test' });
    const error: unknown = await store.get(ns(), 'k').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect((error as Error).message).not.toContain('s3cret');
  });

  describe('behind a relay', () => {
    const startRelay = relaysClosedAfterEach();

    it('gives up on a server that accepts but never answers', { timeout: 5000 }, async () => {
      const relay = await startRelay();
      const store = open({
        connectionString: `postgres://127.0.0.1:${relay.port}/test`,
        connectTimeoutMs: 200,
      });
      await expect(store.get(ns(), 'k')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    });

    it('fails a statement whose reply does not come in time', { timeout: 10_000 }, async () => {
      const relay = await startRelay({ host: '127.0.0.1', port: 5432 });
      const store = open({
        connectionString: `postgres://127.0.0.1:${relay.port}/test`,
        connectTimeoutMs: 200,
        queryTimeoutMs: 200,
      });
      const namespace = ns();
      await store.set(namespace, 'k', 1);
      relay.mute();
      await expect(store.get(namespace, 'k')).rejects.toMatchObject({
        code: 'STORE_UNAVAILABLE',
      });
      relay.unmute();
      await vi.waitFor(() => store.get(namespace, 'k'), { timeout: 5000, interval: 50 });
      expect(await store.get(namespace, 'k')).toBe(1);
    });

    it('survives its idle connections being cut and reconnects', { timeout: 10_000 }, async () => {
      const relay = await startRelay({ host: '127.0.0.1', port: 5432 });
      const store = open({ connectionString: `postgres://127.0.0.1:${relay.port}/test` });
      const namespace = ns();
      await store.set(namespace, 'k', 'before');
      relay.dropConnections();
      // Without the pool's error listener this would crash the test process; instead the next
      // calls get STORE_UNAVAILABLE or a fresh connection.
      await vi.waitFor(() => store.set(namespace, 'k', 'after'), { timeout: 5000, interval: 50 });
      expect(await store.get(namespace, 'k')).toBe('after');
    });
  });
});
