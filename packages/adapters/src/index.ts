/**
 * @trawl/adapters — backends for running Trawl at scale, each implementing an interface of
 * `@trawl/core`. Explicit named exports only, as in core.
 */
export { RedisStore } from './store/redis.ts';
export type { RedisStoreOptions } from './store/redis.ts';
export { PostgresStore } from './store/postgres.ts';
export type { PostgresStoreOptions } from './store/postgres.ts';
export { EmailNotifier, digestPages } from './notifier/email.ts';
export type { EmailNotifierOptions } from './notifier/email.ts';
export { OpenAiLlmProvider, parseJsonAnswer } from './llm/openai.ts';
export type { OpenAiLlmProviderOptions } from './llm/openai.ts';
export { RedisCounters } from './counters/redis.ts';
export type { RedisCountersOptions } from './counters/redis.ts';
export { PostgresCounters } from './counters/postgres.ts';
export type { PostgresCountersOptions } from './counters/postgres.ts';
export { BullmqQueue } from './queue/bullmq.ts';
export type { BullmqQueueOptions } from './queue/bullmq.ts';
