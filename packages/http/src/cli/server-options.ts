/**
 * The services of a server process from its configuration, shared by `trawl serve` (which answers
 * requests) and `trawl worker` (which runs the jobs they queue): the same webhooks, limits,
 * prices, LLM and search settings, so a job behaves alike whichever process runs it.
 */
import { SearxngProvider, type Counters, type Queue, type Store } from '@trawl/core';
import type { TrawlConfig } from '../config.ts';
import type { ApiKeys } from '../server/auth.ts';
import type { ServerOptions } from '../server/context.ts';
import { monitorSettingsFrom } from '../server/monitor-settings.ts';

/**
 * The options of `buildServer` / `serverContext`. Call it before opening anything: it checks
 * the e-mail and LLM settings. @throws BAD_REQUEST for bad monitor settings
 */
export function serverOptionsFrom(
  config: Readonly<TrawlConfig>,
): (services: { store: Store; queue: Queue; keys: ApiKeys; counters: Counters }) => ServerOptions {
  const monitors = monitorSettingsFrom(config.server);
  const {
    logLevel,
    rateLimitPerMinute,
    teamConcurrency,
    teamCredits,
    creditPrices,
    feedbackDailyRefundCap,
    searchFeedbackDailyRefundCap,
    feedbackWindowMs,
    feedbackOptedOutTeams,
    webhookSecret,
    webhookRetries,
    webhookLeaseMs,
    llmDailyTokens,
  } = config.server;
  return ({ store, queue, keys, counters }) => ({
    store,
    queue,
    counters,
    config: config.engine,
    keys,
    monitors,
    logLevel,
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
