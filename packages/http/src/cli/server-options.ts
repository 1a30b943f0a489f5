/**
 * The options of a process's services from its configuration, shared by `trawl serve` (which
 * answers requests) and `trawl worker` (which runs the jobs they queue): the same webhooks, limits,
 * prices, LLM and search settings, so a job behaves alike whichever process runs it.
 */
import { SearxngProvider, type Counters, type Queue, type Store } from '@trawl/core';
import type { TrawlConfig } from '../config.ts';
import type { ApiKeys } from '../server/auth.ts';
import type { ProcessOptions } from '../process/services.ts';
import type { ServerOptions } from '../server/context.ts';
import { monitorSettingsFrom } from '../server/monitor-settings.ts';

/** What a process opens before its services are built. */
interface Opened {
  store: Store;
  queue: Queue;
  counters: Counters;
}

/**
 * The options of `buildServer` / `serverContext`. Call it before opening anything: it checks
 * the e-mail and LLM settings. @throws BAD_REQUEST for bad monitor settings
 */
export function serverOptionsFrom(
  config: Readonly<TrawlConfig>,
): (services: Opened & { keys: ApiKeys }) => ServerOptions {
  const processOptions = processOptionsFrom(config);
  const {
    logLevel,
    feedbackDailyRefundCap,
    searchFeedbackDailyRefundCap,
    feedbackWindowMs,
    feedbackOptedOutTeams,
  } = config.server;
  return ({ keys, ...opened }) => ({
    ...processOptions(opened),
    keys,
    logLevel,
    feedback: {
      ...(feedbackDailyRefundCap !== undefined ? { dailyRefundCap: feedbackDailyRefundCap } : {}),
      ...(searchFeedbackDailyRefundCap !== undefined
        ? { searchDailyRefundCap: searchFeedbackDailyRefundCap }
        : {}),
      ...(feedbackWindowMs !== undefined ? { windowMs: feedbackWindowMs } : {}),
      ...(feedbackOptedOutTeams ? { optedOutTeams: feedbackOptedOutTeams } : {}),
    },
  });
}

/**
 * The options of `buildProcess` for any role. Call it before opening anything, as above.
 * @throws BAD_REQUEST for bad monitor settings
 */
export function processOptionsFrom(
  config: Readonly<TrawlConfig>,
): (services: Opened) => Omit<ProcessOptions, 'role'> {
  const monitors = monitorSettingsFrom(config.server);
  const {
    rateLimitPerMinute,
    teamConcurrency,
    teamCredits,
    creditPrices,
    webhookSecret,
    webhookRetries,
    webhookLeaseMs,
    llmDailyTokens,
  } = config.server;
  return ({ store, queue, counters }) => ({
    store,
    queue,
    counters,
    config: config.engine,
    monitors,
    webhooks: {
      retries: webhookRetries,
      leaseMs: webhookLeaseMs,
      ...(webhookSecret ? { secret: webhookSecret } : {}),
    },
    limits: {
      ratePerMinute: rateLimitPerMinute,
      teamConcurrency,
      ...(teamCredits !== undefined ? { teamCredits } : {}),
    },
    ...(creditPrices ? { creditPrices } : {}),
    ...(llmDailyTokens !== undefined ? { llmDailyTokens } : {}),
    ...(config.server.searxngUrl
      ? { searchProviders: [new SearxngProvider({ url: config.server.searxngUrl })] }
      : {}),
  });
}
