import type { ActionResults, BrowserAction, CapturedFile } from '../browser/actions.ts';
import type { ProfileState } from '../browser/profiles.ts';
import type { AddressGuardOptions } from '../internal/address-guard.ts';

/**
 * A way of getting a page's bytes: plain HTTP, or a real browser that runs the page's scripts. `scrape()` picks a
 * fetcher per request; everything after the fetch (decoding, cleaning, conversion) is shared.
 */
export interface Fetcher {
  /** Short stable name, recorded in logs and used to pick the fetcher (`'http'`, `'browser'`). */
  readonly name: string;
  /** Fetches one URL. Throws TrawlErrors with stable codes (FETCH_FAILED, SCRAPE_TIMEOUT, …). */
  fetch(request: FetchRequest): Promise<FetchResponse>;
  /** Releases sockets or browsers. Idempotent. */
  close?(): Promise<void>;
  /**
   * How this fetcher's private-address guard is adjusted (resolver, exempt addresses), so that
   * a page the engine answers from its cache instead is judged by the same guard.
   */
  readonly addressGuard?: AddressGuardOptions;
}

/** Everything a fetcher needs to know about one request. */
export interface FetchRequest {
  url: URL;
  /** Request headers, names in lower case; the User-Agent and Accept-Language are already set. */
  headers: Record<string, string>;
  /** Budget for the whole fetch, redirects and body included. */
  timeoutMs: number;
  /** Largest body the fetcher may read. */
  maxBodyBytes: number;
  /**
   * Past `maxBodyBytes`: `'fail'` with CONTENT_TOO_LARGE, or `'truncate'` to keep the first
   * `maxBodyBytes` (decoded) and stop reading, for files whose head is useful alone (robots.txt).
   * @default 'fail'
   */
  overflow?: 'fail' | 'truncate';
  maxRedirects: number;
  /** Accept invalid or self-signed TLS certificates. */
  skipTlsVerification: boolean;
  /** Route the request through this proxy (http:// or https://). */
  proxyUrl?: string;
  /** Refuse private, loopback and link-local targets. */
  blockPrivateAddresses: boolean;
  /** Emulate a mobile device (browser fetchers); HTTP fetchers get a mobile User-Agent header. */
  mobile: boolean;
  signal?: AbortSignal;
  /** What a browser fetcher does besides loading the page; HTTP fetchers ignore it. */
  render?: RenderRequest;
}

/** The browser-only part of a request: waits, actions, captures and stored state. */
export interface RenderRequest {
  /** Wait this long after the page loaded, in ms (`waitFor`). */
  waitForMs: number;
  /** Actions to run after the wait, in order. */
  actions: readonly BrowserAction[];
  /** Take a screenshot after the actions (the `screenshot` format). */
  screenshot?: {
    fullPage: boolean;
    quality?: number | undefined;
    viewport?: { width: number; height: number } | undefined;
  };
  /** Read the page's brand identity from its computed styles (the `branding` format). */
  branding: boolean;
  /** Refuse ad and tracker requests. */
  blockAds: boolean;
  /** Refuse images, media and fonts: faster, when nothing visual is captured. */
  blockMedia: boolean;
  /** Country and languages to emulate (locale, time zone). */
  location?: { country: string; languages?: string[] | undefined } | undefined;
  /** Cookies and local storage to start from (a saved profile). */
  storageState?: ProfileState | undefined;
  /** Return the browser's cookies and local storage after the job (to save the profile). */
  captureStorageState: boolean;
}

/** What a fetcher returns: the final response after redirects, body fully read. */
export interface FetchResponse {
  /** The URL after redirects. */
  url: URL;
  status: number;
  /** Response headers, names in lower case. */
  headers: Record<string, string>;
  body: Uint8Array;
  /** How many redirects were followed. */
  redirects: number;
  /** What a browser fetcher captured besides the page. */
  rendered?: RenderedPage;
}

/** Browser captures of one fetch, files still as bytes. */
export interface RenderedPage {
  screenshot?: CapturedFile;
  actions?: ActionResults;
  branding?: Record<string, unknown>;
  storageState?: ProfileState;
}
