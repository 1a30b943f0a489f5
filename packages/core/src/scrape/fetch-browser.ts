/**
 * The browser fetcher: loads the page in Chromium (from the BrowserPool), lets its scripts run,
 * waits and runs the actions, then returns the rendered DOM as the body, so that everything after
 * the fetch (decoding, cleaning, conversion) is the same as for an HTTP answer.
 */
import type { BrowserContext, BrowserContextOptions, Page, Response } from 'playwright-core';
import { loadBlocker, type RequestBlocker } from '../browser/adblock.ts';
import { runActions, takeScreenshot } from '../browser/actions.ts';
import { extractBranding } from '../browser/branding.ts';
import { blockedHeader, startGuardProxy, type GuardProxy } from '../browser/guard-proxy.ts';
import { browserLocaleOf } from '../browser/locale.ts';
import { firstLine, type BrowserPool } from '../browser/pool.ts';
import { loadPlaywright } from '../browser/playwright.ts';
import {
  containPage,
  navigationBudget,
  readPageHtml,
  type NavigationBudget,
} from '../browser/page-limits.ts';
import { BlockedUrlError, FetchError, TimeoutError, TrawlError } from '../errors.ts';
import type {
  Fetcher,
  FetchRequest,
  FetchResponse,
  RenderedPage,
  RenderRequest,
} from '../interfaces/fetcher.ts';
import { resolvePublic, type AddressGuardOptions } from '../internal/address-guard.ts';

/** Options of the browser fetcher. */
export interface BrowserFetcherOptions {
  /** Filter lists for `blockAds`. @default Debian's EasyList and EasyPrivacy */
  adblockLists?: readonly string[] | undefined;
  /**
   * Adjusts the private-address guard (when a request blocks private addresses): a resolver to
   * use instead of DNS, and exempt addresses.
   */
  guard?: AddressGuardOptions | undefined;
}

/** The desktop viewport: what the hosted service renders at, and a screenshot's default size. */
export const desktopViewport = { width: 1920, height: 1080 } as const;

/** The phone `mobile: true` emulates; its User-Agent is replaced by the engine's mobile one. */
const phoneName = 'Pixel 7';

/** Headers the engine sets for HTTP that the browser sets itself (or takes as options). */
const browserOwnedHeaders = new Set([
  'user-agent',
  'accept',
  'accept-encoding',
  'sec-ch-ua-mobile',
  'viewport-width',
]);

/** How long to let a page's own requests settle after `load`, at most. */
const settleMs = 2000;
/**
 * Quiet time that counts as settled: no request in flight for this long. Shorter than
 * Playwright's `networkidle` (500 ms), which would put a floor of half a second under every page.
 */
const quietMs = 250;

const noRender: RenderRequest = {
  waitForMs: 0,
  actions: [],
  branding: false,
  blockAds: false,
  blockMedia: true,
  captureStorageState: false,
};

/** Renders pages in Chromium. */
export class BrowserFetcher implements Fetcher {
  readonly name = 'browser';
  readonly pool: BrowserPool;
  readonly #adblockLists: readonly string[] | undefined;
  readonly #guard: AddressGuardOptions;

  get addressGuard(): AddressGuardOptions {
    return this.#guard;
  }

  constructor(pool: BrowserPool, options: BrowserFetcherOptions = {}) {
    this.pool = pool;
    this.#adblockLists = options.adblockLists;
    this.#guard = options.guard ?? {};
  }

