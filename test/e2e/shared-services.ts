/**
 * The machine's real PostgreSQL and Redis for tests of several `trawl serve` processes sharing
 * them: a fresh database per test file, dropped afterwards, and a Redis key prefix of
 * its own whose keys are unlinked afterwards (never FLUSHALL: other suites use the same Redis).
 */
import { randomUUID } from 'node:crypto';
import { createClient } from '@redis/client';
import pg from 'pg';

const admin = 'postgres://postgres@127.0.0.1:5432/test';
export const redisUrl = 'redis://127.0.0.1:6379';

/** A database made for one test file. */
export interface FreshDatabase {
  url: string;
  drop(): Promise<void>;
}

/** Creates an empty database named after `label`. */
export async function freshDatabase(label: string): Promise<FreshDatabase> {
  const name = `trawl_${label}_${randomUUID().replaceAll('-', '')}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  return {
    url: `postgres://postgres@127.0.0.1:5432/${name}`,
    drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A Redis key prefix for one test file, and a look at (and the removal of) its keys. */
export interface RedisPrefix {
  prefix: string;
  /** The keys under the prefix that match `pattern` (after the prefix and its colon). */
  keys(pattern?: string): Promise<string[]>;
  /** Unlinks every key under the prefix. */
  clean(): Promise<void>;
}

/** The keys under `prefix` that match `pattern`, unlinked too when `unlink` is set. */
async function scanKeys(prefix: string, pattern: string, unlink: boolean): Promise<string[]> {
  const client = createClient({ url: redisUrl });
  await client.connect();
  try {
    const found: string[] = [];
    for await (const batch of client.scanIterator({ MATCH: `${prefix}:${pattern}`, COUNT: 1000 }))
      found.push(...batch);
    if (unlink && found.length > 0) await client.unlink(found);
    return found;
  } finally {
    client.destroy();
  }
}

/** A fresh prefix named after `label`. */
export function redisPrefix(label: string): RedisPrefix {
  const prefix = `trawl_test_${label}_${randomUUID().replaceAll('-', '')}`;
  return {
    prefix,
    keys: (pattern = '*') => scanKeys(prefix, pattern, false),
    clean: async () => {
      await scanKeys(prefix, '*', true);
    },
  };
}
