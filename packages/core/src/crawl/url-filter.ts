/**
 * URL identity and scope for crawl and map: which URLs count as the same page (the lock key), and
 * which ones a crawl may visit (the link filter of spec (b) step 2–3).
 */
import { getDomain } from 'tldts';
import { compilePathPattern, type PathPattern } from './path-pattern.ts';

/** How two URLs are compared when deciding whether a page was already taken. */
export interface UrlKeyOptions {
  /** Drop the query string, so `?page=2` is the same page as the bare path. */
  ignoreQueryParameters: boolean;
  /** Collapse `www.`/bare host, http/https, trailing slash and `index.html`/`index.php`. */
  deduplicateSimilarURLs: boolean;
}

const indexFile = /\/index\.(?:html?|php|aspx?)$/i;

/**
 * The URL a crawl fetches for `href`: fragment removed (a fragment never changes what a server
 * sends), and the query too when `ignoreQueryParameters`. Host case and default ports are already
 * normalised by the WHATWG parser.
 */
export function fetchableUrl(url: URL, ignoreQueryParameters: boolean): URL {
  const copy = new URL(url.href);
  copy.hash = '';
  if (ignoreQueryParameters) copy.search = '';
  return copy;
}

/**
 * The identity of a page for deduplication: two URLs with the same key are fetched once. The
 * WHATWG parser already lowercases the host, drops default ports and resolves dot segments; this
 * adds the crawl's own rules on top.
 */
export function urlKey(url: URL, options: UrlKeyOptions): string {
  let host = url.host;
  let path = url.pathname;
  let scheme = url.protocol;
  if (options.deduplicateSimilarURLs) {
    scheme = 'http:';
    if (host.startsWith('www.')) host = host.slice(4);
    path = path.replace(indexFile, '/');
    if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  }
  const query = options.ignoreQueryParameters ? '' : url.search;
  return `${scheme}//${host}${path}${query}`;
}

/** A host name without a leading `www.`: `www.example.com` and `example.com` are one site. */
export function siteHost(hostname: string): string {
  return hostname.startsWith('www.') ? hostname.slice(4) : hostname;
}

/**
 * The registrable domain of a host (`docs.example.co.uk` → `example.co.uk`), public-suffix
 * aware; IP literals and single-label hosts are their own domain.
 */
export function registrableDomain(hostname: string): string {
  return getDomain(hostname, { allowPrivateDomains: true }) ?? hostname;
}

// Extensions a crawl never fetches: assets, media, archives and executables (spec (b) step 3).
const neverCrawled = new Set(
  'png jpg jpeg gif css js mjs ico svg tiff tif zip gz tgz rar 7z exe dmg msi iso mp4 mp3 wav ogg webm mov avi flv woff ttf otf woff2 webp avif bmp inc apk bin'.split(
    ' ',
  ),
);
// Documents become pages through the parse capability.
const documentExtensions = new Set(
  'pdf doc docx xls xlsx ppt pptx odt ods odp rtf epub'.split(' '),
);

/** The lower-case extension of the last path segment, without the dot; '' when none. */
export function extensionOf(url: URL): string {
  const segment = url.pathname.slice(url.pathname.lastIndexOf('/') + 1);
  const dot = segment.lastIndexOf('.');
  return dot > 0 ? segment.slice(dot + 1).toLowerCase() : '';
}

/** What kind of resource a URL names by its extension. */
export function resourceKind(url: URL): 'page' | 'document' | 'asset' {
  const extension = extensionOf(url);
  if (neverCrawled.has(extension)) return 'asset';
  if (documentExtensions.has(extension)) return 'document';
  return 'page';
}

// Links that are never pages of a crawl, whatever the options: mail, phone and social profiles.
const socialHosts = new Set([
  'facebook.com',
  'twitter.com',
  'x.com',
  'instagram.com',
  'linkedin.com',
  'youtube.com',
  'tiktok.com',
  'pinterest.com',
  'reddit.com',
  'threads.net',
  't.me',
  'wa.me',
]);

