/**
 * `trawl crawl <url>`: a whole site as JSON lines on stdout or as markdown files in a folder,
 * with progress on stderr. Every crawl lives in the SQLite store of the data folder, so an
 * interrupted crawl continues with `--resume <id>`.
 */
import { crawl, type CrawlOptions } from '@trawl/core';
import { parseFlags, UsageError } from './args.ts';
import type { Command } from './index.ts';
import {
  jobFlagOptions,
  jobOutputHelp,
  jobPageOptionsFrom,
  runJob,
  type JobFlagValues,
} from './job-command.ts';
import {
  noteMissingScheme,
  pageCacheHelp,
  pageFlagsHelp,
  siteFlagOptions,
  toInteger,
} from './page-flags.ts';

const usage = `Usage: trawl crawl <url> [options]
       trawl crawl --resume <id> [output options]

Crawls a site from <url> and writes every page. By default each page is one JSON line on
stdout (the whole document); with --out, markdown files in a folder. Progress goes to stderr.
Ctrl-C stops the crawl and keeps it: continue it with --resume <id>.

Crawl options:
  --limit <n>            most pages to crawl (default 10000)
  --max-depth <n>        link depth from the start page (maxDiscoveryDepth; start and
                         sitemap pages are depth 0)
  --include <regex>      crawl only paths matching (repeatable; includePaths)
  --exclude <regex>      skip paths matching (repeatable; excludePaths)
  --full-url             match --include/--exclude on the whole URL (regexOnFullURL)
  --entire-domain        follow links outside the start path too (crawlEntireDomain)
  --subdomains           follow links to subdomains (allowSubdomains)
  --external             follow links to other sites (allowExternalLinks)
  --ignore-query         treat URLs differing only in query string as one (ignoreQueryParameters)
  --no-dedupe-similar    keep www./http variants apart (deduplicateSimilarURLs: false)
  --sitemap <mode>       include (default), skip, or only
  --ignore-robots        do not obey robots.txt (ignoreRobotsTxt)
  --robots-agent <ua>    user agent whose robots.txt rules apply (robotsUserAgent)
  --delay <seconds>      wait between pages; forces one page at a time
  --concurrency <n>      pages at once (maxConcurrency)
  --zero-data-retention  keep nothing in the store once a page is written out
  --prompt <text>        natural-language crawl instructions (needs an LLM; reported as such)

Page options (applied to every page):
  --format <list>        comma-separated or repeated: markdown (default), html, rawHtml,
                         links, images (--formats is the same flag)
${pageFlagsHelp}

${jobOutputHelp('crawl')}

Exit status: 0 when the crawl completed (per-page failures are listed on stderr), 1 when it
failed or no page could be scraped, 2 for bad options, 130 when interrupted.
The crawl store and the page cache live in $TRAWL_DATA_DIR (default ./.trawl).
${pageCacheHelp}

Examples:
  trawl crawl https://example.com/docs/ --limit 200 --out docs/
  trawl crawl --resume 0b6c…
`;

/** The crawl command. */
export const crawlCommand: Command = {
  usage,
  async run(args, io) {
    const { url, options, values } = parseCrawlArgs(args);
    if (url !== undefined) noteMissingScheme(url, io, values.quiet);
    return runJob('crawl', values, io, options?.scrapeOptions, (context) =>
      crawl(url ?? '', options ?? {}, context),
    );
  },
};

/**
 * Reads the command's arguments: the URL and the crawl options, or a job id to resume. Flag
 * values are checked here only as far as the flag syntax goes; `crawl()` validates the options.
 */
export function parseCrawlArgs(args: string[]): {
  url: string | undefined;
  options: CrawlOptions | undefined;
  values: CrawlFlagValues;
} {
  const { values, positionals } = parseFlags(args, {
    ...siteFlagOptions,
    'max-depth': { type: 'string' },
    include: { type: 'string', multiple: true },
    exclude: { type: 'string', multiple: true },
    'full-url': { type: 'boolean' },
    'entire-domain': { type: 'boolean' },
    external: { type: 'boolean' },
    'dedupe-similar': { type: 'boolean', default: true },
    'ignore-robots': { type: 'boolean' },
    'robots-agent': { type: 'string' },
    delay: { type: 'string' },
    concurrency: { type: 'string' },
    'zero-data-retention': { type: 'boolean' },
    prompt: { type: 'string' },
    ...jobFlagOptions,
  });
  if (values.resume !== undefined ? positionals.length > 0 : positionals.length !== 1) {
    throw new UsageError(
      values.resume !== undefined
        ? `--resume takes the job id instead of a URL`
        : `give exactly one URL (got ${positionals.length})`,
    );
  }

  if (values.resume !== undefined) return { url: undefined, options: undefined, values };
  return { url: positionals[0], options: crawlOptionsFrom(values), values };
}

/** The values parseArgs gives for the crawl flags. */
interface CrawlFlagValues extends JobFlagValues {
  limit?: string;
  'max-depth'?: string;
  include?: string[];
  exclude?: string[];
  'full-url'?: boolean;
  'entire-domain'?: boolean;
  subdomains?: boolean;
  external?: boolean;
  'ignore-query'?: boolean;
  'dedupe-similar'?: boolean;
  sitemap?: string;
  'ignore-robots'?: boolean;
  'robots-agent'?: string;
  delay?: string;
  concurrency?: string;
  'zero-data-retention'?: boolean;
  prompt?: string;
}

/** Crawl options from the flags; the core schema validates them. */
function crawlOptionsFrom(values: CrawlFlagValues): CrawlOptions {
  const options: CrawlOptions = { scrapeOptions: jobPageOptionsFrom(values) };
  if (values.limit !== undefined) options.limit = toInteger(values.limit, '--limit', 'pages');
  if (values['max-depth'] !== undefined)
    options.maxDiscoveryDepth = toInteger(values['max-depth'], '--max-depth', 'links');
  if (values.include) options.includePaths = values.include;
  if (values.exclude) options.excludePaths = values.exclude;
  if (values['full-url']) options.regexOnFullURL = true;
  if (values['entire-domain']) options.crawlEntireDomain = true;
  if (values.subdomains) options.allowSubdomains = true;
  if (values.external) options.allowExternalLinks = true;
  if (values['ignore-query']) options.ignoreQueryParameters = true;
  if (values['dedupe-similar'] === false) options.deduplicateSimilarURLs = false;
  if (values.sitemap !== undefined)
    options.sitemap = values.sitemap as CrawlOptions['sitemap'] & string;
  if (values['ignore-robots']) options.ignoreRobotsTxt = true;
  if (values['robots-agent'] !== undefined) options.robotsUserAgent = values['robots-agent'];
  if (values.delay !== undefined) {
    const delay = Number(values.delay);
    if (values.delay.trim() === '' || !Number.isFinite(delay))
      throw new UsageError(`--delay takes a number of seconds (got '${values.delay}')`);
    options.delay = delay;
  }
  if (values.concurrency !== undefined)
    options.maxConcurrency = toInteger(values.concurrency, '--concurrency', 'pages');
  if (values['zero-data-retention']) options.zeroDataRetention = true;
  if (values.prompt !== undefined) options.prompt = values.prompt;
  return options;
}
