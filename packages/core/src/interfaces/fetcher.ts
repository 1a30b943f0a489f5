/**
 * A way of getting a page's bytes: plain HTTP now, a real browser later. `scrape()` picks a
 * fetcher per request; everything after the fetch (decoding, cleaning, conversion) is shared.
 */
export interface Fetcher {
  /** Short stable name, recorded in logs and used to pick the fetcher (`'http'`, `'browser'`). */
  readonly name: string;
  /** Fetches one URL. Throws TrawlErrors with stable codes (FETCH_FAILED, SCRAPE_TIMEOUT, …). */
  fetch(request: FetchRequest): Promise<FetchResponse>;
  /** Releases sockets or browsers. Idempotent. */
  close?(): Promise<void>;
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
}