/** Whether a host belongs to a social network whose profile links are never crawled. */
export function isSocialHost(hostname: string): boolean {
  return socialHosts.has(registrableDomain(hostname));
}

/** Why a discovered URL is not taken into a crawl. */
export type LinkRefusal =
  | 'not-http'
  | 'asset'
  | 'document'
  | 'social'
  | 'external'
  | 'subdomain'
  | 'excluded'
  | 'not-included'
  | 'outside-start-path';

/** The options of a crawl that decide its scope. */
export interface ScopeOptions {
  allowExternalLinks: boolean;
  allowSubdomains: boolean;
  crawlEntireDomain: boolean;
  includePaths: readonly string[];
  excludePaths: readonly string[];
  regexOnFullURL: boolean;
}

/**
 * Which URLs a crawl may visit, decided from its start URL and options in the order of spec (b)
 * step 2–3: host, then exclude, include, and the start path. Depth, robots.txt, dedupe and the
 * limit are the frontier's business.
 */
export class CrawlScope {
  readonly #options: ScopeOptions;
  readonly #include: PathPattern[];
  readonly #exclude: PathPattern[];
  #site = '';
  #domain = '';
  #startPath = '/';

  constructor(startUrl: URL, options: ScopeOptions) {
    this.#options = options;
    // Empty patterns would match everything; the hosted service ignores them. Linear-time
    // matching: a link of any length costs time in proportion to its length.
    this.#include = options.includePaths.filter(Boolean).map(compilePathPattern);
    this.#exclude = options.excludePaths.filter(Boolean).map(compilePathPattern);
    this.moveTo(startUrl);
  }

  /** Re-centres the scope on another start URL: the start page redirected to another host. */
  moveTo(startUrl: URL): void {
    this.#site = siteHost(startUrl.hostname);
    this.#domain = registrableDomain(this.#site);
    this.#startPath = startUrl.pathname;
  }

  /** Whether `url` is on the crawl's own site (www-insensitive). */
  isInternal(url: URL): boolean {
    return siteHost(url.hostname) === this.#site;
  }

  /** Why `url` found on a page is refused, or undefined when the crawl may take it. */
  refuse(url: URL, foundOnInternalPage: boolean): LinkRefusal | undefined {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'not-http';
    const kind = resourceKind(url);
    if (kind === 'asset') return 'asset';
    const internal = this.isInternal(url);
    if (!internal) {
      const sameDomain = registrableDomain(siteHost(url.hostname)) === this.#domain;
      if (sameDomain && this.#options.allowSubdomains) {
        // A subdomain counts as the site's own: no one-hop rule.
      } else if (isSocialHost(url.hostname)) {
        return 'social';
      } else if (!this.#options.allowExternalLinks) {
        return sameDomain ? 'subdomain' : 'external';
      } else if (!foundOnInternalPage || url.pathname === '/') {
        // One hop out, never further, and not to bare home pages (spec (b) step 2).
        return 'external';
      }
    }
    const patternRefusal = this.refuseByPatterns(url);
    if (patternRefusal) return patternRefusal;
    if (internal && !this.#options.crawlEntireDomain && !url.pathname.startsWith(this.#startPath)) {
      return 'outside-start-path';
    }
    return kind === 'document' ? 'document' : undefined;
  }

  /** Whether include/exclude patterns refuse `url`; the start URL is checked with this alone. */
  refuseByPatterns(url: URL): 'excluded' | 'not-included' | undefined {
    const subject = this.#options.regexOnFullURL ? url.href : url.pathname;
    if (this.#exclude.some((pattern) => pattern.test(subject))) return 'excluded';
    if (this.#include.length > 0 && !this.#include.some((pattern) => pattern.test(subject))) {
      return 'not-included';
    }
    return undefined;
  }
}
