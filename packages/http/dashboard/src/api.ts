/**
 * The app's one way to the server: the /v2 API, exactly as the SDKs call it. The key the user
 * signs in with is kept in sessionStorage (this tab only, gone when it closes) and sent as
 * `Authorization: Bearer`; nothing rides on cookies, so another site cannot make the browser
 * act for the user. A keyless server (loopback only) needs no key at all.
 */

const keyItem = 'trawl.apiKey';

/** An error answer of the API, with its status and the body's `error` text. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  constructor(status: number, message: string, code?: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** The key of this tab's session, or undefined when signed out (or keyless). */
export function storedKey(): string | undefined {
  return sessionStorage.getItem(keyItem) ?? undefined;
}

/** Keeps `key` for this tab; undefined forgets it. */
export function storeKey(key: string | undefined): void {
  if (key === undefined) sessionStorage.removeItem(keyItem);
  else sessionStorage.setItem(keyItem, key);
}

/** This server's address, as the copied SDK code points at it. */
export const apiUrl = (): string => location.origin;

/** Calls the API with this tab's key (or `key`); resolves with the JSON body of a 200. */
export async function api<T = Record<string, unknown>>(
  method: string,
  path: string,
  body?: unknown,
  key: string | undefined = storedKey(),
): Promise<T> {
  const headers: Record<string, string> = {};
  if (key) headers['authorization'] = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path, {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    // Never send or store cookies: the key is the only credential.
    credentials: 'omit',
  });
  const text = await response.text();
  let answer: Record<string, unknown>;
  try {
    answer = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    throw new ApiError(response.status, `The server answered ${response.status} without JSON`);
  }
  if (!response.ok || answer['success'] === false) {
    const message = typeof answer['error'] === 'string' ? answer['error'] : response.statusText;
    const code = typeof answer['code'] === 'string' ? answer['code'] : undefined;
    throw new ApiError(response.status, message || `HTTP ${response.status}`, code);
  }
  return answer as T;
}

/**
 * The SDK's watcher: a WebSocket on the job's own path, with the key as its only subprotocol
 * (a browser WebSocket cannot send headers).
 */
export function openWatcher(path: string): WebSocket {
  const url = new URL(path, location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  const key = storedKey();
  return key ? new WebSocket(url, key) : new WebSocket(url);
}

/** A readable message of anything thrown. */
export const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);
