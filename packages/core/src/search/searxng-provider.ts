/**
 * SearXNG, the metasearch engine self-hosters run, as a SearchProvider over its JSON API
 * (`GET /search?q=…&format=json`, https://docs.searxng.org/dev/search_api.html). Its engines'
 * failures (`unresponsive_engines`) become a warning naming them, so an empty answer is explained.
 */
import { FetchError } from '../errors.ts';
import type {
  ProviderAnswer,
  ProviderQuery,
  ProviderResult,
  SearchProvider,
  SearchSourceType,
} from '../interfaces/search-provider.ts';
import { dayMs, daysMs } from '../internal/time.ts';

/** Options of `SearxngProvider`. */
export interface SearxngProviderOptions {
  /** Base URL of the instance (`http://127.0.0.1:8888`); `/search` is appended. */
  url: string;
  /**
   * Result pages asked for at most per source, whatever the limit (SearXNG gives 10–20 a page).
   * @default 5
   */
  maxPages?: number;
}

/** One result as SearXNG's JSON API gives it (the fields used here). */
interface SearxngResult {
  url?: string;
  title?: string;
  content?: string;
  engine?: string;
  category?: string;
  publishedDate?: string | null;
  img_src?: string;
  thumbnail_src?: string;
  resolution?: string;
}

/** SearXNG's JSON answer; `error` is what it sends with a 4xx. */
interface SearxngAnswer {
  results?: SearxngResult[];
  unresponsive_engines?: [string, string][];
  error?: string;
}

/** The SearXNG category each result kind is asked in. */
const categoryOfSource: Record<SearchSourceType, string> = {
  web: 'general',
  news: 'news',
  images: 'images',
};

/** The time ranges SearXNG knows, shortest first, with their length. */
const timeRanges = [
  ['day', dayMs],
  ['week', daysMs(7)],
  ['month', daysMs(31)],
  ['year', daysMs(366)],
] as const;

/** Asks a SearXNG instance. */
export class SearxngProvider implements SearchProvider {
  readonly name = 'searxng';
  readonly kind = 'web';
  readonly #endpoint: URL;
  readonly #maxPages: number;

  constructor(options: SearxngProviderOptions) {
    this.#endpoint = new URL('search', options.url.endsWith('/') ? options.url : `${options.url}/`);
    this.#maxPages = options.maxPages ?? 5;
  }

  async search(query: ProviderQuery, signal: AbortSignal): Promise<ProviderAnswer> {
    const answer: ProviderAnswer = {};
    const failedEngines = new Map<string, string>();
    await Promise.all(
      query.sources.map(async (source) => {
        answer[source] = await this.#searchSource(query, source, signal, failedEngines);
      }),
    );
    if (failedEngines.size > 0) {
      const named = [...failedEngines].map(([engine, reason]) => `${engine} (${reason})`);
      answer.warnings = [`SearXNG engines did not answer: ${named.join(', ')}.`];
    }
    return answer;
  }

  async #searchSource(
    query: ProviderQuery,
    source: SearchSourceType,
    signal: AbortSignal,
    failedEngines: Map<string, string>,
  ): Promise<ProviderResult[]> {
    const results: ProviderResult[] = [];
    const seen = new Set<string>();
    for (let page = 1; page <= this.#maxPages && results.length < query.limit; page++) {
      const answer = await this.#get(requestParameters(query, source, page), signal);
      for (const [engine, reason] of answer.unresponsive_engines ?? [])
        failedEngines.set(engine, reason);
      let added = 0;
      for (const raw of answer.results ?? []) {
        const result = resultOf(raw, source);
        if (!result || seen.has(result.url) || !withinTime(result, query.time)) continue;
        seen.add(result.url);
        results.push(result);
        added += 1;
      }
      if (added === 0) break;
    }
    return results.slice(0, query.limit);
  }

  async #get(parameters: URLSearchParams, signal: AbortSignal): Promise<SearxngAnswer> {
    const url = new URL(this.#endpoint);
    url.search = parameters.toString();
    let response: Response;
    try {
      response = await fetch(url, { signal, headers: { accept: 'application/json' } });
    } catch (error) {
      if (signal.aborted) throw error;
      throw new FetchError(`cannot reach SearXNG at ${this.#endpoint.origin} (${causeOf(error)})`, {
        cause: error,
      });
    }
    const text = await response.text();
    const type = response.headers.get('content-type') ?? '';
    let body: SearxngAnswer | undefined;
    if (/json/i.test(type)) {
      try {
        body = JSON.parse(text) as SearxngAnswer;
      } catch {
        body = undefined;
      }
    }
    if (!response.ok) {
      const why = body?.error ?? `HTTP ${response.status}`;
      const hint =
        response.status === 403
          ? ' (is json listed in search.formats of its settings.yml?)'
          : response.status === 429
            ? ' (its limiter refused us: disable server.limiter for Trawl)'
            : '';
      throw new FetchError(`SearXNG answered ${response.status}: ${why}${hint}`);
    }
    if (!body || typeof body !== 'object') {
      throw new FetchError(
        `SearXNG answered ${type.split(';')[0] || 'something'} instead of JSON: add json to search.formats in its settings.yml`,
      );
    }
    return body;
  }
}

