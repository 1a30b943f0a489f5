/**
 * What makes a job a batch scrape: a fixed list of URLs, each scraped as `scrape()` would, no
 * links followed, no deduplication (a URL listed twice is scraped twice, as asked).
 */
import type { ScrapeOutcome } from '../scrape/engine.ts';
import type { ResolvedScrapeOptions } from '../scrape/options.ts';
import type { QueueItem } from './frontier.ts';
import type { JobRunner } from './job.ts';
import type { JobPlan, PageVerdict } from './plan.ts';

/** The batch side of a job. */
export class BatchPlan implements JobPlan {
  readonly scrapeOptions: ResolvedScrapeOptions;
  readonly firstAlone = false;
  delaySeconds: number | undefined = undefined;
  readonly #urls: readonly string[];

  constructor(urls: readonly string[], scrapeOptions: ResolvedScrapeOptions) {
    this.#urls = urls;
    this.scrapeOptions = scrapeOptions;
  }

  /** Queues every URL under a fixed number, so a restart mid-way rewrites the same entries. */
  async seed(job: JobRunner): Promise<void> {
    const { state } = job;
    if (state.record.nextSeq === 0) await state.reserve(this.#urls.length);
    const queued: QueueItem[] = [];
    for (const [seq, url] of this.#urls.entries()) {
      if ((await state.outcomeOf(seq)) === undefined) queued.push({ seq, url, depth: 0, key: '' });
    }
    await state.enqueue(queued);
    job.countTaken(this.#urls.length - job.taken);
    state.record.seeded = true;
    await state.saveRecord();
    job.wake();
  }

  // A batch keeps what scrape() would return, error statuses included (metadata.error says so).
  review(_job: JobRunner, _item: unknown, _outcome: ScrapeOutcome): Promise<PageVerdict> {
    return Promise.resolve({ keep: true });
  }
}
