/**
 * A crawl target's part of a check: crawl the site afresh, classify every page it reaches and
 * every page it failed on, and mark `removed` the known pages it no longer found, only when the
 * crawl finished without hitting its `limit` (a cut-short crawl marks nothing removed and says
 * so in the check's `warning`).
 */
import type { EngineContext } from '../config.ts';
import { sitemapIssuePrefix } from '../crawl/crawl-plan.ts';
import { crawl } from '../crawl/index.ts';
import { MemoryStore } from '../defaults/memory-store.ts';
import { outOfCreditsError, type CheckSession } from './check-session.ts';
import { classifyPage, withJson } from './classify.ts';
import { comparisonOf, pageOptions } from './comparison.ts';
import type { MonitorCrawlTarget } from './types.ts';

/** Runs a crawl target's part of the check. */
export async function runCrawlTarget(
  session: CheckSession,
  target: MonitorCrawlTarget,
  engine: EngineContext,
): Promise<void> {
  const { context, monitor, check, stage, record } = session;
  const { records } = context;
  const comparison = comparisonOf(target.scrapeOptions);
  const job = crawl(
    target.url,
    {
      ...target.crawlOptions,
      scrapeOptions: pageOptions(target.scrapeOptions, comparison) as never,
    },
    // The crawl's frontier lives for this check only; a check cut short by a restart is
    // failed and the next one crawls afresh.
    { ...engine, store: new MemoryStore() },
  );
  // The crawl has its own abort: stopping the check cancels it.
  const cancel = () => void job.cancel();
  context.signal.addEventListener('abort', cancel, { once: true });
  const result = check.targetResults.find((entry) => entry.targetId === target.id);
  if (result?.type === 'crawl') result.crawlId = job.id;
  const seen = new Set<string>();
  let unpaid = false;
  for await (const document of job) {
    if (context.signal.aborted) break;
    const url = document.metadata.sourceURL;
    seen.add(url);
    // A page scraped past the check's credits is neither shown nor charged: the crawl stops.
    if (unpaid || (context.takePage && !(await context.takePage()))) {
      if (!unpaid) void job.cancel();
      unpaid = true;
      continue;
    }
    await classifyPage(
      session,
      target,
      comparison,
      await withJson(context, comparison, url, document),
    );
  }
  const done = await job.done;
  context.signal.removeEventListener('abort', cancel);
  if (unpaid) {
    session.targetErrors.push(`crawl of ${target.url} stopped: ${outOfCreditsError}`);
    return;
  }
  for (const failure of (await job.errors()).errors) {
    // A denied start URL is the crawl's scope at work, and an unreadable sitemap is how the
    // crawl looks for pages: neither is a page of the site failing.
    if (failure.code === 'CRAWL_URL_DENIED' || failure.error.startsWith(sitemapIssuePrefix))
      continue;
    if (seen.has(failure.url)) continue;
    seen.add(failure.url);
    await classifyPage(session, target, comparison, {
      url: failure.url,
      error: failure.error,
      statusCode: Number(/\b([45]\d\d)\b/.exec(failure.error)?.[1]) || null,
    });
  }
  const truncated = done.progress.discovered > done.progress.total;
  if (result?.type === 'crawl') {
    result.crawlStatus = done.status;
    result.truncated = truncated;
  }
  if (done.status !== 'completed') {
    session.targetErrors.push(
      `crawl of ${target.url} ${done.status}${done.error ? `: ${done.error}` : ''}`,
    );
    session.warnings.push(
      `The crawl of ${target.url} did not complete (${done.status}); no page was marked removed.`,
    );
    return;
  }
  if (truncated) {
    session.warnings.push(
      `The crawl of ${target.url} stopped at its limit of ${done.progress.total} pages (${done.progress.discovered} found); pages it did not reach were not marked removed.`,
    );
    return;
  }
  for await (const { url, snapshot } of records.targetSnapshots(monitor.id, target.id)) {
    if (snapshot.removed || seen.has(url)) continue;
    const now = new Date().toISOString();
    await stage(target.id, url, {
      ...snapshot,
      removed: true,
      seenCheckId: check.id,
      seenAt: now,
    });
    await record({
      id: crypto.randomUUID(),
      targetId: target.id,
      url,
      status: 'removed',
      previousScrapeId: snapshot.scrapeId,
      currentScrapeId: null,
      statusCode: null,
      error: null,
      metadata: null,
      diff: null,
      judgment: null,
      createdAt: now,
    });
  }
  session.pagesSeen.set(target.id, seen.size);
}
