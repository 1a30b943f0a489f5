/**
 * `scrape()`: one URL to one Document. Validates, then hands over to the engine.
 */
import type { EngineContext } from '../config.ts';
import type { Document } from '../document.ts';
import { parseTargetUrl } from '../internal/url.ts';
import { givenOptions, resolveOptions } from '../internal/resolved.ts';
import { runScrape } from './engine.ts';
import { scrapeOptionsSchema, type ResolvedScrapeOptions, type ScrapeOptions } from './options.ts';

/**
 * Scrapes one page into a Document: fetches it (or serves it from the page cache), cleans it,
 * keeps the main content and converts it to the requested formats. Options resolved by
 * `scrapeOptionsSchema` already (a server parsed the request) are not parsed again.
 *
 * @throws BAD_REQUEST or INVALID_URL for bad input; SCRAPE_TIMEOUT; FETCH_FAILED,
 * SCRAPE_DNS_RESOLUTION_ERROR, SCRAPE_CONNECTION_REFUSED, SCRAPE_SSL_ERROR; CONTENT_TOO_LARGE;
 * UNSUPPORTED_FILE_TYPE; SCRAPE_NO_CACHED_DATA / SCRAPE_LOCKDOWN_CACHE_MISS for cache-only
 * misses; CAPABILITY_UNAVAILABLE / NOT_CONFIGURED for features this engine cannot serve.
 * @example
 * import { scrape } from '@trawl/core';
 * const doc = await scrape('https://example.com');
 * console.log(doc.markdown);
 */
export async function scrape(
  url: string,
  options: ScrapeOptions | ResolvedScrapeOptions = {},
  context: EngineContext = {},
): Promise<Document> {
  const resolved = resolveOptions(scrapeOptionsSchema, options, 'scrape options');
  const target = parseTargetUrl(url);
  const hasExplicitMaxAge = givenOptions(resolved)['maxAge'] !== undefined;
  return runScrape({ sourceUrl: url, target, options: resolved, hasExplicitMaxAge }, context);
}
