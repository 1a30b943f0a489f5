import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, openStore } from '@trawl/http';

/** A database of its own, so that other suites on the same server are not touched. */
const database = `trawl_open_store_${randomUUID().replaceAll('-', '')}`;
const admin = 'postgres://postgres@127.0.0.1:5432/test';

describe('openStore: the store the configuration chooses', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'trawl-open-store-'));
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    await client.query(`CREATE DATABASE ${database}`);
    await client.end();
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await client.end();
  });

  it('is the SQLite file of the data folder by default', async () => {
    const store = await openStore(loadConfig({ role: 'cli', env: { TRAWL_DATA_DIR: dataDir } }));
    await store.set('probe', 'k', { v: 1 });
    await store.close();
    expect((await stat(join(dataDir, 'trawl.db'))).isFile()).toBe(true);
  });

  it('writes to PostgreSQL with TRAWL_STORE=postgres, where a second process reads it', async () => {
    const env = {
      TRAWL_DATA_DIR: dataDir,
      TRAWL_STORE: 'postgres',
      TRAWL_DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${database}`,
    };
    const writer = await openStore(loadConfig({ role: 'cli', env }));
    await writer.set('probe', 'shared', { written: 'by one' });
    await writer.close();
    const client = new pg.Client({ connectionString: env.TRAWL_DATABASE_URL });
    await client.connect();
    const rows = await client.query('SELECT count(*)::int AS n FROM trawl_kv');
    await client.end();
    expect(rows.rows[0].n).toBeGreaterThan(0);
    const reader = await openStore(loadConfig({ role: 'cli', env }));
    expect(await reader.get('probe', 'shared')).toEqual({ written: 'by one' });
    await reader.close();
  });

  it('writes to Redis with TRAWL_STORE=redis', async () => {
    const store = await openStore(
      loadConfig({ role: 'cli', env: { TRAWL_STORE: 'redis', TRAWL_REDIS_URL: 'redis://127.0.0.1:6379' } }),
    );
    const key = randomUUID();
    await store.set('open-store-test', key, 42, { ttlMs: 60_000 });
    expect(await store.get('open-store-test', key)).toBe(42);
    await store.delete('open-store-test', key);
    await store.close();
  });

  it('writes the Redis store under TRAWL_REDIS_PREFIX', async () => {
    const prefix = `trawl_test_${randomUUID().replaceAll('-', '')}`;
    const store = await openStore(
      loadConfig({
        role: 'cli',
        env: {
          TRAWL_STORE: 'redis',
          TRAWL_REDIS_URL: 'redis://127.0.0.1:6379',
          TRAWL_REDIS_PREFIX: prefix,
        },
      }),
    );
    const raw = createClient({ url: 'redis://127.0.0.1:6379' });
    await raw.connect();
    try {
      await store.set('open-store-test', 'k', 1, { ttlMs: 60_000 });
      const keys: string[] = [];
      for await (const batch of raw.scanIterator({ MATCH: `${prefix}:*`, COUNT: 1000 }))
        keys.push(...batch);
      expect(keys.length).toBeGreaterThan(0);
      await raw.unlink(keys);
    } finally {
      raw.destroy();
      await store.close();
    }
  });

  it('refuses a bad Redis prefix and a webhook lease under a second, naming the variable', () => {
    expect(() => loadConfig({ role: 'cli', env: { TRAWL_REDIS_PREFIX: 'two words' } })).toThrow(
      /TRAWL_REDIS_PREFIX/,
    );
    expect(() => loadConfig({ role: 'cli', env: { TRAWL_WEBHOOK_LEASE_MS: '10' } })).toThrow(
      /TRAWL_WEBHOOK_LEASE_MS/,
    );
    expect(loadConfig({ role: 'cli', env: {} }).server.webhookLeaseMs).toBe(30_000);
    expect(loadConfig({ role: 'cli', env: { TRAWL_WEBHOOK_LEASE_MS: '2000' } }).server.webhookLeaseMs).toBe(
      2000,
    );
    expect(loadConfig({ role: 'cli', env: {} }).storage.redisPrefix).toBe('trawl');
  });

  it('refuses a shared store without its URL, naming the variable', async () => {
    await expect(openStore(loadConfig({ role: 'cli', env: { TRAWL_STORE: 'postgres' } }))).rejects.toThrow(
      /TRAWL_DATABASE_URL/,
    );
    await expect(openStore(loadConfig({ role: 'cli', env: { TRAWL_STORE: 'redis' } }))).rejects.toThrow(
      /TRAWL_REDIS_URL/,
    );
    expect(() => loadConfig({ role: 'cli', env: { TRAWL_STORE: 'mysql' } })).toThrow(/TRAWL_STORE/);
    expect(() =>
      loadConfig({ role: 'cli', env: { TRAWL_STORE: 'postgres', TRAWL_DATABASE_URL: 'http://x' } }),
    ).toThrow(/TRAWL_DATABASE_URL/);
  });
});
