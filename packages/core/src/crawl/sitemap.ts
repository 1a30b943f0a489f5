/**
 * Sitemap discovery for crawl and map: the sitemaps robots.txt lists, `<start path>/sitemap.xml`
 * and `/sitemap.xml`, sitemap indexes followed to their leaves, gzip sitemaps unpacked (spec (b)
 * step 6; the `sitemap` option).
 *
 * One bad sitemap never fails the load: it becomes an entry in `errors` and the rest go on, so a
 * site with a broken index still yields the URLs of its good sitemaps ("Bad input").
 */
import { Parser } from 'htmlparser2';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import {
  ContentTooLargeError,
  TrawlError,
  UnsupportedTypeError,
  type ErrorCode,
} from '../errors.ts';
import { crawlFetchRequest, type CrawlFetchDeps } from './robots.ts';

/** What `loadSitemaps` needs besides the transport. */
export interface SitemapDeps extends CrawlFetchDeps {
  /** `Sitemap:` URLs from robots.txt, tried first. */
  robotsSitemaps?: readonly string[];
  /**
   * Most sitemap files fetched, indexes included; the spec caps a crawl at 20.
   * @default 20
   */
  maxSitemaps?: number;
  /** Stop once this many page URLs are collected. Unset: no bound but `maxSitemaps`. */
  maxUrls?: number;
}

/** What the sitemaps of a site gave. */
export interface SitemapResult {
  /** Page URLs, absolute, http(s) only, deduplicated, in discovery order. */
  urls: string[];
  /** Sitemap files read successfully (indexes included), in fetch order. */
  sitemaps: string[];
  /**
   * Sitemaps that were listed or linked but could not be read, with the reason and its code: the
   * fetch's own (`URL_BLOCKED` for a refused address, `SCRAPE_TIMEOUT` …), or
   * `UNSUPPORTED_FILE_TYPE` for an answer that is no sitemap.
   */
  errors: { url: string; error: string; code: ErrorCode }[];
}

/** The default of `maxSitemaps` (spec (b) step 6: "at most 20 sitemaps per crawl"). */
const defaultMaxSitemaps = 20;

const sitemapAccept = 'application/xml,text/xml;q=0.9,*/*;q=0.5';

/** One parsed sitemap file: page URLs of a `<urlset>`, or child sitemaps of a `<sitemapindex>`. */
interface ParsedSitemap {
  kind: 'urlset' | 'sitemapindex';
  locs: string[];
}

/** Where a candidate came from: guesses that 404 are expected, listed ones are errors. */
interface Candidate {
  url: URL;
  isGuess: boolean;
}

/** Whether a URL names a sitemap by its file name (`.xml`, `.xml.gz`). */
export function isSitemapUrl(url: URL): boolean {
  return /\.xml(\.gz)?$/i.test(url.pathname);
}

/**
 * Reads one sitemap document with htmlparser2 in XML mode, which decodes entities and CDATA and
 * keeps going through malformed markup. Returns undefined when the root is neither `<urlset>`
 * nor `<sitemapindex>` (HTML error pages, feeds, garbage).
 */
