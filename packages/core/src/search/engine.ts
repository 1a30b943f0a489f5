/**
 * One search: picks the providers, asks them within the time budget, fuses their answers, and
 * scrapes the results when asked. A provider that fails or runs late becomes a `warning`, never
 * a failed search: the most common complaint about self-hosted search is an empty answer with
 * no explanation (reference-behaviour, known problem 7).
 */
import { defaultTeam, type EngineContext } from '../config.ts';
import type { Document, DocumentMetadata } from '../document.ts';
import { NotConfiguredError, toTrawlError } from '../errors.ts';
import type {
  ProviderAnswer,
  ProviderQuery,
  ProviderResult,
  SearchProvider,
} from '../interfaces/search-provider.ts';
import { parseTargetUrl } from '../internal/url.ts';
import { LocalSearchProvider } from './local-provider.ts';
import { fuseRanked } from './merge.ts';
import { providersAndKinds, type ResolvedSearchOptions } from './options.ts';
import { scrapeResults } from './scrape-results.ts';
import { timeWindowOf } from './tbs.ts';

/** Services a search runs with: the engine's, plus the web providers the operator configured. */
export interface SearchContext extends EngineContext {
  /** Web search providers (SearXNG …); the store's index is added as the local one. */
  providers?: readonly SearchProvider[];
}

/** A web result; a full Document (plus these fields) when the results were scraped. */
export type SearchResultWeb = {
  url: string;
  title?: string;
  description?: string;
  position: number;
  category?: string;
  metadata?: Partial<DocumentMetadata> & { source: string };
} & Partial<Omit<Document, 'metadata'>>;

/** A news result. */
export interface SearchResultNews {
  title?: string;
  url: string;
  snippet?: string;
  date?: string;
  imageUrl?: string;
  position: number;
  metadata?: { source: string };
}

/** An image result. */
export interface SearchResultImage {
  title?: string;
  imageUrl?: string;
  imageWidth?: number;
  imageHeight?: number;
  url: string;
  position: number;
  metadata?: { source: string };
}

/** What `search()` returns: results by source, and what went wrong on the way. */
export interface SearchResult {
  web?: SearchResultWeb[];
  news?: SearchResultNews[];
  images?: SearchResultImage[];
  warning?: string;
  /** Results returned, and results scraped (for pricing). */
  counts: { results: number; scraped: number };
}

/** Runs a validated search. @throws NOT_CONFIGURED when the request names no available source */
export async function runSearch(
  options: ResolvedSearchOptions,
  context: SearchContext,
): Promise<SearchResult> {
  const warnings: string[] = [];
  const providers = pickProviders(options, context, warnings);
  const signal = AbortSignal.any([
    AbortSignal.timeout(options.timeout),
    ...(context.signal ? [context.signal] : []),
  ]);
  const query = providerQueryOf(options);
  const answers = await Promise.all(
    providers.map((provider) => askWithin(provider, query, signal, warnings)),
  );
  const result: SearchResult = { counts: { results: 0, scraped: 0 } };
  for (const source of providersAndKinds(options).kinds) {
    const fused = fuseRanked(answers.map((answer) => answer[source] ?? []))
      .filter((item) => passesFilters(item, options))
      .filter((item) => !options.ignoreInvalidURLs || isScrapable(item.url))
      .slice(0, options.limit);
    result.counts.results += fused.length;
    shapeInto(result, source, fused);
  }
  const formats = options.scrapeOptions?.formats ?? [];
  if (result.web && formats.length > 0 && options.scrapeOptions) {
    const zeroDataRetention = options.enterprise?.includes('zdr') === true;
    result.counts.scraped = await scrapeResults(
      result.web,
      zeroDataRetention ? { ...options.scrapeOptions, zeroDataRetention } : options.scrapeOptions,
      context,
      signal,
    );
  }
  if (warnings.length > 0) result.warning = warnings.join(' ');
  return result;
}

