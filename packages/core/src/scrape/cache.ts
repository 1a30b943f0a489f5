/**
 * The page cache behind `maxAge`, `minAge`, `storeInCache` and `lockdown`. It keeps the decoded
 * response (not a finished Document), so that one fetch serves every later mix of formats and
 * cleaning options. Results differ by device and locale, so those are part of the key.
 */
import { createHash } from 'node:crypto';
import type { Store } from '../interfaces/store.ts';
import type { ResolvedScrapeOptions } from './options.ts';

const namespace = 'page-cache';

/** One cached response. */
export interface CachedPage {
  /** The URL after redirects. */
  url: string;
  status: number;
  contentType: string | undefined;
  /** The decoded body. */
  text: string;
  charset: string;
  /** When it was fetched, ms since the epoch. */
  fetchedAt: number;
  /** Set when the response was a document: its kind; `text` is then the document's HTML. */
  parsedFrom?: string;
  /** A parsed PDF's page count. */
  numPages?: number;
  /** What parsing the document could not do (scanned pages, pages left out by maxPages). */
  warning?: string;
  /** Parsed with a page limit: not the whole document, so not cached. */
  partial?: boolean;
}

/** The cache key of a request: the URL without its fragment, plus what changes the response. */
export function pageCacheKey(
  url: URL,
  options: Pick<ResolvedScrapeOptions, 'mobile' | 'location'>,
): string {
  const withoutFragment = new URL(url);
  withoutFragment.hash = '';
  const variant = JSON.stringify([
    withoutFragment.href,
    options.mobile,
    options.location?.country ?? null,
    options.location?.languages ?? null,
  ]);
  return createHash('sha256').update(variant).digest('base64url');
}

/** Page cache operations over a Store. */
export class PageCache {
  readonly #store: Store;
  readonly #ttlMs: number;

  constructor(store: Store, ttlMs: number) {
    this.#store = store;
    this.#ttlMs = ttlMs;
  }

  get(key: string): Promise<CachedPage | undefined> {
    return this.#store.get<CachedPage>(namespace, key);
  }

  put(key: string, page: CachedPage): Promise<void> {
    return this.#store.set(namespace, key, page, { ttlMs: this.#ttlMs });
  }
}
