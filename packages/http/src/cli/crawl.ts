/**
 * `trawl crawl <url>`: a whole site as JSON lines on stdout or as markdown files in a folder,
 * with progress on stderr. Every crawl lives in the SQLite store of the data folder, so an
 * interrupted crawl continues with `--resume <id>`.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  crawl,
  resumeJob,
  SqliteStore,
  ValidationError,
  type CrawlOptions,
  type Document,
  type Job,
  type JobProgress,
} from '@trawl/core';
import { loadConfig } from '../config.ts';
import type { CliIo, Command } from './index.ts';
import {
  pageFlagOptions,
  pageFlagsHelp,
  pageOptionsFrom,
  toInteger,
  type PageFlagValues,
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
  --formats <list>       comma-separated: markdown (default), html, rawHtml, links, images
${pageFlagsHelp}

Output:
  --out <dir>            write <dir>/<host>/<path>.md per page, <dir>/index.jsonl (url, file,
                         title, status) and <dir>/errors.jsonl, instead of stdout
  --resume <id>          continue an interrupted crawl (prints the whole crawl again)
  --quiet                no progress on stderr
  -h, --help             show this help

Exit status: 0 when the crawl completed (per-page failures are listed on stderr), 1 when it
failed or no page could be scraped, 2 for bad options, 130 when interrupted.
The crawl store and the page cache live in $TRAWL_DATA_DIR (default ./.trawl).
`;

const pageFormats = ['markdown', 'html', 'rawHtml', 'links', 'images'] as const;

/** The crawl command. */
export const crawlCommand: Command = {
  name: 'crawl',
  summary: 'Crawl a whole site to JSON lines or markdown files; resumable',
  usage,
  async run(args, io) {
    const { url, options, values } = parseCrawlArgs(args);
    const config = loadConfig({ env: io.env });
    const store = new SqliteStore({ path: join(config.dataDir, 'trawl.db') });
    const context = { store, config: config.engine };
    let job: Job;
    if (values.resume !== undefined) {
      const resumed = await resumeJob(values.resume, context);
      if (!resumed) {
        await store.close();
        throw new ValidationError(`no crawl '${values.resume}' in ${config.dataDir}`);
      }
      job = resumed;
    } else {
      job = crawl(url ?? '', options ?? {}, context);
    }

    const progress = values.quiet ? undefined : new ProgressLine(io, job);
    progress?.started(values.resume !== undefined);
    const sink = values.out ? new FolderSink(values.out) : new StdoutSink(io);
    const interrupted = await writeAll(job, sink, io.signal);
    if (interrupted) {
      progress?.stop();
      io.stderr(
        `\nInterrupted. The crawl is kept in ${config.dataDir}; continue it with:\n  trawl crawl --resume ${job.id}\n`,
      );
      return 130;
    }
    const summary = await job.done;
    progress?.stop();
    const { errors, robotsBlocked } = await job.errors();
    sink.errors(errors);
    await store.close();

    const counts = summary.progress;
    io.stderr(
      `crawl ${summary.id} ${summary.status}: ${counts.scraped} pages, ${counts.failed} failed` +
        `${counts.robotsBlocked ? `, ${counts.robotsBlocked} blocked by robots.txt` : ''}\n`,
    );
    if (summary.warning) io.stderr(`warning: ${summary.warning}\n`);
    if (summary.error) io.stderr(`error: ${summary.error}\n`);
    const shown = 20;
    for (const error of errors.slice(0, shown)) {
      io.stderr(`  ${error.url}: ${error.code}: ${error.error}\n`);
    }
    if (errors.length > shown) {
      io.stderr(
        `  … and ${errors.length - shown} more${values.out ? ` (all in ${join(values.out, 'errors.jsonl')})` : ''}\n`,
      );
    }
    if (robotsBlocked.length > 0 && !values.quiet) {
      io.stderr(`robots.txt blocked ${robotsBlocked.length} URLs, e.g. ${robotsBlocked[0]}\n`);
    }
    if (summary.status === 'failed') return 1;
    return counts.scraped === 0 && counts.failed > 0 ? 1 : 0;
  },
};