function pickProviders(
  options: ResolvedSearchOptions,
  context: SearchContext,
  warnings: string[],
): SearchProvider[] {
  const web = (context.providers ?? []).filter((provider) => provider.kind === 'web');
  const index = context.store?.searchIndex;
  // The team's own pages only: the index holds every team's.
  const local = index ? [new LocalSearchProvider(index, context.team ?? defaultTeam)] : [];
  const source = providersAndKinds(options).source ?? (web.length > 0 ? 'web' : 'local');
  if (source === 'web' && web.length === 0) {
    throw new NotConfiguredError(
      'No web search provider is configured: set searxngUrl to a SearXNG instance, or search the built-in index with source: "local"',
    );
  }
  if (source !== 'web' && local.length === 0) {
    if (source === 'local' || web.length === 0) {
      throw new NotConfiguredError(
        'Nothing to search: this store keeps no search index (use the SQLite store) and no web search provider is configured (searxngUrl)',
      );
    }
    warnings.push('This store keeps no search index; only web results are returned.');
  }
  if (source === 'local') return local;
  if (source === 'web') return web;
  return [...local, ...web];
}

function providerQueryOf(options: ResolvedSearchOptions): ProviderQuery {
  const time = timeWindowOf(options.tbs);
  return {
    query: options.query,
    limit: options.limit,
    sources: providersAndKinds(options).kinds,
    categories: options.categories,
    includeDomains: options.includeDomains,
    excludeDomains: options.excludeDomains,
    highlights: options.highlights,
    ...(time ? { time } : {}),
    ...(options.lang ? { lang: options.lang } : {}),
    ...(options.country ? { country: options.country } : {}),
    ...(options.location ? { location: options.location } : {}),
  };
}

/**
 * One provider's answer, or an empty one and a warning. The race with the signal keeps a
 * provider that ignores its signal from holding the search past `timeout`.
 */
async function askWithin(
  provider: SearchProvider,
  query: ProviderQuery,
  signal: AbortSignal,
  warnings: string[],
): Promise<ProviderAnswer> {
  let onAbort: (() => void) | undefined;
  // A rejection nobody awaits once the provider has answered must not be reported as unhandled.
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(new Error('did not answer within the search timeout'));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => undefined);
  try {
    const answer = await Promise.race([provider.search(query, signal), aborted]);
    warnings.push(...(answer.warnings ?? []));
    return answer;
  } catch (error) {
    const reason = signal.aborted
      ? 'it did not answer within the search timeout (raise timeout, or check the provider)'
      : toTrawlError(error).message;
    warnings.push(`Search provider ${provider.name} failed: ${reason}.`);
    return {};
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}

/** Domain filters hold for every provider, whether or not its engines honour `site:`. */
function passesFilters(item: ProviderResult, options: ResolvedSearchOptions): boolean {
  let host: string;
  try {
    host = new URL(item.url).hostname.toLowerCase();
  } catch {
    return !options.ignoreInvalidURLs;
  }
  const onDomain = (domain: string) => host === domain || host.endsWith(`.${domain}`);
  if (options.includeDomains.length > 0 && !options.includeDomains.some(onDomain)) return false;
  return !options.excludeDomains.some(onDomain);
}

function isScrapable(url: string): boolean {
  try {
    parseTargetUrl(url);
    return true;
  } catch {
    return false;
  }
}

function shapeInto(
  result: SearchResult,
  source: ProviderQuery['sources'][number],
  items: ProviderResult[],
): void {
  if (source === 'web') {
    result.web = items.map((item, index) => ({
      url: item.url,
      ...(item.title !== undefined ? { title: item.title } : {}),
      ...(item.description !== undefined ? { description: item.description } : {}),
      position: index + 1,
      ...(item.category !== undefined ? { category: item.category } : {}),
      metadata: { source: item.source },
    }));
  } else if (source === 'news') {
    result.news = items.map((item, index) => ({
      url: item.url,
      ...(item.title !== undefined ? { title: item.title } : {}),
      ...(item.description !== undefined ? { snippet: item.description } : {}),
      ...(item.date !== undefined ? { date: item.date } : {}),
      ...(item.imageUrl !== undefined ? { imageUrl: item.imageUrl } : {}),
      position: index + 1,
      metadata: { source: item.source },
    }));
  } else {
    result.images = items.map((item, index) => ({
      url: item.url,
      ...(item.title !== undefined ? { title: item.title } : {}),
      ...(item.imageUrl !== undefined ? { imageUrl: item.imageUrl } : {}),
      ...(item.imageWidth !== undefined ? { imageWidth: item.imageWidth } : {}),
      ...(item.imageHeight !== undefined ? { imageHeight: item.imageHeight } : {}),
      position: index + 1,
      metadata: { source: item.source },
    }));
  }
}
