/**
 * The scrape engine: picks the fetcher, owns the time budget, the proxy choice and the page
 * cache, and routes the response by content type. Conversion itself is convert.ts.
 */
import { STATUS_CODES } from 'node:http';
import {
  defaultTeam,
  resolveEngineConfig,
  type EngineConfig,
  type EngineContext,
} from '../config.ts';
import type { Document, DocumentMetadata } from '../document.ts';
import {
  FetchError,
  NotConfiguredError,
  NotFoundError,
  TimeoutError,
  TrawlError,
} from '../errors.ts';
import type { CapturedFile } from '../browser/actions.ts';
import { BrowserProfiles } from '../browser/profiles.ts';
import type { Fetcher, FetchResponse, RenderedPage, RenderRequest } from '../interfaces/fetcher.ts';
import { convertByType, toCachedPage } from './body.ts';
import {
  assertCachedPageAllowed,
  cachedPageAllowed,
  fetchedWithCredentials,
  PageCache,
  pageCacheKey,
  type CachedPage,
} from './cache.ts';
import { prepareConversion } from './convert.ts';
import { enrichDocument, recallFormats } from './enrich.ts';
import { defaultFetchers } from './fetchers.ts';
import { formatHandlers, type RenderedFields } from './formats/index.ts';
import { looksJsRendered } from './js-rendered.ts';
import type { ResolvedScrapeOptions } from './options.ts';
import { indexDocument } from './index-document.ts';
import { daysMs } from '../internal/time.ts';
import { withoutUserinfo } from '../internal/url.ts';

const defaultConfig = resolveEngineConfig();
const twoYearsMs = 2 * daysMs(365);

/** A scrape request after validation. */
export interface ScrapeRequest {
  /** The URL as the caller gave it. */
  sourceUrl: string;
  target: URL;
  options: ResolvedScrapeOptions;
  /** The caller set maxAge; lockdown otherwise widens it to two years. */
  hasExplicitMaxAge: boolean;
}

/** What a scrape gives a crawl besides the document. */
export interface ScrapeOutcome {
  document: Document;
  /** Every link of the page (HTML only), when `collectLinks` was asked for. */
  links: string[];
  /** The server's Retry-After, in ms, on a fresh response that carried one. */
  retryAfterMs: number | undefined;
}

/** Runs one scrape. @throws see `scrape()` */
export async function runScrape(request: ScrapeRequest, context: EngineContext): Promise<Document> {
  return (await runScrapeDetailed(request, context, false)).document;
}

/**
 * Pages longer than this are not cached: the store writes an entry as JSON on the thread that
 * answers requests, and a site can send 20 MiB pages (a 4.7 MB page took ~1 s there under load).
 */
const maxCachedChars = 2 * 1024 * 1024;

