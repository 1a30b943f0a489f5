/**
 * Where map finds URLs: the site's sitemaps, then its pages' links read breadth-first (links
 * only, no conversion) until enough URLs are known, the page budget is spent or time is up.
 */
import type { EngineConfig } from '../config.ts';
import type { TrawlError } from '../errors.ts';
import type { Fetcher } from '../interfaces/fetcher.ts';
import {
  loadRobots,
  crawlFetchRequest,
  robotsAgentToken,
  type RobotsRules,
} from '../crawl/robots.ts';
import { loadSitemaps } from '../crawl/sitemap.ts';
import {
  fetchableUrl,
  registrableDomain,
  resourceKind,
  siteHost,
  urlKey,
} from '../crawl/url-filter.ts';
import { toTrawlError } from '../errors.ts';
import { decodeHtml } from '../convert/decode.ts';
import { readLinks } from './links.ts';
import type { ResolvedMapOptions } from './options.ts';
import type { MapLink } from './rank.ts';

// Pages read for links beyond the start page: enough to map a site without a sitemap, few
// enough that map stays an answer in seconds rather than a crawl.
const maxPagesRead = 50;
const concurrency = 8;

/** What discovery found, in discovery order, plus the start page's failure if it failed. */
export interface Discovery {
  links: MapLink[];
  startError?: TrawlError;
}

/** Collects the URLs of the site at `start`. */
export async function discover(
  start: URL,
  options: ResolvedMapOptions,
  fetcher: Fetcher,
  config: EngineConfig,
  signal: AbortSignal,
): Promise<Discovery> {
  const site = siteHost(start.hostname);
  const domain = registrableDomain(site);
  const found = new Map<string, MapLink>();
  const keyOf = (url: URL) =>
    urlKey(url, {
      ignoreQueryParameters: options.ignoreQueryParameters,
      deduplicateSimilarURLs: true,
    });
  const deps = { fetcher, config, signal, userAgent: robotsAgentToken(config.userAgent) };
  let robots: RobotsRules | undefined;
  try {
    robots = await loadRobots(new URL(start.origin), deps);
  } catch {
    robots = undefined;
  }

  const inScope = (url: URL): boolean => {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
    const host = siteHost(url.hostname);
    const sameSite =
      host === site || (options.includeSubdomains && registrableDomain(host) === domain);
    if (!sameSite || resourceKind(url) === 'asset') return false;
    // A start URL below the root maps that part of the site only.
    if (start.pathname !== '/' && !url.pathname.startsWith(start.pathname)) return false;
    return url.origin !== start.origin || !robots || robots.isAllowed(url);
  };
  const add = (href: string): URL | undefined => {
    const parsed = URL.parse(href);
    if (!parsed) return undefined;
    const url = fetchableUrl(parsed, options.ignoreQueryParameters);
    if (!inScope(url) || found.size >= options.limit) return undefined;
    const key = keyOf(url);
    if (found.has(key)) return undefined;
    found.set(key, { url: url.href });
    return url;
  };

  const discovery: Discovery = { links: [] };
  const startUrl = fetchableUrl(start, options.ignoreQueryParameters);
  // Pages to read for links, in discovery order: sitemap pages link onwards too.
  const queue: URL[] = [];
  const enqueue = (url: URL | undefined) => {
    if (url && resourceKind(url) === 'page') queue.push(url);
  };
  if (options.sitemap !== 'only') add(startUrl.href);
  if (options.sitemap !== 'skip') {
    const sitemaps = await loadSitemaps(start, {
      ...deps,
      robotsSitemaps: robots?.sitemaps ?? [],
      maxUrls: options.limit * 2,
    }).catch(() => undefined);
    for (const url of sitemaps?.urls ?? []) enqueue(add(url));
  }
  if (options.sitemap !== 'only') {
    let read = 0;
    const readOne = async (url: URL, isStart: boolean): Promise<void> => {
      try {
        const response = await fetcher.fetch(
          crawlFetchRequest(url, { ...deps, timeoutMs: 15_000 }, 'text/html,application/xhtml+xml'),
        );
        const type = response.headers['content-type'] ?? '';
        if (response.status >= 400 || !/html|^$/.test(type)) return;
        const page = readLinks(decodeHtml(response.body, type).text, response.url.href);
        const own = found.get(keyOf(url));
        if (own) {
          if (page.title) own.title = page.title;
          if (page.description) own.description = page.description;
        }
        for (const link of page.links) enqueue(add(link));
      } catch (error) {
        if (isStart) discovery.startError = toTrawlError(error);
      }
    };
    await readOne(startUrl, true);
    while (
      queue.length > 0 &&
      read < maxPagesRead &&
      found.size < options.limit &&
      !signal.aborted
    ) {
      const batch = queue.splice(0, Math.min(concurrency, maxPagesRead - read));
      read += batch.length;
      await Promise.all(batch.map((url) => readOne(url, false)));
    }
  }
  discovery.links = [...found.values()];
  return discovery;
}
