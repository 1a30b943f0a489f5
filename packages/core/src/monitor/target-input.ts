/**
 * A monitor's fields as stored, from what the caller gave: targets (each checked, with an id;
 * the caller's own options kept, no defaults spelled out), the webhook in its object form,
 * notification settings, and the rule that search targets need a goal to judge against.
 */
import { NotConfiguredError, ValidationError } from '../errors.ts';
import type { LlmProvider } from '../interfaces/llm-provider.ts';
import type { SearchProvider } from '../interfaces/search-provider.ts';
import type { Store } from '../interfaces/store.ts';
import { parseTargetUrl } from '../internal/url.ts';
import { parseOrThrow } from '../internal/zod.ts';
import type { ScrapeOptions } from '../scrape/options.ts';
import { comparisonOf } from './comparison.ts';
import {
  monitorSearchTargetSchema,
  searchTargetGoalProblem,
  type MonitorCreateInput,
  type MonitorTargetInput,
} from './options.ts';
import type { MonitorNotification, MonitorTarget, MonitorWebhook } from './types.ts';

/** What decides whether a target can be checked here. */
export interface TargetServices {
  store: Store;
  llm?: LlmProvider | undefined;
  searchProviders?: readonly SearchProvider[] | undefined;
}

/**
 * Targets as stored, from targets the monitor's schema accepted. @throws INVALID_URL naming the
 * target's bad URL; NOT_CONFIGURED for JSON without an LLM, or search with nothing to search
 */
export function storedTargets(
  inputs: readonly MonitorTargetInput[],
  services: TargetServices,
): MonitorTarget[] {
  return inputs.map((input, index) => {
    const path = ['targets', index];
    const id = input.id ?? crypto.randomUUID();
    if (input.type === 'search') return searchTarget(input, id, path, services);
    // The monitor's schema checked the options, across fields too (waitFor ≤ timeout / 2).
    const scrapeOptions = input.scrapeOptions as ScrapeOptions | undefined;
    if (comparisonOf(scrapeOptions).json && !services.llm) {
      throw new NotConfiguredError(
        `Target ${index} asks for JSON (a json format or changeTracking json mode), which needs an LLM provider, and none is configured.`,
        {
          details: [
            { path: [...path, 'scrapeOptions', 'formats'], message: 'needs an LLM provider' },
          ],
        },
      );
    }
    if (input.type === 'scrape') {
      const urls = input.urls ?? (input.url !== undefined ? [input.url] : []);
      const checked = urls.map((url) => parseTargetUrl(url).href);
      return {
        id,
        type: 'scrape',
        urls: checked,
        ...(scrapeOptions ? { scrapeOptions: structuredClone(scrapeOptions) } : {}),
      };
    }
    return {
      id,
      type: 'crawl',
      url: parseTargetUrl(input.url).href,
      ...(input.crawlOptions ? { crawlOptions: structuredClone(input.crawlOptions) } : {}),
      ...(input.scrapeOptions ? { scrapeOptions: structuredClone(input.scrapeOptions) } : {}),
    };
  });
}

/** A search target as stored. @throws NOT_CONFIGURED when nothing could answer its queries */
function searchTarget(
  input: Extract<MonitorTargetInput, { type: 'search' }>,
  id: string,
  path: (string | number)[],
  services: TargetServices,
): MonitorTarget {
  if (!services.store.searchIndex && !services.searchProviders?.length) {
    throw new NotConfiguredError(
      'Search targets need something to search: this store keeps no search index (use the SQLite store) and no web search provider is configured (searxngUrl).',
      { details: [{ path, message: 'no search provider' }] },
    );
  }
  const parsed = parseOrThrow(monitorSearchTargetSchema, input, path.join('.'));
  return {
    id,
    type: 'search',
    queries: parsed.queries,
    searchWindow: parsed.searchWindow,
    maxResults: parsed.maxResults,
    ...(parsed.includeDomains ? { includeDomains: parsed.includeDomains } : {}),
    ...(parsed.excludeDomains ? { excludeDomains: parsed.excludeDomains } : {}),
  };
}

/** Notification settings as stored: only what was given. */
export function notificationOf(
  notification: { email?: MonitorNotification['email'] | undefined } | null | undefined,
): MonitorNotification {
  return notification?.email ? { email: notification.email } : {};
}

/** The webhook as stored: the object form. */
export function webhookOf(
  webhook: MonitorCreateInput['webhook'] | undefined,
): MonitorWebhook | null {
  if (webhook === undefined || webhook === null) return null;
  if (typeof webhook === 'string') return { url: webhook };
  return structuredClone(webhook) as MonitorWebhook;
}

/** Search targets are judged against the goal: one is needed unless judging is off. @throws BAD_REQUEST */
export function requireSearchGoal(monitor: Parameters<typeof searchTargetGoalProblem>[0]): void {
  const problem = searchTargetGoalProblem(monitor);
  if (problem)
    throw new ValidationError(problem, { details: [{ path: ['goal'], message: problem }] });
}
