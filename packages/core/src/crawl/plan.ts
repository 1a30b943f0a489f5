/**
 * What a job's plan is: the part of a job that differs between crawl and batch scrape (seeding,
 * what a page's links do), which the shared job runner calls.
 */
import type { ErrorCode } from '../errors.ts';
import type { ScrapeOutcome } from '../scrape/engine.ts';
import type { ResolvedScrapeOptions } from '../scrape/options.ts';
import type { QueueItem } from './frontier.ts';
import type { JobRunner } from './job.ts';

/** What a plan decides about a scraped page. */
export interface PageVerdict {
  /** Keep the document (false: the page was a duplicate or is denied; see `error`). */
  keep: boolean;
  /** A reason to record the page as failed instead. */
  error?: { code: ErrorCode; message: string };
  /** Why the page was dropped without an error (duplicates). */
  dropReason?: string;
}

/** The part of a job that differs between crawl and batch scrape. */
export interface JobPlan {
  /** Scrape options applied to every page. */
  readonly scrapeOptions: ResolvedScrapeOptions;
  /** The first queue entry (a crawl's start page) runs alone, before any other. */
  readonly firstAlone: boolean;
  /** Set by the plan once it knows (robots.txt Crawl-delay); seconds between scrapes. */
  delaySeconds: number | undefined;
  /**
   * Queues what the job starts from. Called again after a restart until the record says
   * `seeded`, so it must be idempotent.
   */
  seed(job: JobRunner): Promise<void>;
  /** Work that runs once the first entry is done (a crawl reads its sitemaps); then seeded. */
  afterFirst?(job: JobRunner): Promise<void>;
  /** Whether a queue entry may be fetched now (robots.txt of other hosts). */
  admit?(job: JobRunner, item: QueueItem): Promise<boolean>;
  /** Decides about a scraped page and queues its links. */
  review(job: JobRunner, item: QueueItem, outcome: ScrapeOutcome): Promise<PageVerdict>;
  /** Rebuilds in-memory state from the store after a restart. */
  restore?(job: JobRunner): Promise<void>;
  /** A hint for the caller once the job is over. */
  warning?(job: JobRunner): string | undefined;
}
