/**
 * @trawl/adapters — backends for running Trawl at scale, each implementing an interface of
 * `@trawl/core`. Explicit named exports only, as in core.
 */
export { RedisStore } from './store/redis.ts';
export type { RedisStoreOptions } from './store/redis.ts';
export { PostgresStore } from './store/postgres.ts';
export type { PostgresStoreOptions } from './store/postgres.ts';