export function parseSitemapXml(xml: string): ParsedSitemap | undefined {
  let kind: ParsedSitemap['kind'] | undefined;
  const stack: string[] = [];
  const locs: string[] = [];
  let loc: string | undefined;
  // Namespace prefixes (`<sm:loc>`) are dropped: sitemaps in the wild use them inconsistently.
  const localName = (name: string) => name.slice(name.indexOf(':') + 1).toLowerCase();
  const parser = new Parser(
    {
      onopentag(rawName) {
        const name = localName(rawName);
        if (stack.length === 0 && (name === 'urlset' || name === 'sitemapindex')) kind = name;
        stack.push(name);
        // Only `<loc>` directly in `<url>`/`<sitemap>` counts: image and video extensions
        // (`<image:loc>`) sit one level deeper and are not pages.
        if (name === 'loc' && (stack.at(-2) === 'url' || stack.at(-2) === 'sitemap')) loc = '';
      },
      ontext(text) {
        if (loc !== undefined) loc += text;
      },
      onclosetag(rawName) {
        if (localName(rawName) === 'loc' && loc !== undefined) {
          locs.push(loc.trim());
          loc = undefined;
        }
        stack.pop();
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.end(xml);
  return kind === undefined ? undefined : { kind, locs };
}

/** Resolves a `<loc>` against its sitemap; undefined unless it is an http(s) URL. */
function resolveLoc(loc: string, base: URL): URL | undefined {
  if (loc === '') return undefined;
  const url = URL.parse(loc, base.href);
  return url && (url.protocol === 'http:' || url.protocol === 'https:') ? url : undefined;
}

/**
 * The sitemaps to try for a start URL, in the spec's order. A start URL that is itself a sitemap
 * is read as one (spec (b) step 6) and replaces the guessed locations: the caller named the file
 * to use, and guessing `/sitemap.xml` as well would widen the set past what was asked.
 */
function candidatesFor(startUrl: URL, robotsSitemaps: readonly string[]): Candidate[] {
  const startIsSitemap = isSitemapUrl(startUrl);
  const candidates: Candidate[] = startIsSitemap ? [{ url: startUrl, isGuess: false }] : [];
  for (const listed of robotsSitemaps) {
    const url = resolveLoc(listed, startUrl);
    if (url) candidates.push({ url, isGuess: false });
  }
  if (startIsSitemap) return candidates;
  const startPath = startUrl.pathname.replace(/\/+$/, '');
  if (startPath !== '') {
    candidates.push({ url: new URL(`${startPath}/sitemap.xml`, startUrl), isGuess: true });
  }
  candidates.push({ url: new URL('/sitemap.xml', startUrl), isGuess: true });
  return candidates;
}

const gunzipAsync = promisify(gunzip);

/**
 * Fetches and parses one sitemap; a status of 400 or more comes back as is, and anything else
 * wrong throws a TrawlError whose message is the reason the file is skipped.
 */
async function fetchSitemap(
  url: URL,
  deps: SitemapDeps,
): Promise<{ parsed: ParsedSitemap; finalUrl: URL; status: number } | { status: number }> {
  const response = await deps.fetcher.fetch(crawlFetchRequest(url, deps, sitemapAccept));
  if (response.status >= 400) return { status: response.status };
  let body = response.body;
  // `.xml.gz` files come as application/gzip or octet-stream, not Content-Encoding, so the
  // fetcher left them packed; the magic bytes tell, whatever the name or type says.
  if (body[0] === 0x1f && body[1] === 0x8b) {
    try {
      // In the thread pool: a bomb inflating to the cap is not the request thread's work.
      body = await gunzipAsync(body, { maxOutputLength: deps.config.maxBodyBytes });
    } catch (error) {
      // Node reports an output past maxOutputLength as ERR_BUFFER_TOO_LARGE: a gzip bomb or
      // simply too big, either way more than the engine reads for any one body.
      if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') {
        throw new ContentTooLargeError(
          `The unpacked sitemap is larger than the ${deps.config.maxBodyBytes.toLocaleString('en-US')} bytes limit. Raise maxBodyBytes in the engine config to read it`,
          {
            cause: error,
            details: { setting: 'maxBodyBytes', limitBytes: deps.config.maxBodyBytes },
          },
        );
      }
      throw new UnsupportedTypeError(`Could not gunzip the sitemap: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  const parsed = parseSitemapXml(new TextDecoder().decode(body));
  if (!parsed) {
    throw new UnsupportedTypeError('Not a sitemap: no <urlset> or <sitemapindex> root element');
  }
  return { parsed, finalUrl: response.url, status: response.status };
}

/**
 * Collects page URLs from a site's sitemaps: robots-listed ones, `<start path>/sitemap.xml` and
 * `/sitemap.xml` (or, instead of those two guesses, the start URL itself when it ends in
 * `.xml`/`.xml.gz`), following indexes
 * breadth-first, at most `maxSitemaps` files, each fetched once. Never throws for a bad sitemap;
 * an aborted `signal` rejects.
 *
 * @example
 * const { urls } = await loadSitemaps(new URL('https://example.com/'), { fetcher, config });
 */
export async function loadSitemaps(startUrl: URL, deps: SitemapDeps): Promise<SitemapResult> {
  const maxSitemaps = deps.maxSitemaps ?? defaultMaxSitemaps;
  const maxUrls = deps.maxUrls ?? Number.POSITIVE_INFINITY;
  const queue = candidatesFor(startUrl, deps.robotsSitemaps ?? []);
  // Keyed without the fragment, so `#x` variants of one file cannot form a loop.
  const seen = new Set<string>();
  const urls = new Set<string>();
  const result: SitemapResult = { urls: [], sitemaps: [], errors: [] };
  let fetched = 0;

  for (let next = queue.shift(); next; next = queue.shift()) {
    if (fetched >= maxSitemaps || urls.size >= maxUrls) break;
    const key = new URL(next.url);
    key.hash = '';
    if (seen.has(key.href)) continue;
    seen.add(key.href);
    fetched += 1;

    let outcome;
    try {
      outcome = await fetchSitemap(next.url, deps);
    } catch (error) {
      if (deps.signal?.aborted) throw error;
      result.errors.push({
        url: next.url.href,
        error: (error as Error).message,
        code: error instanceof TrawlError ? error.code : 'UNSUPPORTED_FILE_TYPE',
      });
      continue;
    }
    if (!('parsed' in outcome)) {
      // A guessed location that is not there is the normal case, not an error.
      if (!next.isGuess || outcome.status !== 404) {
        result.errors.push({
          url: next.url.href,
          error: `HTTP ${outcome.status}`,
          code: 'UNSUPPORTED_FILE_TYPE',
        });
      }
      continue;
    }
    result.sitemaps.push(next.url.href);
    // The final URL after redirects is the base for relative `<loc>`s, as for a page's links.
    for (const loc of outcome.parsed.locs) {
      const url = resolveLoc(loc, outcome.finalUrl);
      if (!url) continue;
      if (outcome.parsed.kind === 'sitemapindex') {
        queue.push({ url, isGuess: false });
      } else if (urls.size < maxUrls) {
        urls.add(url.href);
      }
    }
  }
  result.urls = [...urls];
  return result;
}
