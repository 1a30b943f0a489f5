/**
 * What the owner of a job does when the job lives in a store other processes share:
 * its pages may be scraped by worker processes (a `PageDispatch` through the Queue), its counters
 * are published for the status reads of other processes, and a cancel asked for by any process
 * reaches it within half a second.
 */
import { resolveEngineConfig, type EngineContext } from '../config.ts';
import type { ScrapeOutcome } from '../scrape/engine.ts';
import type { ResolvedScrapeOptions } from '../scrape/options.ts';
import type { JobRunner } from './job.ts';
import { scrapeWithRetries } from './retries.ts';

/** How often the owner publishes its counters and looks for a cancel. */
const sharedPollMs = 500;

/**
 * Scrapes one page of a job somewhere else (a worker process, through the Queue) and hands back
 * what a local scrape would have; rejects as the scrape would, or when `signal` aborts.
 */
export type PageDispatch = (
  page: { jobId: string; seq: number; url: string; options: ResolvedScrapeOptions },
  signal: AbortSignal,
) => Promise<ScrapeOutcome>;

/** Publishes the job's counters and watches for a cancel until the returned stop is called. */
export function watchShared(job: JobRunner): () => void {
  let published = '';
  let busy = false;
  const tick = async () => {
    if (busy || job.isEnding) return;
    busy = true;
    try {
      if (await job.state.isCancelRequested()) {
        await job.cancel();
        return;
      }
      // Status reads in other processes come from the record: keep its counters current.
      const progress = JSON.stringify([job.progress, job.activePages]);
      if (progress !== published && !job.isEnding) {
        published = progress;
        job.state.record.progress = job.progress;
        job.state.record.activePages = job.activePages;
        await job.state.saveRecord();
      }
    } catch {
      // A store hiccup: the next tick tries again; pages report their own failures.
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void tick(), sharedPollMs);
  timer.unref();
  void tick();
  return () => clearInterval(timer);
}

/**
 * Scrapes one page of a job as its owner would here, retries included: what a worker process
 * runs for a page unit. `context` carries the job's services (store, config, the team's LLM).
 * @throws the scrape's error once the retries are spent
 */
export function scrapeJobPage(
  page: { url: string; options: ResolvedScrapeOptions },
  context: EngineContext,
  signal: AbortSignal,
): Promise<ScrapeOutcome> {
  const config = context.config ?? resolveEngineConfig();
  return scrapeWithRetries(
    page.url,
    page.options,
    { ...context, config, signal },
    {
      retries: config.crawlRetries,
      signal,
    },
  );
}
