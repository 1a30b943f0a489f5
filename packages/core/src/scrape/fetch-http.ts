/**
 * The HTTP fetcher, on undici. Redirects are followed here rather than by undici, so that each
 * hop is counted, checked against the private-address rule and bounded by the same deadline.
 */
import { lookup as dnsLookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, ProxyAgent, request, type Dispatcher } from 'undici';
import {
  BlockedUrlError,
  FetchError,
  TimeoutError,
  TrawlError,
  ValidationError,
} from '../errors.ts';
import type { Fetcher, FetchRequest, FetchResponse } from '../interfaces/fetcher.ts';
import {
  assertPublicUrl,
  guardedLookup,
  resolvePublic,
  type AddressGuardOptions,
} from '../internal/address-guard.ts';
import { deadlineOrSignal, startDeadline } from '../internal/deadline.ts';
import { bytes, decodeContent, tooLarge } from './content-coding.ts';

const redirectStatuses = new Set([301, 302, 303, 307, 308]);

/** Options of the HTTP fetcher. */
export interface HttpFetcherOptions {
  /**
   * Fixed addresses for host names, used instead of DNS (as curl's `--resolve`): a site under
   * test, a staging host, or names that only exist on this machine. Keys are host names in
   * lower case, values IPv4 or IPv6 literals. The private-address rule still applies to them.
   */
  hostAddresses?: Readonly<Record<string, string>>;
  /**
   * Adjusts the private-address guard (when a request blocks private addresses): a resolver to
   * use instead of DNS, and exempt addresses.
   */
  guard?: AddressGuardOptions;
}

/** Plain HTTP(S) fetching with connection reuse. */
export class HttpFetcher implements Fetcher {
  readonly name = 'http';
  // One dispatcher per distinct transport setting, kept for connection reuse across pages.
  readonly #dispatchers = new Map<string, Dispatcher>();
  readonly #hostAddresses: ReadonlyMap<string, string>;
  readonly #guard: AddressGuardOptions;

  get addressGuard(): AddressGuardOptions {
    return this.#guard;
  }

  constructor(options: HttpFetcherOptions = {}) {
    const entries = Object.entries(options.hostAddresses ?? {});
    for (const [host, address] of entries) {
      if (!isIP(address)) {
        throw new ValidationError(
          `hostAddresses['${host}'] must be an IP address, not '${address}'`,
          { details: [{ path: ['hostAddresses', host], message: 'not an IP address' }] },
        );
      }
    }
    this.#hostAddresses = new Map(entries.map(([host, address]) => [host.toLowerCase(), address]));
    this.#guard = options.guard ?? {};
  }

