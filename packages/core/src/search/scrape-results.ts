/**
 * Scraping the results of a search: each web result through scrape(), so through the page cache
 * and into the index, a few at a time. A result that cannot be scraped keeps its search fields
 * and says why in `metadata.error`; it never fails the search.
 */
import type { ResolvedScrapeOptions } from '../scrape/options.ts';
import { toTrawlError } from '../errors.ts';
import { scrape } from '../scrape/index.ts';
import type { SearchContext, SearchResultWeb } from './engine.ts';

/** Results scraped at once: the whole page of results soon, without a burst of 100 fetches. */
const concurrency = 5;
/** scrape() takes no timeout below this; a search with less left marks the rest as timed out. */
const minScrapeMs = 1000;

/** Scrapes the results in place; resolves with how many were scraped successfully. */
export async function scrapeResults(
  results: SearchResultWeb[],
  options: ResolvedScrapeOptions,
  context: SearchContext,
  signal: AbortSignal,
): Promise<number> {
  const deadline = Date.now() + options.timeout;
  let next = 0;
  let scraped = 0;
  const worker = async () => {
    while (next < results.length) {
      const result = results[next++];
      if (!result) continue;
      if (await scrapeOne(result, options, context, signal, deadline)) scraped += 1;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, results.length) }, worker));
  return scraped;
}

async function scrapeOne(
  result: SearchResultWeb,
  options: ResolvedScrapeOptions,
  context: SearchContext,
  signal: AbortSignal,
  deadline: number,
): Promise<boolean> {
  const source = result.metadata?.source ?? 'web';
  const left = deadline - Date.now();
  if (signal.aborted || left < minScrapeMs) {
    result.metadata = {
      source,
      sourceURL: result.url,
      url: result.url,
      error: 'SCRAPE_TIMEOUT: the search timeout ran out before this result was scraped',
    };
    return false;
  }
  try {
    const document = await scrape(
      result.url,
      { ...options, timeout: Math.min(options.timeout, left) },
      { ...context, signal },
    );
    const { metadata, ...content } = document;
    Object.assign(result, content);
    result.metadata = { ...metadata, source };
    return true;
  } catch (error) {
    const failure = toTrawlError(error);
    result.metadata = {
      source,
      sourceURL: result.url,
      url: result.url,
      error: `${failure.code}: ${failure.message}`,
    };
    return false;
  }
}
