/**
 * A source of search results: the built-in index, a SearXNG instance, any other engine. `search()`
 * asks every provider the request selects and merges their answers by reciprocal rank fusion.
 *
 * @remarks
 * Deliberately out of the contract: scraping the results (search() does it, once, through the
 * cache) and ranking across providers (the fusion does it). A provider that cannot answer
 * throws; search() turns that into a `warning` and carries on with the others.
 */
export interface SearchProvider {
  /** A short stable name (`local`, `searxng`); shown in warnings and `metadata.source`. */
  readonly name: string;
  /** `local` answers from what Trawl scraped; `web` asks the web. */
  readonly kind: 'local' | 'web';
  /** Runs one query; results of each source best first. Throws FETCH_FAILED or SCRAPE_TIMEOUT. */
  search(query: ProviderQuery, signal: AbortSignal): Promise<ProviderAnswer>;
}

/** The result kinds of the interface (`sources`). */
export type SearchSourceType = 'web' | 'news' | 'images';

/** What a provider is asked: the request after validation, in plain terms. */
export interface ProviderQuery {
  query: string;
  /** Most results wanted per source. */
  limit: number;
  sources: readonly SearchSourceType[];
  categories: readonly ('github' | 'research' | 'pdf' | 'developer')[];
  includeDomains: readonly string[];
  excludeDomains: readonly string[];
  /** The `tbs` window; `named` is set for the qdr:h|d|w|m|y forms. */
  time?: { from?: number; to?: number; named?: 'hour' | 'day' | 'week' | 'month' | 'year' };
  lang?: string;
  country?: string;
  location?: string;
  /** Whether local results carry a snippet around the matched words as their description. */
  highlights: boolean;
}

/** One result as a provider found it. */
export interface ProviderResult {
  url: string;
  title?: string;
  description?: string;
  /** News: when it was published (ISO 8601). */
  date?: string;
  /** Images: the picture's URL and size. */
  imageUrl?: string;
  imageWidth?: number;
  imageHeight?: number;
  /** Where it came from: `local`, or the engine that found it. */
  source: string;
  category?: string;
}

/** A provider's answer. */
export interface ProviderAnswer {
  web?: ProviderResult[];
  news?: ProviderResult[];
  images?: ProviderResult[];
  /** Something the caller should know: engines that failed, a source this provider lacks. */
  warnings?: string[];
}
