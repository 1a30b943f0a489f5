/**
 * `crawl()`, `batchScrape()` and `resumeJob()`: validate, write the job record, start the runner.
 */
import { resolveEngineConfig, type EngineContext } from '../config.ts';
import type { Store } from '../interfaces/store.ts';
import { ValidationError } from '../errors.ts';
import { MemoryStore } from '../defaults/memory-store.ts';
import { parseTargetUrl } from '../internal/url.ts';
import { resolveOptions } from '../internal/resolved.ts';
import { httpFetcherOf } from '../scrape/engine.ts';
import type { ResolvedScrapeOptions } from '../scrape/options.ts';
import { BatchPlan } from './batch-plan.ts';
import { CrawlPlan } from './crawl-plan.ts';
import { JobState, type JobRecord } from './frontier.ts';
import { JobRunner } from './job.ts';
import type { PageDispatch } from './shared-owner.ts';
import {
  batchScrapeOptionsSchema,
  checkCrawlLimit,
  crawlOptionsSchema,
  type BatchScrapeOptions,
  type CrawlOptions,
  type ResolvedBatchScrapeOptions,
  type ResolvedCrawlOptions,
} from './options.ts';
import type { BatchScrapeJob, CrawlJob, Job, JobKind } from './types.ts';

/** Services of a job; `store` keeps its frontier and results (in memory when omitted). */
export interface JobContext extends EngineContext {
  /** The job's id; a new UUID when omitted. */
  jobId?: string;
  /** Scrapes each page elsewhere (worker processes through the Queue); here when omitted. */
  dispatch?: PageDispatch;
}

/**
 * Crawls a site from `url` into Documents: the start page, the pages it links to within the
 * crawl's scope, and the site's sitemaps, each scraped with `options.scrapeOptions`. Returns at
 * once; iterate the job for documents or await `job.done`. With a persistent store the crawl
 * survives a restart: call `resumeJob(id, { store })`.
 *
 * Options resolved by `crawlOptionsSchema` already are not parsed again.
 *
 * @throws BAD_REQUEST or INVALID_URL for bad options (invalid regexes, unknown keys).
 * @example
 * const job = crawl('https://example.com/docs', { limit: 100 });
 * for await (const doc of job) console.log(doc.metadata.url, doc.markdown?.length);
 */
export function crawl(
  url: string,
  options: CrawlOptions | ResolvedCrawlOptions = {},
  context: JobContext = {},
): CrawlJob {
  return startJob(crawlRecord(url, options, context), context);
}

/** A new crawl's record, its options validated. @throws as `crawl()` */
function crawlRecord(
  url: string,
  options: CrawlOptions | ResolvedCrawlOptions,
  context: JobContext,
): JobRecord {
  const resolved = resolveOptions(crawlOptionsSchema, options, 'crawl options');
  checkCrawlLimit(resolved.limit, (context.config ?? resolveEngineConfig()).maxCrawlLimit);
  const target = parseTargetUrl(url);
  return newRecord('crawl', target.href, resolved, context);
}

/**
 * Scrapes a list of URLs as one job, `maxConcurrency` at a time, each as `scrape()` would.
 * Invalid URLs are skipped and listed in `job.invalidURLs` (or, with `ignoreInvalidURLs:
 * false`, refused).
 *
 * @throws BAD_REQUEST for bad options or an empty list; INVALID_URL when `ignoreInvalidURLs` is false.
 */
export function batchScrape(
  urls: readonly string[],
  options: BatchScrapeOptions | ResolvedBatchScrapeOptions = {},
  context: JobContext = {},
): BatchScrapeJob {
  return startJob(batchRecord(urls, options, context), context);
}

/** A new batch scrape's record, its options validated. @throws as `batchScrape()` */
function batchRecord(
  urls: readonly string[],
  options: BatchScrapeOptions | ResolvedBatchScrapeOptions,
  context: JobContext,
): JobRecord {
  const resolved = resolveOptions(batchScrapeOptionsSchema, options, 'batch scrape options');
  const valid: string[] = [];
  const invalidURLs: string[] = [];
  for (const url of urls) {
    try {
      valid.push(parseTargetUrl(url).href);
    } catch (error) {
      if (!resolved.ignoreInvalidURLs) throw error;
      invalidURLs.push(url);
    }
  }
  if (valid.length === 0) {
    throw new ValidationError('batchScrape needs at least one valid URL', {
      details: [{ path: ['urls'], message: 'no valid URL' }],
    });
  }
  const record = newRecord('batch', valid[0] ?? '', { ...resolved, urls: valid }, context);
  if (invalidURLs.length > 0) record.invalidURLs = invalidURLs;
  return record;
}

/**
 * Writes a new crawl or batch scrape to the store without running it: its owner, wherever it
 * runs, picks it up with `resumeJob`. Resolves with the record as stored.
 * @throws as `crawl()` and `batchScrape()` for bad options
 */
export async function submitJob(
  job:
    | { kind: 'crawl'; url: string; options: CrawlOptions | ResolvedCrawlOptions }
    | {
        kind: 'batch';
        urls: readonly string[];
        options: BatchScrapeOptions | ResolvedBatchScrapeOptions;
      },
  context: JobContext & { store: Store },
): Promise<JobRecord> {
  const record =
    job.kind === 'crawl'
      ? crawlRecord(job.url, job.options, context)
      : batchRecord(job.urls, job.options, context);
  await new JobState(context.store, record).saveRecord();
  return record;
}

/**
 * Picks up a job from the store after a restart (or reads back a finished one). Undefined when
 * the store has no job with this id.
 */
export async function resumeJob(id: string, context: JobContext): Promise<Job | undefined> {
  if (!context.store) throw new ValidationError('resumeJob needs the store the job was kept in');
  const record = await JobState.load(context.store, id);
  return record ? startJob(record, context) : undefined;
}

function newRecord(kind: JobKind, url: string, options: object, context: JobContext): JobRecord {
  return {
    id: context.jobId ?? crypto.randomUUID(),
    kind,
    url,
    options: options as Record<string, unknown>,
    status: 'scraping',
    createdAt: new Date().toISOString(),
    seeded: false,
    nextSeq: 0,
  };
}

function startJob(record: JobRecord, context: JobContext): JobRunner & { invalidURLs: string[] } {
  const store = context.store ?? new MemoryStore();
  const options = record.options;
  const plan =
    record.kind === 'crawl'
      ? new CrawlPlan(new URL(record.url), options as ResolvedCrawlOptions, httpFetcherOf(context))
      : new BatchPlan(options['urls'] as string[], pageOptionsOf(options));
  const { dispatch, ...engine } = context;
  const job = new JobRunner(new JobState(store, record), plan, { ...engine, store }, dispatch);
  return Object.assign(job.start(), { invalidURLs: record.invalidURLs ?? [] });
}

function pageOptionsOf(options: Record<string, unknown>): ResolvedScrapeOptions {
  const { maxConcurrency: _c, ignoreInvalidURLs: _i, urls: _u, ...page } = options;
  const resolved = page as ResolvedScrapeOptions;
  return { ...resolved, zeroDataRetention: Boolean(options['zeroDataRetention']) };
}
