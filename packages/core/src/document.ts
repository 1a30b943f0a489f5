/**
 * The `Document`: what every capability returns for one page or file (the spec's
 * "Parsed document"). All content fields are optional; which are set depends on `formats`.
 */

/** Metadata of a document. Any page meta tag may add a string key. */
export interface DocumentMetadata {
  title?: string;
  description?: string;
  /** The page's declared language (`<html lang>` or content-language). */
  language?: string;
  keywords?: string;
  robots?: string;
  /** Absolute URL of the page's icon. */
  favicon?: string;
  /** The canonical URL the page declares, absolute. */
  canonicalUrl?: string;
  /** The URL as the caller asked for it. */
  sourceURL: string;
  /** The URL after redirects. */
  url: string;
  statusCode: number;
  contentType?: string;
  /** Set for 4xx/5xx answers, whose content is still returned. */
  error?: string;
  numPages?: number;
  totalPages?: number;
  /** A UUID per scrape; later the job id callers give to feedback. */
  scrapeId: string;
  /** `hit` when served from the page cache, `miss` when the cache was consulted but fetched fresh. */
  cacheState?: 'hit' | 'miss';
  /** When the served copy was fetched (ISO 8601), set whenever the cache was considered. */
  cachedAt?: string;
  /**
   * The hosted service's proxy class: always `basic` here (there is no stealth pool). The
   * official SDKs validate this field against `basic | stealth`, so what really carried the
   * request is in `fetchedVia`.
   */
  proxyUsed?: 'basic';
  /** Whether the page was fetched directly or through the configured proxy. */
  fetchedVia?: 'direct' | 'proxy';
  /** The location country the request was made for (`location.country`). */
  country?: string;
  /** Characters set the page was decoded from. */
  charset?: string;
  [key: string]: string | string[] | number | boolean | undefined;
}

/** Results of browser actions. */
export interface DocumentActions {
  screenshots?: string[];
  scrapes?: { url: string; html: string }[];
  javascriptReturns?: { type: string; value: unknown }[];
  pdfs?: string[];
}

/** One scraped or parsed page. */
export interface Document {
  markdown?: string;
  /** Cleaned HTML: what survived cleaning and main-content extraction. */
  html?: string;
  /** The HTML as the server sent it, decoded. */
  rawHtml?: string;
  /** Absolute, deduplicated http(s) links of the page. */
  links?: string[];
  /** Absolute, deduplicated image URLs of the page. */
  images?: string[];
  screenshot?: string;
  summary?: string;
  json?: unknown;
  /** The answer of a `question` (or deprecated `query`) format. */
  answer?: string;
  /** The passages most relevant to a `highlights` query, best first, blank-line separated. */
  highlights?: string;
  /** Values of the `attributes` format's selectors. */
  attributes?: { selector: string; attribute: string; values: string[] }[];
  /** The product the page sells (`product` format; the spec's shape). */
  product?: Record<string, unknown> | object;
  /** The page's menu (`menu` format; the spec's shape). */
  menu?: Record<string, unknown> | object;
  changeTracking?: Record<string, unknown>;
  branding?: Record<string, unknown>;
  actions?: DocumentActions;
  warning?: string;
  metadata: DocumentMetadata;
}
