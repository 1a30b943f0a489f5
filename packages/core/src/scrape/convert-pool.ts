/**
 * Where fetched HTML pages are converted: on worker threads, so that a crawl, a batch scrape or
 * a busy server uses every core (issue 17). The fetch, the frontier and the store stay on the
 * calling thread; what a page costs in CPU (parse, clean, main content, markdown, links) moves
 * to the pool. The page goes over as UTF-8 bytes whose buffer is transferred, not copied.
 *
 * There is one pool per size, shared by scrape, batch scrape, crawl and the server: with the
 * default configuration, one pool for the whole process. `closeWorkerPools()` ends it with the
 * others. A conversion that outlives the page's deadline is stopped (SCRAPE_TIMEOUT), and one
 * that outgrows its heap kills only its worker (CONTENT_TOO_LARGE), which the pool replaces:
 * either way only that page fails.
 *
 * Where no worker can run (a bundle without the worker file), conversion runs on the calling
 * thread, as it does with `convertThreads: 0`.
 */
import { TaskLostError, WorkerPool, WorkerUnavailableError } from '../internal/worker-pool.ts';
import type { Redaction } from '../convert/redact.ts';
import { convertHtml, type Conversion, type ConversionOptions } from './convert.ts';
import type { ConvertTask } from './convert-worker.ts';

/**
 * A page's heap: a 20 MB page (the default body limit) of dense markup builds a tree of a few
 * hundred MB; more than this is refused rather than let grow.
 */
const maxHeapMb = 512;
/**
 * Conversion allocates much and keeps little, but more than 8 MB a page: with semi-spaces of
 * 8 MB (a 24 MB young generation) a page's tree outlived two scavenges mid-conversion and was
 * promoted, and the thread ran a full GC every ~35 pages, after which V8 compiled its per-call
 * closures again (62 full GCs and ~18 % more CPU in a 2,000-page crawl). 48 MB gives 16 MB
 * semi-spaces: 3 full GCs (issue 17). A process-wide --max-semi-space-size takes precedence
 * (the trawl command sets 16).
 */
const maxYoungMb = 48;
/**
 * A conversion thread holds its next page while it converts one: between two pages it would
 * otherwise wait for the crawl's thread, busy with the store (a SQLite commit, the search index),
 * to hand the next one over — a fifth of its time in a profiled crawl (issue 17).
 */
const pagesPerThread = 2;

// The worker module sits beside this one, as .ts in the sources and .js once built.
const workerModule = new URL(
  `./convert-worker.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`,
  import.meta.url,
);

const pools = new Map<number, WorkerPool>();

/** The shared conversion pool of `threads` threads; undefined for 0 (convert inline). */
export function conversionPool(threads: number): WorkerPool | undefined {
  if (threads <= 0) return undefined;
  let pool = pools.get(threads);
  if (!pool) {
    pool = new WorkerPool({
      module: workerModule,
      what: 'Converting the page',
      maxHeapMb,
      maxYoungMb,
      threads,
      tasksPerThread: pagesPerThread,
    });
    pools.set(threads, pool);
  }
  return pool;
}

// One encoder for every page; encode() gives each page a buffer of its own, safe to transfer.
const encoder = new TextEncoder();

/**
 * `convertHtml` on the pool of `threads` threads (inline for 0).
 *
 * @throws SCRAPE_TIMEOUT past `deadline` (epoch ms); CONTENT_TOO_LARGE past the heap limit; and
 *   what `convertHtml` throws
 */
export async function convertHtmlPooled(
  html: string,
  url: string,
  options: ConversionOptions,
  redaction: Redaction | undefined,
  collectLinks: boolean,
  threads: number,
  deadline: number,
): Promise<Conversion> {
  const pool = conversionPool(threads);
  if (!pool) return convertHtml(html, url, options, redaction, collectLinks);
  const convertOnPool = () => {
    const bytes = encoder.encode(html);
    const task: ConvertTask = {
      html: bytes,
      url,
      options: conversionOptionsOf(options),
      redaction,
      collectLinks,
    };
    return pool.run<Conversion>(task, deadline, [bytes.buffer]);
  };
  try {
    try {
      return await convertOnPool();
    } catch (error) {
      // Lost with another page held by the same thread: once more, on fresh threads.
      if (!(error instanceof TaskLostError)) throw error;
      return await convertOnPool().catch((again: unknown) => {
        throw again instanceof TaskLostError ? (again.cause as Error) : again;
      });
    }
  } catch (error) {
    if (error instanceof WorkerUnavailableError)
      return convertHtml(html, url, options, redaction, collectLinks);
    throw error;
  }
}

/** Only the fields conversion reads cross the thread boundary, not the whole scrape request. */
function conversionOptionsOf(options: ConversionOptions): ConversionOptions {
  return {
    formats: options.formats,
    onlyMainContent: options.onlyMainContent,
    onlyCleanContent: options.onlyCleanContent,
    includeTags: options.includeTags,
    excludeTags: options.excludeTags,
    removeBase64Images: options.removeBase64Images,
    blockAds: options.blockAds,
    redactPII: options.redactPII,
  };
}