  async fetch(fetchRequest: FetchRequest): Promise<FetchResponse> {
    const deadline = startDeadline(fetchRequest.timeoutMs);
    try {
      return await this.#fetchWithin(
        fetchRequest,
        deadline.signal,
        deadlineOrSignal(deadline, fetchRequest.signal),
      );
    } finally {
      deadline.release();
    }
  }

  /** Every hop and the body, within `deadline` (aborting `signal` too). */
  async #fetchWithin(
    fetchRequest: FetchRequest,
    deadline: AbortSignal,
    signal: AbortSignal,
  ): Promise<FetchResponse> {
    let url = fetchRequest.url;
    for (let redirects = 0; ; redirects++) {
      // Sockets skip the lookup for IP literals, so each hop's literal is checked here; names
      // are checked by the lookup the socket calls (see #dispatcherFor).
      if (fetchRequest.blockPrivateAddresses) await this.#assertReachable(url, fetchRequest);
      const response = await this.#send(url, fetchRequest, signal);
      const location = response.headers['location'];
      if (redirectStatuses.has(response.statusCode) && location) {
        // Drain so the connection can be reused.
        await response.body.dump().catch(() => undefined);
        if (redirects >= fetchRequest.maxRedirects) {
          throw new FetchError(
            `Too many redirects (more than ${fetchRequest.maxRedirects}) starting at ${fetchRequest.url.href}`,
            {
              retryable: false,
            },
          );
        }
        url = new URL(location, url);
        if (url.protocol !== 'http:' && url.protocol !== 'https:') {
          throw new FetchError(`Redirect to an unsupported URL: ${url.href}`, { retryable: false });
        }
        continue;
      }
      const truncate = fetchRequest.overflow === 'truncate';
      const raw = await readBody(
        response,
        fetchRequest.maxBodyBytes,
        url,
        signal,
        deadline,
        fetchRequest.timeoutMs,
        truncate,
      );
      const headers = flattenHeaders(response.headers);
      const body = await decodeContent(
        raw,
        headers['content-encoding'],
        url,
        fetchRequest.maxBodyBytes,
        truncate,
      );
      return { url, status: response.statusCode, headers, body, redirects };
    }
  }

  /**
   * Refuses a hop to a private address. Direct connections are checked again by the socket's
   * lookup; through a proxy, the proxy resolves the name, so our own resolution is the best check
   * there is (a name we cannot resolve is left to the proxy).
   */
  async #assertReachable(url: URL, fetchRequest: FetchRequest): Promise<void> {
    assertPublicUrl(url, this.#guard);
    if (!fetchRequest.proxyUrl) return;
    await resolvePublic(url.hostname, this.#guard).catch((error: unknown) => {
      if (error instanceof BlockedUrlError) throw error;
    });
  }

  async close(): Promise<void> {
    const dispatchers = [...this.#dispatchers.values()];
    this.#dispatchers.clear();
    await Promise.all(dispatchers.map((dispatcher) => dispatcher.close()));
  }

  async #send(
    url: URL,
    fetchRequest: FetchRequest,
    signal: AbortSignal,
    isRetry = false,
  ): Promise<Dispatcher.ResponseData> {
    try {
      return await request(url, {
        method: 'GET',
        headers: fetchRequest.headers,
        signal,
        dispatcher: this.#dispatcherFor(fetchRequest),
        // Our own deadline covers headers and body; undici's per-phase timers would fire first
        // on slow pages with long budgets.
        headersTimeout: fetchRequest.timeoutMs,
        bodyTimeout: fetchRequest.timeoutMs,
      });
    } catch (error) {
      // A pooled keep-alive socket the server closed meanwhile fails before any response; a GET
      // is safe to send once more on a fresh connection.
      if (!isRetry && !signal.aborted && errorCodesOf(error).includes('UND_ERR_SOCKET')) {
        return this.#send(url, fetchRequest, signal, true);
      }
      throw toFetchError(error, url, signal, fetchRequest.timeoutMs);
    }
  }

  #dispatcherFor(fetchRequest: FetchRequest): Dispatcher {
    const key = `${fetchRequest.proxyUrl ?? ''}|${fetchRequest.skipTlsVerification}|${fetchRequest.blockPrivateAddresses}`;
    let dispatcher = this.#dispatchers.get(key);
    if (dispatcher) return dispatcher;
    const tls = { rejectUnauthorized: !fetchRequest.skipTlsVerification };
    const base = this.#guard.lookup ?? dnsLookup;
    const resolve =
      this.#hostAddresses.size > 0 ? overriddenLookup(this.#hostAddresses, base) : base;
    // The socket's own lookup is the check: the address checked is the address connected to.
    const lookup = fetchRequest.blockPrivateAddresses
      ? guardedLookup({ ...this.#guard, lookup: resolve })
      : resolve;
    const connect = { ...tls, lookup };
    dispatcher = fetchRequest.proxyUrl
      ? new ProxyAgent({ uri: fetchRequest.proxyUrl, requestTls: connect })
      : new Agent({ connect });
    this.#dispatchers.set(key, dispatcher);
    return dispatcher;
  }
}

async function readBody(
  response: Dispatcher.ResponseData,
  maxBytes: number,
  url: URL,
  signal: AbortSignal,
  deadline: AbortSignal,
  timeoutMs: number,
  truncate: boolean,
): Promise<Uint8Array> {
  const declared = Number(response.headers['content-length']);
  if (!truncate && Number.isFinite(declared) && declared > maxBytes) {
    discard(response.body);
    throw tooLarge(url, maxBytes, `is ${bytes(declared)}`, declared);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      if (total + chunk.length > maxBytes) {
        discard(response.body);
        if (!truncate)
          throw tooLarge(
            url,
            maxBytes,
            `sent more than that (reading stopped at ${bytes(total + chunk.length)})`,
          );
        chunks.push(chunk.subarray(0, maxBytes - total));
        total = maxBytes;
        break;
      }
      total += chunk.length;
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof TrawlError) throw error;
    throw toFetchError(error, url, signal.aborted ? signal : deadline, timeoutMs);
  }
  return Buffer.concat(chunks, total);
}

