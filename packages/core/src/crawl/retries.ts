/**
 * One page of a job, scraped with the job's retries: a 429 or 503 answer is tried again after
 * its Retry-After (or an exponential backoff), up to `crawlRetries` times; a dropped connection
 * once. A timeout already spent its budget and is not retried.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { EngineContext } from '../config.ts';
import { toTrawlError } from '../errors.ts';
import { runScrapeDetailed, type ScrapeOutcome } from '../scrape/engine.ts';
import type { ResolvedScrapeOptions } from '../scrape/options.ts';

/** Longest wait between two tries. */
const maxBackoffMs = 60_000;

/** Scrapes `url` for a job. @throws the last failure once the retries are spent */
export async function scrapeWithRetries(
  url: string,
  options: ResolvedScrapeOptions,
  context: EngineContext,
  { retries, signal }: { retries: number; signal: AbortSignal },
): Promise<ScrapeOutcome> {
  const request = { sourceUrl: url, target: new URL(url), options, hasExplicitMaxAge: false };
  const backoff = (attempt: number, retryAfterMs: number | undefined) =>
    sleep(Math.min(retryAfterMs ?? 500 * 2 ** attempt, maxBackoffMs), undefined, { signal });
  for (let attempt = 0; ; attempt++) {
    try {
      const outcome = await runScrapeDetailed(request, context, true);
      const status = outcome.document.metadata.statusCode;
      if ((status === 429 || status === 503) && attempt < retries) {
        await backoff(attempt, outcome.retryAfterMs);
        continue;
      }
      return outcome;
    } catch (error) {
      const trawlError = toTrawlError(error);
      // A dropped connection is worth one more try; a timeout already spent its budget.
      if (trawlError.code === 'FETCH_FAILED' && trawlError.retryable && attempt === 0) {
        await backoff(attempt, undefined);
        continue;
      }
      throw error;
    }
  }
}