/**
 * Reads the command's arguments: the URL and the crawl options, or a job id to resume. Flag
 * values are checked here only as far as the flag syntax goes; `crawl()` validates the options.
 */
export function parseCrawlArgs(args: string[]): {
  url: string | undefined;
  options: CrawlOptions | undefined;
  values: CrawlFlagValues & { out?: string; resume?: string; quiet?: boolean };
} {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    allowNegative: true,
    options: {
      limit: { type: 'string' },
      'max-depth': { type: 'string' },
      include: { type: 'string', multiple: true },
      exclude: { type: 'string', multiple: true },
      'full-url': { type: 'boolean' },
      'entire-domain': { type: 'boolean' },
      subdomains: { type: 'boolean' },
      external: { type: 'boolean' },
      'ignore-query': { type: 'boolean' },
      'dedupe-similar': { type: 'boolean', default: true },
      sitemap: { type: 'string' },
      'ignore-robots': { type: 'boolean' },
      'robots-agent': { type: 'string' },
      delay: { type: 'string' },
      concurrency: { type: 'string' },
      'zero-data-retention': { type: 'boolean' },
      prompt: { type: 'string' },
      formats: { type: 'string', default: 'markdown' },
      ...pageFlagOptions,
      out: { type: 'string' },
      resume: { type: 'string' },
      quiet: { type: 'boolean' },
    },
  });
  if (values.resume !== undefined ? positionals.length > 0 : positionals.length !== 1) {
    throw new ValidationError(
      values.resume !== undefined
        ? `--resume takes the job id instead of a URL; see 'trawl crawl --help'`
        : `give exactly one URL (got ${positionals.length}); see 'trawl crawl --help'`,
    );
  }

  if (values.resume !== undefined) return { url: undefined, options: undefined, values };
  return { url: positionals[0], options: crawlOptionsFrom(values), values };
}

/** The values parseArgs gives for the crawl flags. */
interface CrawlFlagValues extends PageFlagValues {
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
  formats?: string;
}

/** Crawl options from the flags; the core schema validates them. */
function crawlOptionsFrom(values: CrawlFlagValues): CrawlOptions {
  const formats = (values.formats ?? 'markdown')
    .split(',')
    .map((format) => format.trim())
    .filter(Boolean);
  for (const format of formats) {
    if (!(pageFormats as readonly string[]).includes(format)) {
      throw new ValidationError(
        `--formats takes a list of ${pageFormats.join(', ')} (got '${format}')`,
      );
    }
  }
  const scrapeOptions: NonNullable<CrawlOptions['scrapeOptions']> = {
    ...pageOptionsFrom(values),
    formats: formats as (typeof pageFormats)[number][],
  };
  const options: CrawlOptions = { scrapeOptions };
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
      throw new ValidationError(`--delay takes a number of seconds (got '${values.delay}')`);
    options.delay = delay;
  }
  if (values.concurrency !== undefined)
    options.maxConcurrency = toInteger(values.concurrency, '--concurrency', 'pages');
  if (values['zero-data-retention']) options.zeroDataRetention = true;
  if (values.prompt !== undefined) options.prompt = values.prompt;
  return options;
}

/** Where documents go. */
interface Sink {
  document(document: Document): void;
  errors(errors: readonly { url: string; code: string; error: string }[]): void;
}

class StdoutSink implements Sink {
  readonly #io: CliIo;
  constructor(io: CliIo) {
    this.#io = io;
  }
  document(document: Document): void {
    this.#io.stdout(`${JSON.stringify(document)}\n`);
  }
  errors(): void {
    // Errors are listed on stderr; stdout stays one document per line.
  }
}

