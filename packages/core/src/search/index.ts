/**
 * `search()`: a query to ranked results from the built-in index and the configured web
 * providers, optionally scraped. Validates, then hands over to the engine.
 */
import { isResolvedBy, resolveOptions } from '../internal/resolved.ts';
import { runSearch, type SearchContext, type SearchResult } from './engine.ts';
import { searchOptionsSchema, type ResolvedSearchOptions, type SearchOptions } from './options.ts';

/**
 * Searches the pages Trawl scraped (the store's index) and the web providers in `context`,
 * merging them by reciprocal rank fusion; with `scrapeOptions.formats`, scrapes every result.
 *
 * @throws BAD_REQUEST for bad input (empty query, both domain lists, a bad tbs); NOT_CONFIGURED
 * when neither an index nor a web provider can answer. Failing providers become `warning`.
 * @example
 * import { search, SqliteStore } from '@trawl/core';
 * const store = new SqliteStore({ path: 'trawl.db' });
 * const { web } = await search('pricing plans', { limit: 5 }, { store });
 * console.log(web?.map((result) => result.url));
 */
export async function search(
  query: string,
  options: SearchOptions | ResolvedSearchOptions = {},
  context: SearchContext = {},
): Promise<SearchResult> {
  // Options a server resolved already carry the query it validated.
  const resolved = resolveOptions(
    searchOptionsSchema,
    isResolvedBy(searchOptionsSchema, options) ? options : { ...options, query },
    'search request',
  );
  return runSearch(resolved, context);
}