/**
 * Stops reading a body that will not be used. Destroying an undici body that has not ended
 * makes it emit 'error' (RequestAbortedError); with no listener that error would end the
 * process, so it is expected here and dropped.
 */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

function flattenHeaders(headers: Dispatcher.ResponseData['headers']): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined)
      flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

const tlsCodes =
  /^(?:ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|ERR_OSSL_|EPROTO)/;

/** Maps what undici or the socket threw to a typed error with a code a caller can act on. */
function toFetchError(
  error: unknown,
  url: URL,
  signal: AbortSignal,
  timeoutMs: number,
): TrawlError {
  if (error instanceof TrawlError) return error;
  const codes = errorCodesOf(error);
  if (signal.aborted) {
    const reason: unknown = signal.reason;
    if (reason instanceof Error && reason.name === 'TimeoutError') {
      return new TimeoutError(
        `Fetching ${url.href} took longer than ${timeoutMs} ms: raise timeout or try later`,
        { cause: error },
      );
    }
    return new FetchError(`Fetching ${url.href} was cancelled`, { cause: error, retryable: false });
  }
  if (
    codes.some(
      (code) =>
        code === 'UND_ERR_HEADERS_TIMEOUT' ||
        code === 'UND_ERR_BODY_TIMEOUT' ||
        code === 'UND_ERR_CONNECT_TIMEOUT' ||
        code === 'ETIMEDOUT',
    )
  ) {
    return new TimeoutError(`Fetching ${url.href} timed out: raise timeout or try later`, {
      cause: error,
    });
  }
  if (
    codes.some(
      (code) =>
        code === 'ENOTFOUND' ||
        code === 'EAI_AGAIN' ||
        code === 'EAI_NONAME' ||
        code === 'EAI_NODATA',
    )
  ) {
    return new FetchError(`The host ${url.hostname} could not be resolved (DNS): check the URL`, {
      code: 'SCRAPE_DNS_RESOLUTION_ERROR',
      cause: error,
    });
  }
  if (codes.includes('ECONNREFUSED')) {
    return new FetchError(
      `${url.host} refused the connection: is the server up and the port right?`,
      {
        code: 'SCRAPE_CONNECTION_REFUSED',
        cause: error,
      },
    );
  }
  if (codes.some((code) => tlsCodes.test(code))) {
    return new FetchError(
      `TLS failed for ${url.host} (${codes.find((code) => tlsCodes.test(code))}): the certificate is not trusted; set skipTlsVerification to accept it`,
      {
        code: 'SCRAPE_SSL_ERROR',
        cause: error,
        retryable: false,
      },
    );
  }
  if (codes.includes('URL_BLOCKED')) {
    // The guard's own refusal (thrown in the socket's lookup) names the address and its range.
    return (
      blockedCause(error) ??
      new BlockedUrlError(
        `${url.host} resolves to a private address, which may not be fetched while allowPrivateAddresses is off`,
        {
          cause: error,
        },
      )
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new FetchError(`Fetching ${url.href} failed: ${message}`, { cause: error });
}

function blockedCause(error: unknown): BlockedUrlError | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth++) {
    if (current instanceof BlockedUrlError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function errorCodesOf(error: unknown): string[] {
  const codes: string[] = [];
  for (let current: unknown = error, depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    if (current instanceof AggregateError) {
      for (const inner of current.errors) codes.push(...errorCodesOf(inner));
    }
    current = (current as { cause?: unknown }).cause;
  }
  return codes;
}

/** DNS (or the given resolver), except for the host names given fixed addresses. */
function overriddenLookup(
  addresses: ReadonlyMap<string, string>,
  resolve: LookupFunction,
): LookupFunction {
  return (hostname, options, callback) => {
    const fixed = addresses.get(hostname.toLowerCase());
    if (fixed === undefined) return resolve(hostname, options, callback);
    const family = isIP(fixed);
    if (options.all) callback(null, [{ address: fixed, family }]);
    else callback(null, fixed, family);
  };
}