  async fetch(request: FetchRequest): Promise<FetchResponse> {
    const render = request.render ?? noRender;
    const deadline = Date.now() + request.timeoutMs;
    if (request.blockPrivateAddresses) await assertPublicTarget(request.url, this.#guard);
    const blocker = render.blockAds ? await loadBlocker(this.#adblockLists) : undefined;
    // Every connection of a guarded context goes through a proxy of its own, which applies the
    // address guard to each one (see browser/guard-proxy.ts); its refusals are this job's alone.
    const proxy = request.blockPrivateAddresses
      ? await startGuardProxy({ ...this.#guard, upstream: request.proxyUrl })
      : undefined;
    try {
      return await this.pool.withPage(
        contextOptionsOf(request, render, proxy, (await loadPlaywright()).devices[phoneName]),
        async ({ page, context }) => {
          const navigations = navigationBudget(page, request.url);
          await routeRequests(context, request, render, blocker, navigations);
          await containPage(context, page);
          return withDeadline(
            renderPage(page, context, request, render, deadline, proxy, navigations),
            deadline,
            request.url,
            request.timeoutMs,
          );
        },
        { signal: request.signal, waitTimeoutMs: Math.max(1, deadline - Date.now()) },
      );
    } finally {
      await proxy?.close();
    }
  }

  /** Closes the pool's browsers. */
  close(): Promise<void> {
    return this.pool.close();
  }
}

function contextOptionsOf(
  request: FetchRequest,
  render: RenderRequest,
  guardProxy: GuardProxy | undefined,
  phone: { viewport: { width: number; height: number }; deviceScaleFactor: number } | undefined,
): BrowserContextOptions {
  const { locale, timezoneId } = browserLocaleOf(render.location);
  const extraHTTPHeaders: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (!browserOwnedHeaders.has(name)) extraHTTPHeaders[name] = value;
  }
  const userAgent = request.headers['user-agent'];
  return {
    ...(request.mobile && phone
      ? {
          viewport: phone.viewport,
          deviceScaleFactor: phone.deviceScaleFactor,
          isMobile: true,
          hasTouch: true,
        }
      : { viewport: desktopViewport, deviceScaleFactor: 1 }),
    ...(userAgent ? { userAgent } : {}),
    locale,
    timezoneId,
    extraHTTPHeaders,
    ignoreHTTPSErrors: request.skipTlsVerification,
    // Service workers would answer requests the routes below never see.
    serviceWorkers: 'block',
    acceptDownloads: false,
    // The guard proxy chains to the request's proxy itself.
    ...(guardProxy
      ? { proxy: guardProxy.contextProxy }
      : request.proxyUrl
        ? { proxy: { server: request.proxyUrl } }
        : {}),
    ...(render.storageState ? { storageState: render.storageState } : {}),
  };
}

/**
 * One route for every request of the context: media when nothing visual is captured, and ads
 * and trackers when `blockAds` is on. Private addresses are the guard proxy's business, which
 * also sees what routes miss (later redirect hops, workers, WebSockets).
 */
async function routeRequests(
  context: BrowserContext,
  request: FetchRequest,
  render: RenderRequest,
  blocker: RequestBlocker | undefined,
  navigations: NavigationBudget,
): Promise<void> {
  const mediaTypes = new Set(['image', 'media', 'font']);
  // Playwright derives Accept-Language from the locale alone: several languages are sent as the
  // HTTP fetcher sends them, weighted.
  const acceptLanguage = request.headers['accept-language'];
  const languages = acceptLanguage?.includes(',') ? acceptLanguage : undefined;
  await context.route('**/*', async (route) => {
    const routed = route.request();
    const type = routed.resourceType();
    try {
      const url = new URL(routed.url());
      if (!navigations.allows(routed)) return await route.abort('blockedbyclient');
      if (render.blockMedia && mediaTypes.has(type)) return await route.abort('blockedbyclient');
      const pageUrl = routed.frame().page().url();
      if (blocker?.blocks(url.href, type, pageUrl === 'about:blank' ? url.href : pageUrl)) {
        return await route.abort('blockedbyclient');
      }
      await (languages
        ? route.continue({ headers: { ...routed.headers(), 'accept-language': languages } })
        : route.continue());
    } catch {
      // The page or context closed while the request was in flight: nothing left to route.
    }
  });
}

async function renderPage(
  page: Page,
  context: BrowserContext,
  request: FetchRequest,
  render: RenderRequest,
  deadline: number,
  guardProxy: GuardProxy | undefined,
  navigations: NavigationBudget,
): Promise<FetchResponse> {
  const remaining = () => Math.max(1, deadline - Date.now());
  const network = watchNetwork(page);
  const refused = guardProxy ? watchRefusals(page, guardProxy) : undefined;
  let response: Response | null;
  try {
    response = await page.goto(request.url.href, { waitUntil: 'load', timeout: remaining() });
  } catch (error) {
    throw refused?.(true) ?? navigations.exceeded() ?? navigationError(error, request);
  }
  const blockedAtLoad = refused?.() ?? navigations.exceeded();
  if (blockedAtLoad) throw blockedAtLoad;
  // Pages fetch their content after `load`: give their requests a moment to settle.
  await network.settled(Math.min(settleMs, remaining()));
  if (render.waitForMs > 0) await page.waitForTimeout(Math.min(render.waitForMs, remaining()));
  const loopedAfterLoad = navigations.exceeded();
  if (loopedAfterLoad) throw loopedAfterLoad;

  const rendered: RenderedPage = {};
  if (render.actions.length > 0)
    rendered.actions = await runActions(page, render.actions, deadline);
  if (render.screenshot) {
    rendered.screenshot = await takeScreenshot(page, render.screenshot, remaining());
  }
  if (render.branding) rendered.branding = await extractBranding(page);
  if (render.captureStorageState) rendered.storageState = await context.storageState();
  // A script or an action may have navigated the page to a refused address since.
  const blockedLater = refused?.();
  if (blockedLater) throw blockedLater;

  const headers = lowerCaseHeaders(response?.headers() ?? {});
  const status = response?.status() ?? 200;
  const contentType = headers['content-type'] ?? '';
  let body: Uint8Array;
  if (response && contentType && !/html|xml/i.test(contentType) && render.actions.length === 0) {
    // A text or JSON answer: its own bytes, not the viewer page Chromium wraps them in.
    body = await response.body();
  } else {
    // The DOM now, serialised: a string, so the charset is UTF-8 whatever the page declared.
    body = new TextEncoder().encode(await readPageHtml(page, request.url, request.maxBodyBytes));
    headers['content-type'] = 'text/html; charset=utf-8';
  }
  return {
    url: new URL(page.url()),
    status,
    headers,
    body,
    redirects: redirectCount(response),
    rendered,
  };
}

/**
 * Whether the page's document was refused by the guard proxy: its last navigation answered with
 * the proxy's refusal, or failed (a refused CONNECT) and left Chromium's error page. Refused
 * sub-resources only go missing from the page.
 */
function watchRefusals(
  page: Page,
  guardProxy: GuardProxy,
): (navigationFailed?: boolean) => BlockedUrlError | undefined {
  let refusedDocument: string | undefined;
  page.on('response', (response) => {
    if (!response.request().isNavigationRequest() || response.frame() !== page.mainFrame()) return;
    refusedDocument = response.headers()[blockedHeader] ? response.url() : undefined;
  });
  return (navigationFailed = false) => {
    const onErrorPage = navigationFailed || page.url().startsWith('chrome-error:');
    if (!refusedDocument && !(onErrorPage && guardProxy.refusals.length > 0)) return undefined;
    const reason = guardProxy.refusals.at(-1) ?? 'a private address';
    return new BlockedUrlError(
      `${onErrorPage || page.url() === 'about:blank' ? 'The page' : page.url()} (or a redirect of it) was refused: ${reason}`,
    );
  };
}

/** Counts the page's requests in flight, from before navigation on. */
function watchNetwork(page: Page): { settled(maxMs: number): Promise<void> } {
  let inFlight = 0;
  let lastChange = Date.now();
  page.on('request', () => {
    inFlight++;
    lastChange = Date.now();
  });
  const done = () => {
    inFlight = Math.max(0, inFlight - 1);
    lastChange = Date.now();
  };
  page.on('requestfinished', done);
  page.on('requestfailed', done);
  return {
    async settled(maxMs) {
      const giveUpAt = Date.now() + maxMs;
      while (Date.now() < giveUpAt) {
        const quietFor = Date.now() - lastChange;
        if (inFlight === 0 && quietFor >= quietMs) return;
        await new Promise((resolve) =>
          setTimeout(resolve, inFlight === 0 ? quietMs - quietFor : 50),
        );
      }
    },
  };
}

function redirectCount(response: Response | null): number {
  let count = 0;
  for (
    let previous = response?.request().redirectedFrom();
    previous;
    previous = previous.redirectedFrom()
  ) {
    count++;
  }
  return count;
}

function lowerCaseHeaders(headers: Record<string, string>): Record<string, string> {
  const lower: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) lower[name.toLowerCase()] = value;
  return lower;
}

/** Chromium's network error names, as the engine's stable codes. */
function navigationError(error: unknown, request: FetchRequest): unknown {
  if (error instanceof TrawlError) return error;
  const message = firstLine(error);
  const target = request.url.href;
  if (/Timeout \d+ms exceeded/.test(message)) {
    return new TimeoutError(
      `Loading ${target} in the browser took longer than the ${request.timeoutMs} ms left: raise timeout or try later`,
      { cause: error },
    );
  }
  if (/ERR_NAME_NOT_RESOLVED/.test(message)) {
    return new FetchError(`${request.url.host} does not resolve (DNS): check the URL`, {
      code: 'SCRAPE_DNS_RESOLUTION_ERROR',
      cause: error,
    });
  }
  if (/ERR_CONNECTION_REFUSED/.test(message)) {
    return new FetchError(`${request.url.host} refused the connection`, {
      code: 'SCRAPE_CONNECTION_REFUSED',
      cause: error,
    });
  }
  if (/ERR_CERT|ERR_SSL/.test(message)) {
    return new FetchError(
      `TLS failed for ${request.url.host} (${message.replace(/^.*(net::\S+).*$/, '$1')}): set skipTlsVerification to accept its certificate`,
      { code: 'SCRAPE_SSL_ERROR', cause: error },
    );
  }
  if (/interrupted by another navigation/.test(message)) {
    return new FetchError(
      `${target} navigated away before it loaded (a script or refresh redirect, perhaps a loop): scrape the page it goes to`,
      { cause: error, retryable: false },
    );
  }
  if (/Download is starting|ERR_ABORTED/.test(message)) {
    return new FetchError(
      `${target} is a download, not a page: scrape it without browser options (actions, waitFor, screenshot) to read the file`,
      { cause: error, retryable: false },
    );
  }
  if (/net::ERR_/.test(message)) {
    return new FetchError(`Loading ${target} in the browser failed: ${message}`, { cause: error });
  }
  return error;
}

/** Races the page's work against the deadline; the caller closes the context on the way out. */
async function withDeadline<T>(
  work: Promise<T>,
  deadline: number,
  url: URL,
  timeoutMs: number,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new TimeoutError(
            `Rendering ${url.href} took longer than ${timeoutMs} ms: raise timeout, or lower waitFor and the waits of actions`,
          ),
        ),
      Math.max(1, deadline - Date.now()),
    );
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
    // A late rejection of the abandoned work must not surface as unhandled.
    work.catch(() => undefined);
  }
}

/**
 * Refuses a private target before a browser is even taken from the pool. Only a courtesy: the
 * guard proxy makes the decision that counts, on the connection itself.
 */
async function assertPublicTarget(url: URL, guard: AddressGuardOptions): Promise<void> {
  try {
    await resolvePublic(url.hostname, guard);
  } catch (error) {
    if (error instanceof BlockedUrlError) {
      throw new BlockedUrlError(
        `${url.href} points to a private or reserved address: ${error.message}`,
        {
          cause: error,
        },
      );
    }
    // An unresolvable name reaches nothing; Chromium reports it as a DNS failure.
  }
}
