/**
 * The page cache behind `maxAge`, `minAge`, `storeInCache` and `lockdown`. It keeps the decoded
 * response (not a finished Document), so that one fetch serves every later mix of formats and
 * cleaning options. Results differ by device and locale, so those are part of the key.
 *
 * Each team has its own cache: the team is part of the key. A shared one answered one team with
 * what another fetched — the text of a share link after it was revoked — and told anyone, by a
 * lockdown or `minAge` hit or by `cacheState`, which URLs the other teams had scraped.
 */
import { createHash } from 'node:crypto';
import { BlockedUrlError } from '../errors.ts';
import type { Store } from '../interfaces/store.ts';
import {
  assertPublicUrl,
  resolvePublic,
  type AddressGuardOptions,
} from '../internal/address-guard.ts';
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
  /** The team it was fetched for (entries written before caches were per team have none). */
  team?: string;
  /**
   * Fetched with private addresses refused, so every hop's address was checked then. Pages the
   * CLI fetched (which may reach private addresses) lack it, and a guarded reader checks their
   * hosts' addresses again before answering with them.
   */
  guarded?: boolean;
}

/**
 * Whether a page was fetched with the caller's own credentials or state: request headers (a
 * cookie, an Authorization), browser actions (a login typed in), a browser profile, or a user
 * name and password in the URL. Such a page is the caller's alone: it is neither cached nor
 * indexed, so no later request — of any team — is answered from it.
 */
export function fetchedWithCredentials(
  options: Pick<ResolvedScrapeOptions, 'headers' | 'actions' | 'profile'>,
  url: URL,
): boolean {
  return (
    Boolean(options.headers) ||
    Boolean(options.actions?.length) ||
    Boolean(options.profile) ||
    url.username !== '' ||
    url.password !== ''
  );
}

/**
 * The cache key of a request: the team, the URL without its fragment, plus what changes the
 * response.
 */
export function pageCacheKey(
  team: string,
  url: URL,
  options: Pick<ResolvedScrapeOptions, 'mobile' | 'location'>,
): string {
  const withoutFragment = new URL(url);
  withoutFragment.hash = '';
  const variant = JSON.stringify([
    team,
    withoutFragment.href,
    options.mobile,
    options.location?.country ?? null,
    options.location?.languages ?? null,
  ]);
  return createHash('sha256').update(variant).digest('base64url');
}

/**
 * Whether the private-address guard lets `page`, cached for `target`, be answered: the same
 * question a fetch asks, so a page the cache holds from a process that may fetch private
 * addresses (the CLI sharing the data folder) is refused exactly as a fetch of it would be.
 * The request's and the final URL's hosts are checked as written (no lookup: a page a guarded
 * fetch stored had its addresses checked then); a page stored unguarded has its host names
 * resolved too. Resolves to false when a name does not resolve now: its address is unknown, so
 * the page is not answered from the cache.
 *
 * @throws URL_BLOCKED
 */
export async function cachedPageAllowed(
  target: URL,
  page: CachedPage,
  guard: AddressGuardOptions,
): Promise<boolean> {
  const finalUrl = URL.parse(page.url) ?? target;
  assertPublicUrl(target, guard);
  assertPublicUrl(finalUrl, guard);
  if (page.guarded) return true;
  for (const url of new Set([target, finalUrl])) {
    try {
      await resolvePublic(url.hostname, guard);
    } catch (error) {
      if (error instanceof BlockedUrlError) throw error;
      return false;
    }
  }
  return true;
}

/**
 * {@link cachedPageAllowed} where no fetch can follow (lockdown, minAge): a page whose host
 * cannot be checked now is refused too. @throws URL_BLOCKED
 */
export async function assertCachedPageAllowed(
  target: URL,
  page: CachedPage,
  guard: AddressGuardOptions,
): Promise<void> {
  if (!(await cachedPageAllowed(target, page, guard))) {
    throw new BlockedUrlError(
      `${target.href} could not be checked against the private-address rule (its host name does not resolve now), so its cached copy is not served`,
    );
  }
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
