/**
 * The store a command works on, as the configuration chooses it: the embedded SQLite file by
 * default, or a PostgreSQL or Redis store that several processes (and machines) share.
 */
import { join } from 'node:path';
import { SqliteStore, ValidationError, type Counters, type Store } from '@trawl/core';
import { PostgresStore, RedisCounters, RedisStore } from '@trawl/adapters';
import type { TrawlConfig } from '../config.ts';

/** Opens the configured store. @throws BAD_REQUEST when the chosen store's URL is not set */
export function openStore(config: Pick<TrawlConfig, 'dataDir' | 'storage'>): Store {
  const { store, databaseUrl, redisUrl, redisPrefix } = config.storage;
  switch (store) {
    case 'postgres':
      if (databaseUrl === undefined)
        throw new ValidationError('TRAWL_STORE=postgres needs TRAWL_DATABASE_URL (postgres://…)');
      return new PostgresStore({ connectionString: databaseUrl });
    case 'redis':
      if (redisUrl === undefined)
        throw new ValidationError('TRAWL_STORE=redis needs TRAWL_REDIS_URL (redis://…)');
      return new RedisStore({ url: redisUrl, prefix: redisPrefix });
    case 'sqlite':
      return new SqliteStore({ path: join(config.dataDir, 'trawl.db') });
  }
}

/**
 * The shared counters of the team limits: in Redis when `TRAWL_REDIS_URL` is set, so every
 * process pointing at it enforces one limit; undefined (each process counts its own) otherwise.
 */
export function openCounters(config: Pick<TrawlConfig, 'storage'>): Counters | undefined {
  const { redisUrl, redisPrefix } = config.storage;
  return redisUrl === undefined
    ? undefined
    : new RedisCounters({ url: redisUrl, prefix: redisPrefix });
}
