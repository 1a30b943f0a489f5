/**
 * The rows of the configuration that say where state and work live: the store jobs and results
 * are kept in, and the queue their units of work wait in. With a shared store and a shared queue,
 * any number of API and worker processes on any number of machines serve one deployment
 * (README § Running on several machines).
 */
import { z } from 'zod';
import { integerFromEnv, type ConfigRow } from './config-values.ts';

/** The storage and queue rows, in the order the README lists them. */
export const storageRows = [
  {
    key: 'store',
    env: 'TRAWL_STORE',
    schema: z.enum(['sqlite', 'postgres', 'redis']).default('sqlite'),
    description:
      'Where jobs, the page cache, monitors and keys live: `sqlite` (a file in the data folder), `postgres` (`TRAWL_DATABASE_URL`) or `redis` (`TRAWL_REDIS_URL`). Processes that share a `postgres` or `redis` store share their jobs.',
  },
  {
    key: 'databaseUrl',
    env: 'TRAWL_DATABASE_URL',
    schema: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
    description: 'PostgreSQL connection URL of `TRAWL_STORE=postgres`.',
  },
  {
    key: 'redisUrl',
    env: 'TRAWL_REDIS_URL',
    schema: z.url({ protocol: /^rediss?$/ }).optional(),
    description:
      'Redis URL of `TRAWL_STORE=redis` and of `TRAWL_QUEUE=bullmq`; when set, whatever the store, the team limits (`TRAWL_RATE_LIMIT_PER_MINUTE`, `TRAWL_TEAM_CONCURRENCY`, the credit totals of `TRAWL_TEAM_CREDITS`) are counted there, so every process pointing at it enforces one limit. Unset: each process counts its own.',
  },
  {
    key: 'redisPrefix',
    env: 'TRAWL_REDIS_PREFIX',
    schema: z
      .string()
      .min(1)
      .max(100)
      .regex(/^[\w.:-]+$/, 'letters, digits and _ . : - only')
      .default('trawl'),
    description:
      'Start of every Redis key Trawl writes (store and limits), so that several deployments can share one Redis.',
  },
  {
    key: 'queue',
    env: 'TRAWL_QUEUE',
    schema: z.enum(['in-process', 'bullmq']).default('in-process'),
    description:
      'Where units of work (the owner of each crawl or batch scrape, each of their pages) wait: `in-process` (run by the process that accepts them) or `bullmq` (BullMQ on `TRAWL_REDIS_URL`, run by any `trawl worker`).',
  },
  {
    key: 'queueLeaseMs',
    env: 'TRAWL_QUEUE_LEASE_MS',
    schema: integerFromEnv.min(1000).default(30_000),
    description:
      'With `TRAWL_QUEUE=bullmq`: how long a worker holds a unit without renewing it; the units (and crawls) of a worker that died run elsewhere within about twice this.',
  },
  {
    key: 'queuePrefix',
    env: 'TRAWL_QUEUE_PREFIX',
    schema: z
      .string()
      .regex(/^[\w.-]+$/)
      .default('trawl'),
    description:
      'With `TRAWL_QUEUE=bullmq`: start of the Redis keys of the queue, so several deployments (or test runs) share one Redis server.',
  },
] as const satisfies readonly ConfigRow[];

/** Where the store and the queue live; `openStore` and `openQueue` (cli/) open them. */
export interface StorageSettings {
  store: 'sqlite' | 'postgres' | 'redis';
  databaseUrl?: string;
  redisUrl?: string;
  redisPrefix: string;
  queue: 'in-process' | 'bullmq';
  queueLeaseMs: number;
  queuePrefix: string;
}

/** Keys of the rows that choose the store and the queue. */
export const storageKeys = [
  'store',
  'databaseUrl',
  'redisUrl',
  'redisPrefix',
  'queue',
  'queueLeaseMs',
  'queuePrefix',
] as const;