/** Markdown files named after the URL, and an index to find them by URL. */
class FolderSink implements Sink {
  readonly #dir: string;
  readonly #index: string;
  constructor(dir: string) {
    this.#dir = dir;
    mkdirSync(dir, { recursive: true });
    this.#index = join(dir, 'index.jsonl');
    // A resumed crawl writes every page again; start the index afresh so each URL is listed once.
    writeFileSync(this.#index, '');
  }
  document(document: Document): void {
    const url = document.metadata.url ?? document.metadata.sourceURL ?? '';
    const file = pageFileName(url);
    const path = join(this.#dir, file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${document.markdown ?? ''}\n`);
    const entry = {
      url,
      file,
      title: document.metadata.title,
      statusCode: document.metadata.statusCode,
    };
    appendFileSync(this.#index, `${JSON.stringify(entry)}\n`);
  }
  errors(errors: readonly { url: string; code: string; error: string }[]): void {
    writeFileSync(
      join(this.#dir, 'errors.jsonl'),
      errors.map((error) => `${JSON.stringify(error)}\n`).join(''),
    );
  }
}

/**
 * A relative file path for a page: host, then the path with `.md` in place of an extension,
 * `index.md` for folders, and a short hash of the query when there is one. Segments are
 * reduced to safe characters so no URL can write outside the folder.
 */
export function pageFileName(url: string): string {
  const parsed = new URL(url);
  const safe = (segment: string): string =>
    decodeSafely(segment)
      .replace(/[^\p{L}\p{N}._-]+/gu, '_')
      .replace(/^\.+/, '_')
      .slice(0, 120) || '_';
  const segments = parsed.pathname.split('/').slice(1);
  let last = segments.pop() ?? '';
  if (last === '') last = 'index';
  last = last.replace(/\.(html?|php|aspx?|jsp|md)$/i, '');
  if (parsed.search) {
    last += `_${createHash('sha256').update(parsed.search).digest('hex').slice(0, 8)}`;
  }
  const host = safe(parsed.host.replace(':', '_'));
  return [host, ...segments.filter(Boolean).map(safe), `${safe(last)}.md`].join('/');
}

function decodeSafely(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Writes documents as the job delivers them. Resolves true when `signal` aborted first (the
 * job keeps its frontier in the store), false when every document was written.
 */
async function writeAll(job: Job, sink: Sink, signal: AbortSignal | undefined): Promise<boolean> {
  const iterator = job[Symbol.asyncIterator]();
  const aborted = new Promise<'aborted'>((resolve) => {
    if (signal?.aborted) resolve('aborted');
    signal?.addEventListener('abort', () => resolve('aborted'), { once: true });
  });
  for (;;) {
    const next = await Promise.race([iterator.next(), aborted]);
    if (next === 'aborted') return true;
    if (next.done) return false;
    sink.document(next.value);
  }
}

/**
 * Progress on stderr: one line redrawn in place on a terminal, a plain line every few seconds
 * otherwise (logs, CI).
 */
class ProgressLine {
  readonly #io: CliIo;
  readonly #job: Job;
  readonly #started = performance.now();
  readonly #interval: number;
  #last = 0;
  #timer: NodeJS.Timeout | undefined;
  constructor(io: CliIo, job: Job) {
    this.#io = io;
    this.#job = job;
    this.#interval = io.stderrIsTTY ? 200 : 2000;
  }
  started(resumed: boolean): void {
    this.#io.stderr(
      `${resumed ? 'resuming' : 'crawling'} ${this.#job.url} (job ${this.#job.id})\n`,
    );
    this.#job.on('progress', this.#onProgress);
    // A quiet stretch (a long delay, a slow page) still shows the clock moving.
    this.#timer = setInterval(() => this.#draw(this.#job.progress), this.#interval);
    this.#timer.unref();
  }
  stop(): void {
    this.#job.off('progress', this.#onProgress);
    clearInterval(this.#timer);
    if (this.#io.stderrIsTTY) this.#io.stderr('\n');
  }
  readonly #onProgress = (progress: JobProgress): void => {
    if (performance.now() - this.#last >= this.#interval) this.#draw(progress);
  };
  #draw(progress: JobProgress): void {
    this.#last = performance.now();
    const seconds = (this.#last - this.#started) / 1000;
    const rate = seconds > 0 ? progress.completed / seconds : 0;
    const line =
      `${progress.scraped} scraped · ${progress.failed} failed · ${progress.queued} queued · ` +
      `${progress.discovered} discovered · ${rate.toFixed(1)} pages/s · ${seconds.toFixed(0)} s`;
    this.#io.stderr(this.#io.stderrIsTTY ? `\r\x1b[K${line}` : `${line}\n`);
  }
}
