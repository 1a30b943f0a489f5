/**
 * Crawl and batch-scrape options: the single zod schemas of the spec's `POST /v2/crawl` and
 * `POST /v2/batch/scrape` crawler fields, with their defaults. The HTTP layer adds `url`,
 * `webhook`, `origin` and `integration` around these; defaults and checks live only here.
 */
import { z } from 'zod';
import { ValidationError } from '../errors.ts';
import { scrapeOptionsSchema } from '../scrape/options.ts';
import { pathPatternProblem } from './path-pattern.ts';

// Limits of the hosted service on path patterns (spec (b), excludePaths / includePaths).
const maxPatterns = 1000;
const maxPatternLength = 2000;
const maxPatternCharacters = 100_000;

const pathPatternsSchema = z
  .array(
    z.string().max(maxPatternLength, `a pattern may have at most ${maxPatternLength} characters`),
  )
  .max(maxPatterns, `at most ${maxPatterns} patterns`)
  .default([])
  .superRefine((patterns, context) => {
    // Checked here, once, on the engine that will run them: the crawl's filter compiles the
    // same strings with RE2 (a backtracking pattern froze the server).
    patterns.forEach((pattern, index) => {
      const problem = pathPatternProblem(pattern);
      if (problem) context.addIssue({ code: 'custom', path: [index], message: problem });
    });
  });

/**
 * ScrapeOptions applied to every page of a crawl, with scrape's checks across fields; a profile
 * belongs to one page, not many.
 */
export const pageScrapeOptionsSchema = scrapeOptionsSchema
  .safeExtend({ profile: z.never().optional() })
  .describe('Options applied to each scraped page (without profile).');

/** The fields every job over many pages shares: crawl and batch scrape. */
const jobShape = {
  maxConcurrency: z
    .number()
    .int()
    .positive()
    .max(1000)
    .optional()
    .describe('Upper bound of concurrent scrapes of this job. @default engine crawlConcurrency'),
  zeroDataRetention: z
    .boolean()
    .default(false)
    .describe('Keep nothing after delivery: documents are deleted once read, nothing is cached.'),
} as const;

/** The crawler options of `POST /v2/crawl`, without `url`, `webhook`, `origin`, `integration`. */
export const crawlOptionsShape = {
  ...jobShape,
  allowExternalLinks: z
    .boolean()
    .default(false)
    .describe('Follow links to external sites, one hop out.'),
  allowSubdomains: z
    .boolean()
    .default(false)
    .describe('Follow links to subdomains of the main domain.'),
  crawlEntireDomain: z
    .boolean()
    .default(false)
    .describe('false: only children of the start path. true: siblings and parents too.'),
  delay: z
    .number()
    .positive('delay is measured in seconds and must be above 0')
    .max(60, 'delay is measured in seconds and cannot exceed 60 seconds')
    .optional()
    .describe('Seconds between scrapes; forces concurrency 1.'),
  excludePaths: pathPatternsSchema.describe(
    'Regular expressions (RE2 syntax: no lookaround or backreferences) on URL pathnames; matching URLs are excluded.',
  ),
  includePaths: pathPatternsSchema.describe(
    'Regular expressions (RE2 syntax: no lookaround or backreferences) on URL pathnames; only matching paths are included (the start URL too).',
  ),
  regexOnFullURL: z
    .boolean()
    .default(false)
    .describe('Match include/exclude patterns against the whole URL, query string included.'),
  ignoreQueryParameters: z
    .boolean()
    .default(false)
    .describe('Do not re-scrape the same path with different query parameters.'),
  deduplicateSimilarURLs: z
    .boolean()
    .default(true)
    .describe('Treat www/non-www, http/https, trailing slash and index.html variants as one URL.'),
  ignoreRobotsTxt: z.boolean().default(false).describe('Ignore robots.txt rules.'),
  robotsUserAgent: z
    .string()
    .min(1)
    .max(512)
    .optional()
    .describe('User agent used to fetch and evaluate robots.txt.'),
  limit: z.number().int().positive().default(10_000).describe('Maximum number of pages to crawl.'),
  maxDiscoveryDepth: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Maximum depth by discovery order; the start URL and sitemap pages are depth 0.'),
  sitemap: z
    .enum(['skip', 'include', 'only'])
    .default('include')
    .describe(
      'skip: links only. include: sitemap and links. only: sitemap URLs and the start URL.',
    ),
  scrapeOptions: pageScrapeOptionsSchema.prefault({}),
  prompt: z
    .string()
    .min(1)
    .max(10_000)
    .optional()
    .describe('Natural-language crawl instructions; needs an LLM.'),
} as const;

/** The crawler fields of a crawl, without its page options (a monitor's crawl target has them). */
const { scrapeOptions: _pageOptions, ...crawlerShape } = crawlOptionsShape;

/** The crawler options alone, with the checks across the path patterns. */
export const crawlerOptionsSchema = z.strictObject(crawlerShape).superRefine((options, context) => {
  const total = [...options.includePaths, ...options.excludePaths];
  if (total.length > maxPatterns) {
    context.addIssue({
      code: 'custom',
      path: ['includePaths'],
      message: `includePaths and excludePaths together may hold at most ${maxPatterns} patterns`,
    });
  }
  if (total.reduce((sum, pattern) => sum + pattern.length, 0) > maxPatternCharacters) {
    context.addIssue({
      code: 'custom',
      path: ['includePaths'],
      message: `includePaths and excludePaths together may hold at most ${maxPatternCharacters} characters`,
    });
  }
});

/** Crawl options as a strict object: unknown keys are errors, not silently dropped. */
export const crawlOptionsSchema = crawlerOptionsSchema.safeExtend({
  scrapeOptions: crawlOptionsShape.scrapeOptions,
});

/** What callers pass to `crawl()`. */
export type CrawlOptions = z.input<typeof crawlOptionsSchema>;
/** Crawl options with every default applied. */
export type ResolvedCrawlOptions = z.output<typeof crawlOptionsSchema>;

/**
 * Refuses a crawl `limit` above the engine's `maxCrawlLimit`: the schema cannot know that
 * setting, so callers check the parsed limit against it. @throws BAD_REQUEST naming the maximum
 */
export function checkCrawlLimit(limit: number, maxCrawlLimit: number): void {
  if (limit <= maxCrawlLimit) return;
  throw new ValidationError(
    `Invalid crawl options at 'limit': at most ${maxCrawlLimit} pages (got ${limit}); the server's maximum is maxCrawlLimit`,
    { details: [{ path: ['limit'], message: `at most ${maxCrawlLimit}` }] },
  );
}

/**
 * The options of `batchScrape()`: the page options flattened, as `POST /v2/batch/scrape` has
 * them, with scrape's checks across the page fields.
 */
export const batchScrapeOptionsSchema = scrapeOptionsSchema.safeExtend({
  profile: z.never().optional(),
  ...jobShape,
  ignoreInvalidURLs: z
    .boolean()
    .default(true)
    .describe('Skip invalid URLs and report them in invalidURLs instead of failing the job.'),
});

/** What callers pass to `batchScrape()`. */
export type BatchScrapeOptions = z.input<typeof batchScrapeOptionsSchema>;
/** Batch-scrape options with every default applied. */
export type ResolvedBatchScrapeOptions = z.output<typeof batchScrapeOptionsSchema>;