/** Runs one scrape and keeps what a crawl needs: links and Retry-After. @throws see `scrape()` */
export async function runScrapeDetailed(
  request: ScrapeRequest,
  context: EngineContext,
  collectLinks: boolean,
): Promise<ScrapeOutcome> {
  const { options } = request;
  const config = context.config ?? defaultConfig;
  const startedAt = Date.now();
  const redaction = prepareConversion(options, context.llm !== undefined);
  const fetchers = context.fetchers ?? defaultFetchers(config);
  const browserNeeds = browserNeedsOf(options);
  const fetcher = pickFetcher(browserNeeds, fetchers);
  const proxyPlan = planProxy(options, config);
  const team = context.team ?? defaultTeam;
  // A profile is the team's saved browser state: read before the job, written after it.
  const profiles = options.profile ? new BrowserProfiles(context.store, team) : undefined;
  const render = renderRequestOf(
    options,
    options.profile && profiles ? await profiles.load(options.profile.name) : undefined,
  );
  let rendered: RenderedPage | undefined;
  const warnings: string[] = [];

  const cache = context.store ? new PageCache(context.store, config.pageCacheTtlMs) : undefined;
  const cacheKey = pageCacheKey(team, request.target, options);
  let page: CachedPage | undefined;
  let cacheState: DocumentMetadata['cacheState'];
  let fetchedVia: DocumentMetadata['fetchedVia'];
  let retryAfterMs: number | undefined;
  // The page-cache write runs while the page converts: waiting for its commit first only made
  // each page slower. Its failure still fails the scrape, as before conversion did.
  let cacheWrite: Promise<void> | undefined;

  // The guard a fetch would ask, asked of a cached page too (cache.ts).
  const guard = config.allowPrivateAddresses ? undefined : (fetcher.addressGuard ?? {});
  if (options.lockdown || options.minAge !== undefined) {
    page = await readCacheOnly(request, cache, cacheKey);
    if (guard) await assertCachedPageAllowed(request.target, page, guard);
    cacheState = 'hit';
  } else {
    // Captures (screenshots, action results) and profile pages are never served from the cache.
    // Formats comparing with earlier scrapes (changeTracking) need the live page, as hosted.
    const needsLivePage = options.formats.some(
      (format) => formatHandlers[format.type].needsLivePage,
    );
    if (cache && options.maxAge > 0 && browserNeeds.length === 0 && !needsLivePage) {
      const cached = await cache.get(cacheKey);
      if (
        cached &&
        Date.now() - cached.fetchedAt < options.maxAge &&
        (!guard || (await cachedPageAllowed(request.target, cached, guard)))
      ) {
        page = cached;
        cacheState = 'hit';
      } else {
        cacheState = 'miss';
      }
    }
    if (!page) {
      const fetchWith = (via: Fetcher) =>
        fetchWithProxy(via, request, config, proxyPlan, startedAt, context.signal, render);
      let fetched = await fetchWith(fetcher);
      page = await toCachedPage(fetched.response, request.target, options, startedAt);
      // The automatic HTTP → browser decision: a JavaScript shell is rendered instead.
      const browser = fetchers.find((candidate) => candidate.name === 'browser');
      if (fetcher !== browser && browser && config.autoBrowser && shouldRender(page)) {
        try {
          fetched = await fetchWith(browser);
          page = await toCachedPage(fetched.response, request.target, options, startedAt);
        } catch (error) {
          // The page as served is still an answer; say why it is not the rendered one.
          if (error instanceof TrawlError && error.code !== 'URL_BLOCKED') {
            warnings.push(
              `This page looks rendered by JavaScript, but the browser could not render it (${error.message}); the content is the HTML as served.`,
            );
          } else {
            throw error;
          }
        }
      }
      rendered = fetched.response.rendered;
      fetchedVia = fetched.fetchedVia;
      retryAfterMs = parseRetryAfter(fetched.response.headers['retry-after']);
      if (options.profile?.saveChanges && profiles && rendered?.storageState) {
        await profiles.save(options.profile.name, rendered.storageState);
      }
      const mayStore =
        options.storeInCache &&
        !fetchedWithCredentials(options, request.target) &&
        !options.zeroDataRetention &&
        !page.partial &&
        page.status < 300 &&
        page.text.length <= maxCachedChars;
      if (cache && mayStore) {
        cacheWrite = cache.put(
          cacheKey,
          guard ? { ...page, team, guarded: true } : { ...page, team },
        );
        // Awaited below; until then a rejection must not count as unhandled.
        cacheWrite.catch(() => undefined);
      }
    }
  }

  // Where the page ended up may be outside what the caller may read: refused before conversion.
  const refusal = context.refusePage?.(page.url);
  if (refusal !== undefined) throw new TrawlError('CRAWL_URL_DENIED', refusal);

  // A password in the URL opened this fetch; it is neither echoed nor kept with the document.
  const metadata: DocumentMetadata = {
    sourceURL: withoutUserinfo(request.sourceUrl),
    url: withoutUserinfo(page.url),
    statusCode: page.status,
    scrapeId: crypto.randomUUID(),
    charset: page.charset,
  };
  if (page.contentType) metadata.contentType = page.contentType;
  if (page.status >= 400) metadata.error = `${page.status} ${STATUS_CODES[page.status] ?? 'Error'}`;
  if (cacheState) {
    metadata.cacheState = cacheState;
    metadata.cachedAt = new Date(page.fetchedAt).toISOString();
  }
  if (fetchedVia) {
    metadata.proxyUsed = 'basic';
    metadata.fetchedVia = fetchedVia;
  }
  if (options.location) metadata.country = options.location.country;
  if (page.numPages !== undefined) metadata.numPages = page.numPages;

  // Conversion is synchronous and, on a huge page, takes seconds: do not start it past the budget.
  if (Date.now() - startedAt > options.timeout) {
    throw new TimeoutError(
      `Scraping ${request.target.href} took longer than ${options.timeout} ms before conversion: raise timeout or try later`,
    );
  }
  let converted: Awaited<ReturnType<typeof convertByType>>;
  try {
    converted = await convertByType(page, options, redaction, collectLinks, {
      threads: config.convertThreads,
      deadline: startedAt + options.timeout,
    });
  } finally {
    await cacheWrite;
  }
  const { content, pageMetadata, links, llmText, warning } = converted;
  const document: Document = { ...content, metadata: { ...pageMetadata, ...metadata } };
  if (rendered) await applyRendered(rendered, document, options, context);
  if (rendered?.screenshot?.warning) warnings.push(rendered.screenshot.warning);
  if (page.warning) warnings.unshift(page.warning);
  if (warning) warnings.push(warning);
  if (warnings.length > 0) document.warning = warnings.join(' ');
  await enrichDocument(document, options, llmText ?? page.text, context, config);
  await recallFormats(document, options, context);
  await indexDocument(context.store, document, { team, target: request.target, options });
  return {
    document,
    links: links ?? [],
    retryAfterMs,
  };
}

