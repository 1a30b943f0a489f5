/**
 * `map()`: the URLs of a site, fast — from its sitemaps and its pages' links, no conversion.
 */
import { resolveEngineConfig, type EngineContext } from '../config.ts';
import { TimeoutError } from '../errors.ts';
import { parseTargetUrl } from '../internal/url.ts';
import { resolveOptions } from '../internal/resolved.ts';
import { httpFetcherOf } from '../scrape/engine.ts';
import { discover } from './discover.ts';
import { mapOptionsSchema, type MapOptions, type ResolvedMapOptions } from './options.ts';
import { rankBySearch, type MapLink } from './rank.ts';

/** How many URLs a map with `search` gathers before ranking them. */
const mapSearchBudget = { min: 5000, max: 100_000 };

/** What `map()` returns: the `links` of a `/v2/map` answer. */
export interface MapResult {
  links: MapLink[];
}

/**
 * Lists the URLs of the site at `url`: sitemap URLs and the links of its pages, within the site
 * (and its subdomains unless `includeSubdomains: false`), under the start path when it has one,
 * deduplicated, at most `limit`, best matches of `search` first. With `timeout`, returns what
 * was found in time.
 *
 * @throws BAD_REQUEST / INVALID_URL for bad input; the start page's fetch error when nothing at
 * all was found; MAP_TIMEOUT when the time ran out before any URL was found.
 * @example
 * const { links } = await map('https://example.com', { search: 'pricing' });
 */
export async function map(
  url: string,
  options: MapOptions | ResolvedMapOptions = {},
  context: EngineContext = {},
): Promise<MapResult> {
  const resolved = resolveOptions(mapOptionsSchema, options, 'map options');
  const start = parseTargetUrl(url);
  const signals = [
    context.signal,
    resolved.timeout ? AbortSignal.timeout(resolved.timeout) : undefined,
  ];
  const signal = AbortSignal.any(signals.filter((s): s is AbortSignal => s !== undefined));
  const config = context.config ?? resolveEngineConfig();
  // A search ranks the site's URLs, so it reads past `limit` before keeping the best.
  const budget = resolved.search
    ? Math.min(mapSearchBudget.max, Math.max(resolved.limit * 10, mapSearchBudget.min))
    : resolved.limit;
  const found = await discover(
    start,
    { ...resolved, limit: budget },
    httpFetcherOf(context),
    config,
    signal,
  );
  const { links } = found;
  if (links.length <= 1 && found.startError) {
    if (signal.aborted && resolved.timeout) {
      throw new TimeoutError(`Mapping ${start.href} found nothing within ${resolved.timeout} ms`, {
        code: 'MAP_TIMEOUT',
      });
    }
    throw found.startError;
  }
  const ranked = resolved.search ? rankBySearch(links, resolved.search) : links;
  return { links: ranked.slice(0, resolved.limit) };
}