/** The query string of one result page. */
function requestParameters(
  query: ProviderQuery,
  source: SearchSourceType,
  page: number,
): URLSearchParams {
  const terms = [query.query];
  const categories = [categoryOfSource[source]];
  if (source === 'web') {
    if (query.categories.includes('github')) terms.push('site:github.com');
    if (query.categories.includes('pdf')) terms.push('filetype:pdf');
    if (query.categories.includes('research')) categories.push('science');
    if (query.categories.includes('developer')) categories.push('it');
  }
  // Engines that know site: narrow at the source; search() filters by domain again after.
  if (query.includeDomains.length === 1) terms.push(`site:${query.includeDomains[0]}`);
  for (const domain of query.excludeDomains) terms.push(`-site:${domain}`);
  const parameters = new URLSearchParams({
    q: terms.join(' '),
    format: 'json',
    categories: categories.join(','),
    pageno: String(page),
  });
  const language = languageOf(query);
  if (language) parameters.set('language', language);
  const range = timeRangeOf(query.time);
  if (range) parameters.set('time_range', range);
  return parameters;
}

/** SearXNG's `language`: a language, or a locale when a country is given (`en-US`). */
function languageOf(query: ProviderQuery): string | undefined {
  if (query.country) return `${query.lang ?? 'en'}-${query.country.toUpperCase()}`;
  return query.lang;
}

/** The shortest SearXNG time range that covers the window (an hour is asked as a day). */
function timeRangeOf(time: ProviderQuery['time']): string | undefined {
  if (!time) return undefined;
  if (time.named && time.named !== 'hour') return time.named;
  if (time.from === undefined) return undefined;
  const span = Date.now() - time.from;
  return timeRanges.find(([, ms]) => span <= ms)?.[0];
}

/** Results dated outside the window are dropped; undated ones are kept (nothing says they are old). */
function withinTime(result: ProviderResult, time: ProviderQuery['time']): boolean {
  if (!time || result.date === undefined) return true;
  const date = Date.parse(result.date);
  if (Number.isNaN(date)) return true;
  return (
    (time.from === undefined || date >= time.from) && (time.to === undefined || date <= time.to)
  );
}

function resultOf(raw: SearxngResult, source: SearchSourceType): ProviderResult | undefined {
  if (typeof raw.url !== 'string' || raw.url === '') return undefined;
  const result: ProviderResult = { url: raw.url, source: raw.engine ?? 'searxng' };
  if (raw.title) result.title = raw.title;
  if (raw.content) result.description = raw.content;
  if (raw.category) result.category = raw.category;
  if (raw.publishedDate) result.date = raw.publishedDate;
  if (source === 'images' || raw.img_src) {
    const image = raw.img_src || raw.thumbnail_src;
    if (image) result.imageUrl = image;
    const size = /(\d+)\s*[x×]\s*(\d+)/.exec(raw.resolution ?? '');
    if (size) {
      result.imageWidth = Number(size[1]);
      result.imageHeight = Number(size[2]);
    }
  }
  return result;
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}
