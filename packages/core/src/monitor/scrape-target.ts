/**
 * A scrape target's part of a check: scrape each of its URLs afresh (a few at a time) and
 * classify every page against its baseline. An HTTP error status is an `error` page.
 */
import type { EngineContext } from '../config.ts';
import { toTrawlError } from '../errors.ts';
import { resolveOptions } from '../internal/resolved.ts';
import { eachLimited } from '../internal/semaphore.ts';
import { scrape } from '../scrape/index.ts';
import { scrapeOptionsSchema } from '../scrape/options.ts';
import { outOfCreditsError, type CheckSession } from './check-session.ts';
import { classifyPage, withJson, type Outcome } from './classify.ts';
import { comparisonOf, pageOptions } from './comparison.ts';
import type { MonitorScrapeTarget } from './types.ts';

/** Runs a scrape target's part of the check. */
export async function runScrapeTarget(
  session: CheckSession,
  target: MonitorScrapeTarget,
  engine: EngineContext,
): Promise<void> {
  const { context } = session;
  const comparison = comparisonOf(target.scrapeOptions);
  // Resolved once for every URL of the target.
  const options = resolveOptions(
    scrapeOptionsSchema,
    pageOptions(target.scrapeOptions, comparison),
    'scrape options',
  );
  await eachLimited(target.urls, context.config.crawlConcurrency, async (url) => {
    if (context.signal.aborted) return;
    let outcome: Outcome;
    try {
      if (context.takePage && !(await context.takePage())) {
        await classifyPage(session, target, comparison, {
          url,
          error: outOfCreditsError,
          statusCode: null,
        });
        return;
      }
      const document = await scrape(url, options, engine);
      const code = document.metadata.statusCode;
      outcome =
        code >= 400
          ? { url, error: document.metadata.error ?? `HTTP ${code}`, statusCode: code }
          : await withJson(context, comparison, url, document);
    } catch (error) {
      outcome = { url, error: toTrawlError(error).message, statusCode: null };
    }
    await classifyPage(session, target, comparison, outcome);
  });
}
