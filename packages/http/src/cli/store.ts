/**
 * The store a command works on, as the configuration chooses it: the embedded SQLite file by
 * default, or a PostgreSQL or Redis store that several processes (and machines) share.
 *
 * `@trawl/adapters` (pg, ioredis, BullMQ: ~13 MB of the V8 heap once loaded) is imported only
 * when the configuration names one of its backends: a command on the default SQLite store never
 * loads it, and its heap stays that much smaller for the whole run.
 */
import { join } from 'node:path';
import {
  MemoryCounters,
  SqliteStore,
  ValidationError,
  type Counters,
  type Store,
} from '@trawl/core';
import type { TrawlConfig } from '../config.ts';

/** Opens the configured store. @throws BAD_REQUEST when the chosen store's URL is not set */
export async function openStore(config: Pick<TrawlConfig, 'dataDir' | 'storage'>): Promise<Store> {
  const { store, databaseUrl, redisUrl, redisPrefix } = config.storage;
  switch (store) {
    case 'postgres': {
      if (databaseUrl === undefined)
        throw new ValidationError('TRAWL_STORE=postgres needs TRAWL_DATABASE_URL (postgres://…)');
      const { PostgresStore } = await import('@trawl/adapters');
      return new PostgresStore({ connectionString: databaseUrl });
    }
    case 'redis': {
      if (redisUrl === undefined)
        throw new ValidationError('TRAWL_STORE=redis needs TRAWL_REDIS_URL (redis://…)');
      const { RedisStore } = await import('@trawl/adapters');
      return new RedisStore({ url: redisUrl, prefix: redisPrefix });
    }
    case 'sqlite':
      return new SqliteStore({ path: join(config.dataDir, 'trawl.db') });
  }
}

/**
 * The counters of the team limits (rate, concurrency, credits, token days): in Redis when
 * `TRAWL_REDIS_URL` is set, else in the PostgreSQL store's database, so every process pointing at
 * either enforces one limit; in this process's memory on a store no other process shares.
 */
export async function openCounters(config: Pick<TrawlConfig, 'storage'>): Promise<Counters> {
  const { store, databaseUrl, redisUrl, redisPrefix } = config.storage;
  if (redisUrl !== undefined) {
    const { RedisCounters } = await import('@trawl/adapters');
    return new RedisCounters({ url: redisUrl, prefix: redisPrefix });
  }
  if (store === 'postgres' && databaseUrl !== undefined) {
    const { PostgresCounters } = await import('@trawl/adapters');
    return new PostgresCounters({ connectionString: databaseUrl });
  }
  return new MemoryCounters();
}
