/**
 * The shape of a job over many pages — a crawl or a batch scrape — as callers see it.
 */
import type { EventEmitter } from 'node:events';
import type { Document } from '../document.ts';
import type { ErrorCode } from '../errors.ts';

/** Where a job stands. `scraping` until it ends; the other three are final. */
export type JobStatus = 'scraping' | 'completed' | 'cancelled' | 'failed';

/** What kind of job it is. */
export type JobKind = 'crawl' | 'batch';

/** Counters of a job, as progress events and `job.progress` report them. */
export interface JobProgress {
  /** URLs taken into the job (the spec's `total`): queued, in flight or finished. Never above `limit`. */
  total: number;
  /** URLs finished, successfully or not (the spec's `completed`). */
  completed: number;
  /** Pages that became documents. */
  scraped: number;
  /** Pages that failed; each has an entry in `errors()`. */
  failed: number;
  /** URLs waiting to be scraped. */
  queued: number;
  /** Distinct in-scope URLs seen so far, including those over `limit`. */
  discovered: number;
  /** URLs robots.txt kept the crawl from. */
  robotsBlocked: number;
}

/** One page that did not become a document. */
export interface JobError {
  /** A stable id of this error entry. */
  id: string;
  /** The URL that failed, as it was queued. */
  url: string;
  /** Stable machine code (`SCRAPE_TIMEOUT`, `SCRAPE_HTTP_ERROR`, `CRAWL_URL_DENIED` …). */
  code: ErrorCode;
  /** What went wrong, in words. */
  error: string;
  /** When it failed, ISO 8601. */
  timestamp: string;
}

/** The errors of a job, as `GET /v2/crawl/{id}/errors` answers them. */
export interface JobErrors {
  errors: JobError[];
  /** URLs robots.txt disallowed, each once. */
  robotsBlocked: string[];
}

/** A page of a job's documents, in completion order. */
export interface JobResultsPage {
  data: Document[];
  /** Pass as `skip` to read on; undefined when nothing more is stored yet. */
  nextSkip: number | undefined;
}

/** What a finished job resolves `done` with. */
export interface JobSummary {
  id: string;
  status: JobStatus;
  progress: JobProgress;
  /** Why the job failed as a whole (status `failed`). */
  error?: string;
  /** A hint for the caller (robots.txt blocked pages; very few results). */
  warning?: string;
}

/** Events a job emits while it runs. */
export interface JobEvents {
  /** Counters changed. */
  progress: [JobProgress];
  /** A page became a document (already stored). */
  document: [Document];
  /** A page failed (already stored). */
  pageError: [JobError];
  /** robots.txt disallowed a URL. */
  robotsBlocked: [string];
  /** The job reached a final status. */
  status: [JobStatus];
}

/**
 * A running or finished crawl or batch scrape. Iterate it for documents in completion order (each
 * iteration starts at the first document; with zero data retention documents are deleted as they
 * are delivered). Everything is kept in the Store as it happens, so a job survives a restart.
 */
export interface Job extends AsyncIterable<Document>, EventEmitter<JobEvents> {
  readonly id: string;
  readonly kind: JobKind;
  /** The start URL (crawl) or the first URL (batch). */
  readonly url: string;
  readonly status: JobStatus;
  readonly progress: JobProgress;
  /** Resolves when the job reaches a final status; never rejects. */
  readonly done: Promise<JobSummary>;
  /** Stops the job: nothing new starts, pages in flight are abandoned. Idempotent. */
  cancel(): Promise<void>;
  /** The failed pages and the URLs robots.txt blocked, read from the store. */
  errors(): Promise<JobErrors>;
  /** Stored documents in completion order, from `skip`, at most `limit`. */
  results(options?: { skip?: number; limit?: number }): Promise<JobResultsPage>;
}

/** A crawl job. */
export type CrawlJob = Job;
/** A batch-scrape job; `invalidURLs` lists the inputs skipped as invalid. */
export interface BatchScrapeJob extends Job {
  readonly invalidURLs: string[];
}