/** Retry-After as seconds or an HTTP date, in ms from now; undefined when absent or unreadable. */
function parseRetryAfter(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** The HTTP fetcher of a context (the shared default when it names none): robots.txt, sitemaps. */
export function httpFetcherOf(context: EngineContext): Fetcher {
  const fetchers = context.fetchers ?? defaultFetchers(context.config ?? defaultConfig);
  const http = fetchers.find((fetcher) => fetcher.name === 'http') ?? fetchers[0];
  if (!http)
    throw new NotConfiguredError('No fetcher is configured: pass at least one in context.fetchers');
  return http;
}

/** The options of a request that only a browser can serve, by name. */
function browserNeedsOf(options: ResolvedScrapeOptions): string[] {
  return [
    options.actions?.length ? 'actions' : undefined,
    options.waitFor > 0 ? 'waitFor' : undefined,
    options.profile ? 'profile' : undefined,
    ...options.formats
      .filter((format) => formatHandlers[format.type].render !== undefined)
      .map((format) => `the ${format.type} format`),
  ].filter((need): need is string => need !== undefined);
}

function pickFetcher(browserNeeds: readonly string[], fetchers: readonly Fetcher[]): Fetcher {
  if (browserNeeds.length > 0) {
    const browser = fetchers.find((fetcher) => fetcher.name === 'browser');
    if (browser) return browser;
    throw new NotConfiguredError(
      `${browserNeeds.join(', ')} need the browser engine, and the fetchers of this call include none named 'browser': add a BrowserFetcher to context.fetchers, or remove ${browserNeeds.length > 1 ? 'them' : 'it'} from the request`,
      {
        details: browserNeeds.map((need) => ({
          path: [need.replace(/^the (\w+) format$/, 'formats')],
          message: 'needs the browser engine',
        })),
      },
    );
  }
  const http = fetchers.find((fetcher) => fetcher.name === 'http') ?? fetchers[0];
  if (!http)
    throw new NotConfiguredError('No fetcher is configured: pass at least one in context.fetchers');
  return http;
}

/** What the browser is asked to do for these options (ignored when the page is fetched over HTTP). */
function renderRequestOf(
  options: ResolvedScrapeOptions,
  storageState: RenderRequest['storageState'],
): RenderRequest {
  const render: RenderRequest = {
    waitForMs: options.waitFor,
    actions: options.actions ?? [],
    branding: false,
    blockAds: options.blockAds,
    blockMedia: true,
    location: options.location,
    storageState,
    captureStorageState: options.profile?.saveChanges ?? false,
  };
  for (const format of options.formats)
    Object.assign(render, formatHandlers[format.type].render?.(format));
  // Images and fonts are only worth loading when something visual is captured.
  render.blockMedia =
    !render.screenshot &&
    !render.branding &&
    !render.actions.some((action) => action.type === 'screenshot' || action.type === 'pdf');
  return render;
}

/**
 * A JavaScript shell is small; a page of megabytes with little visible text is something else (a
 * site's JSON-LD of a million offers), and the browser's protocol would carry it back through the
 * thread that answers requests.
 */
const maxShellChars = 1024 * 1024;

/** A served page that is a JavaScript shell (HTML only; documents and text are what they are). */
function shouldRender(page: CachedPage): boolean {
  if (page.parsedFrom || page.text.length > maxShellChars) return false;
  const mime = (page.contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (mime !== '' && mime !== 'text/html' && mime !== 'application/xhtml+xml') return false;
  return looksJsRendered(page.text);
}

/** Puts the browser's captures on the document: files as URLs (server) or data URIs. */
async function applyRendered(
  rendered: RenderedPage,
  document: Document,
  options: ResolvedScrapeOptions,
  context: EngineContext,
): Promise<void> {
  const link = (file: CapturedFile) =>
    context.media
      ? context.media.save(file.bytes, file.contentType)
      : Promise.resolve(
          `data:${file.contentType};base64,${Buffer.from(file.bytes).toString('base64')}`,
        );
  const fields: RenderedFields = {};
  if (rendered.screenshot) fields.screenshot = await link(rendered.screenshot);
  if (rendered.branding) fields.branding = rendered.branding;
  for (const format of options.formats)
    formatHandlers[format.type].applyRendered?.(fields, document);
  if (rendered.actions) {
    document.actions = {
      screenshots: await Promise.all(rendered.actions.screenshots.map(link)),
      scrapes: rendered.actions.scrapes,
      javascriptReturns: rendered.actions.javascriptReturns,
      pdfs: await Promise.all(rendered.actions.pdfs.map(link)),
    };
  }
}

/** Where the request goes: direct, through the proxy, or direct with the proxy as fallback. */
type ProxyPlan = {
  first: 'direct' | 'basic';
  fallbackProxyUrl: string | undefined;
  proxyUrl: string | undefined;
};

function planProxy(options: ResolvedScrapeOptions, config: EngineConfig): ProxyPlan {
  switch (options.proxy) {
    case 'basic':
      if (!config.proxyUrl) {
        throw new NotConfiguredError(
          "proxy 'basic' needs a proxy URL: set proxyUrl in the engine config, or use proxy 'auto'",
        );
      }
      return { first: 'basic', fallbackProxyUrl: undefined, proxyUrl: config.proxyUrl };
    case 'auto':
      return { first: 'direct', fallbackProxyUrl: config.proxyUrl, proxyUrl: undefined };
    default:
      throw new NotConfiguredError(
        `proxy '${options.proxy}' needs a residential or stealth proxy network, which a self-hosted Trawl does not have: use 'basic' with a configured proxy URL, or 'auto'`,
        {
          code: 'CAPABILITY_UNAVAILABLE',
          details: [{ path: ['proxy'], message: 'not available' }],
        },
      );
  }
}

// Answers that usually mean "blocked from here": worth one more try through the proxy.
const blockedStatuses = new Set([403, 407, 429, 503]);

async function fetchWithProxy(
  fetcher: Fetcher,
  request: ScrapeRequest,
  config: EngineConfig,
  plan: ProxyPlan,
  startedAt: number,
  signal: AbortSignal | undefined,
  render: RenderRequest,
): Promise<{ response: FetchResponse; fetchedVia: 'direct' | 'proxy' }> {
  const attempt = (proxyUrl: string | undefined) => {
    const remainingMs = request.options.timeout - (Date.now() - startedAt);
    if (remainingMs <= 0) {
      throw new TimeoutError(
        `Scraping ${request.target.href} took longer than ${request.options.timeout} ms: raise timeout or try later`,
      );
    }
    return fetcher.fetch({
      url: request.target,
      headers: buildHeaders(request.options, config),
      timeoutMs: remainingMs,
      maxBodyBytes: config.maxBodyBytes,
      maxRedirects: config.maxRedirects,
      skipTlsVerification: request.options.skipTlsVerification ?? !request.options.headers,
      ...(proxyUrl ? { proxyUrl } : {}),
      blockPrivateAddresses: !config.allowPrivateAddresses,
      mobile: request.options.mobile,
      ...(signal ? { signal } : {}),
      render,
    });
  };
  if (plan.first === 'basic')
    return { response: await attempt(plan.proxyUrl), fetchedVia: 'proxy' };
  try {
    const response = await attempt(undefined);
    if (plan.fallbackProxyUrl && blockedStatuses.has(response.status)) {
      return { response: await attempt(plan.fallbackProxyUrl), fetchedVia: 'proxy' };
    }
    return { response, fetchedVia: 'direct' };
  } catch (error) {
    if (plan.fallbackProxyUrl && error instanceof FetchError && error.retryable) {
      return { response: await attempt(plan.fallbackProxyUrl), fetchedVia: 'proxy' };
    }
    throw error;
  }
}

function buildHeaders(
  options: ResolvedScrapeOptions,
  config: EngineConfig,
): Record<string, string> {
  const headers: Record<string, string> = {
    'user-agent': options.mobile ? config.mobileUserAgent : config.userAgent,
    accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
    'accept-language': acceptLanguage(options.location?.languages),
    'accept-encoding': 'gzip, deflate, br, zstd',
  };
  if (options.mobile) {
    // Client hints: servers that pick a layout by hint rather than by User-Agent.
    headers['sec-ch-ua-mobile'] = '?1';
    headers['viewport-width'] = '390';
  }
  for (const [name, value] of Object.entries(options.headers ?? {}))
    headers[name.toLowerCase()] = value;
  return headers;
}

function acceptLanguage(languages: readonly string[] | undefined): string {
  if (!languages?.length) return 'en-US,en;q=0.9';
  // Each later language gets a lower weight, as browsers send them.
  return languages
    .map((language, index) =>
      index === 0 ? language : `${language};q=${Math.max(0.1, 1 - index * 0.1).toFixed(1)}`,
    )
    .join(',');
}

async function readCacheOnly(
  request: ScrapeRequest,
  cache: PageCache | undefined,
  key: string,
): Promise<CachedPage> {
  const { options } = request;
  const code = options.lockdown ? 'SCRAPE_LOCKDOWN_CACHE_MISS' : 'SCRAPE_NO_CACHED_DATA';
  if (!cache) {
    throw new NotFoundError(
      `No cached copy of ${request.sourceUrl}: no page cache is configured (pass a store)`,
      { code },
    );
  }
  const cached = await cache.get(key);
  const ageMs = cached ? Date.now() - cached.fetchedAt : undefined;
  const maxAgeMs = options.lockdown && !request.hasExplicitMaxAge ? twoYearsMs : options.maxAge;
  if (
    cached &&
    ageMs !== undefined &&
    (options.minAge === undefined || ageMs >= options.minAge) &&
    (!options.lockdown || ageMs < maxAgeMs || maxAgeMs === 0)
  ) {
    return cached;
  }
  const why = options.lockdown
    ? 'lockdown serves only cached pages'
    : `minAge asks for a copy at least ${options.minAge} ms old`;
  throw new NotFoundError(
    `No cached copy of ${request.sourceUrl} matches: ${why}. Scrape it without ${options.lockdown ? 'lockdown' : 'minAge'} first.`,
    { code },
  );
}
