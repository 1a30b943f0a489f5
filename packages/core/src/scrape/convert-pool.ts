/**
 * Where fetched HTML pages, text responses and uploaded files are converted: on worker threads,
 * so that a crawl, a batch scrape or a busy server uses every core, and so that no
 * request can hold the server's own thread: a page built to make selectors, redaction or
 * markdown writing slow stops at its deadline with its worker, and `/health` keeps answering. The fetch, the frontier and the store stay on the
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
import { TaskLostError, WorkerUnavailableError } from '../internal/worker-pool.ts';
import type { Redaction } from '../convert/redact.ts';
import { convertHtml, convertText, type Conversion, type ConversionOptions } from './convert.ts';
import type { ConvertTask } from './convert-worker.ts';
import { conversionPool } from './conversion-threads.ts';

// One encoder for every page; encode() gives each page a buffer of its own, safe to transfer.
const encoder = new TextEncoder();

/**
 * `convertHtml` on the pool of `threads` threads (inline for 0).
 *
 * `utf8`, when given, holds the bytes `html` was decoded from as UTF-8 (`TextDecoder`'s way); a
 * copy of them goes to the thread instead of `html` encoded again, which cost the crawl's thread
 * ~90 µs for a 43 KB page holding any character past U+00FF.
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
  utf8?: Uint8Array,
): Promise<Conversion> {
  const inline = () => convertHtml(html, url, options, redaction, collectLinks);
  return runPooled(threads, deadline, inline, () => {
    // A buffer of its own either way: it is transferred, and a retry needs another.
    const bytes = utf8 ? new Uint8Array(utf8) : encoder.encode(html);
    const task: ConvertTask = {
      html: bytes,
      url,
      options: conversionOptionsOf(options),
      redaction,
      collectLinks,
    };
    return { task, transfer: [bytes.buffer] };
  });
}

/**
 * `convertText` on the pool: a text response is cheap to convert, but redacting megabytes of
 * it is not, and nothing a request controls runs unbounded on the calling thread.
 *
 * @throws SCRAPE_TIMEOUT past `deadline` (epoch ms); CONTENT_TOO_LARGE past the heap limit
 */
export async function convertTextPooled(
  text: string,
  language: string,
  options: ConversionOptions,
  redaction: Redaction | undefined,
  threads: number,
  deadline: number,
): Promise<Conversion> {
  const inline = () => convertText(text, language, options, redaction);
  return runPooled(threads, deadline, inline, () => {
    const bytes = encoder.encode(text);
    const task: ConvertTask = {
      html: bytes,
      url: '',
      options: conversionOptionsOf(options),
      redaction,
      collectLinks: false,
      textLanguage: language,
    };
    return { task, transfer: [bytes.buffer] };
  });
}

/**
 * Runs a conversion task on the pool of `threads` threads, `inline` where there is none (0
 * threads, or a runtime that cannot start the worker). `make` builds the task afresh for each
 * try, as its buffer is transferred.
 */
async function runPooled(
  threads: number,
  deadline: number,
  inline: () => Conversion,
  make: () => { task: ConvertTask; transfer: ArrayBuffer[] },
): Promise<Conversion> {
  const pool = conversionPool(threads);
  if (!pool) return inline();
  const convertOnPool = () => {
    const { task, transfer } = make();
    return pool.run<Conversion>(task, deadline, transfer);
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
    if (error instanceof WorkerUnavailableError) return inline();
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
