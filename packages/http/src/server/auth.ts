/**
 * API keys and teams. Keys are kept only as SHA-256 hashes; a request's key is hashed and looked
 * up. With no key configured the server is keyless: every request belongs to team `default`
 * (the official SDK then sends no Authorization header at all).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { defaultTeam, scanStore, ValidationError, type Store } from '@trawl/core';

/** The team every request belongs to on a keyless server, and of a bare key: core's default. */
export { defaultTeam };

const hashOf = (key: string): Buffer => createHash('sha256').update(key).digest();

/** Namespace of the keys `trawl keys create` makes: hash → {@link StoredKey}. */
const keysNamespace = 'api-keys';

/** What the store keeps of a key: never the key itself. */
export interface StoredKey {
  team: string;
  createdAt: string;
  /** The first characters, to tell keys apart in a list. */
  prefix: string;
}

/** Makes a new key for `team`, stores its hash, and returns the key (shown once). */
export async function createApiKey(store: Store, team: string): Promise<string> {
  if (!/^[\w.-]{1,64}$/.test(team))
    throw new ValidationError(
      `a team name is 1–64 letters, digits, '.', '_' or '-' (got '${team}')`,
    );
  const key = `fc-${randomBytes(24).toString('base64url')}`;
  const stored: StoredKey = { team, createdAt: new Date().toISOString(), prefix: key.slice(0, 8) };
  await store.set(keysNamespace, hashOf(key).toString('hex'), stored);
  return key;
}

/** Every stored key (without the keys), oldest first. */
export async function listApiKeys(store: Store): Promise<StoredKey[]> {
  const keys: StoredKey[] = [];
  for await (const { value } of scanStore<StoredKey>(store, keysNamespace)) keys.push(value);
  return keys.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/**
 * Removes the stored key shown with `prefix` (or the whole key) and resolves with what the store
 * kept of it, undefined when none matched. Two keys sharing a prefix are named in the refusal
 * rather than both removed by surprise.
 * @throws BAD_REQUEST when the prefix is ambiguous
 */
export async function revokeApiKey(store: Store, prefix: string): Promise<StoredKey | undefined> {
  const matches: { hash: string; value: StoredKey }[] = [];
  for await (const { key: hash, value } of scanStore<StoredKey>(store, keysNamespace))
    if (value.prefix === prefix || (prefix.length >= 8 && hashOf(prefix).toString('hex') === hash))
      matches.push({ hash, value });
  if (matches.length > 1)
    throw new ValidationError(
      `${matches.length} keys start with '${prefix}' (teams ${matches.map((m) => m.value.team).join(', ')}): give the whole key`,
    );
  const [match] = matches;
  if (match) await store.delete(keysNamespace, match.hash);
  return match?.value;
}

/**
 * How long a running server trusts its copy of the stored keys: `trawl keys create` and `trawl keys
 * revoke` write the store, often from another process, and take effect within this time.
 */
const storedKeysFreshMs = 5_000;

/** The server's keys: which team a presented key belongs to. */
export class ApiKeys {
  readonly #configured = new Map<string, string>();
  #stored = new Map<string, string>();
  #store: Store | undefined;
  #readAt = 0;
  #reading: Promise<void> | undefined;
  /**
   * Once a key was seen, the server stays keyed: revoking the last key must not open a server
   * (perhaps one listening beyond loopback) to every caller. It then refuses every call.
   */
  #keyed = false;

  /** The keys of `TRAWL_API_KEYS` and those `trawl keys create` stored (re-read by `fresh()`). */
  static async load(store: Store, spec: string | undefined): Promise<ApiKeys> {
    const keys = ApiKeys.parse(spec);
    keys.#store = store;
    await keys.#readStored();
    return keys;
  }

  /**
   * Re-reads the stored keys, in the background, when the copy is older than a few seconds, so a
   * key revoked or made while the server runs counts without a restart and no request waits for
   * the read. One read at a time; a store that fails keeps the last copy (the request then fails
   * on the store elsewhere, with its own error).
   */
  fresh(): this {
    if (this.#store && !this.#reading && Date.now() - this.#readAt >= storedKeysFreshMs) {
      this.#reading = this.#readStored()
        .catch(() => {})
        .finally(() => (this.#reading = undefined));
    }
    return this;
  }

  async #readStored(): Promise<void> {
    const stored = new Map<string, string>();
    for await (const { key: hash, value } of scanStore<StoredKey>(this.#store!, keysNamespace))
      stored.set(hash, value.team);
    this.#stored = stored;
    this.#readAt = Date.now();
    if (stored.size > 0) this.#keyed = true;
  }

  /**
   * Reads `TRAWL_API_KEYS`: comma-separated entries, each a bare key (team `default`) or
   * `team:key`. @throws BAD_REQUEST for an empty entry or a team without a key.
   */
  static parse(spec: string | undefined): ApiKeys {
    const keys = new ApiKeys();
    for (const entry of (spec ?? '').split(',').map((part) => part.trim())) {
      if (entry === '') continue;
      const colon = entry.indexOf(':');
      const [team, key] =
        colon < 0
          ? [defaultTeam, entry]
          : [entry.slice(0, colon).trim(), entry.slice(colon + 1).trim()];
      if (!team || !key) {
        throw new ValidationError(
          `TRAWL_API_KEYS: each entry is 'key' or 'team:key' (got '${entry.replace(/:.*/, ':…')}')`,
        );
      }
      keys.add(team, key);
    }
    return keys;
  }

  add(team: string, key: string): void {
    this.#configured.set(hashOf(key).toString('hex'), team);
    this.#keyed = true;
  }

  /** No key configured: requests need no Authorization header. */
  get keyless(): boolean {
    return !this.#keyed;
  }

  /** The team of `key`, or undefined when it is not a key of this server. */
  teamOf(key: string): string | undefined {
    // Looked up by hash: timing reveals nothing about the keys themselves.
    const hash = hashOf(key).toString('hex');
    return this.#configured.get(hash) ?? this.#stored.get(hash);
  }
}

/** Why a request was refused, in the hosted service's words. */
export type AuthOutcome = { team: string } | { refused: string };

/** What a request presents as its key. */
export interface Credentials {
  /** The Authorization header. */
  authorization?: string | undefined;
  /**
   * The Sec-WebSocket-Protocol header, read only when the request is a WebSocket upgrade: a
   * browser-style WebSocket (the SDK's watcher) cannot send headers, so it sends the key there.
   * A plain HTTP call never authenticates with it.
   */
  subprotocol?: string | undefined;
}

// RFC 9110 § 11.4: the scheme, one or more spaces, one token; nothing before or after. The token
// is anything without whitespace, since `TRAWL_API_KEYS` allows such keys.
const bearerPattern = /^Bearer +(\S+)$/i;
// Keys never hold a comma (TRAWL_API_KEYS splits on it), so a list of subprotocols is refused.
const subprotocolPattern = /^[^\s,]+$/;

/**
 * Checks a request's key: `Authorization: Bearer <key>` (scheme in any case), or on a WebSocket
 * upgrade without that header, the key as the only subprotocol. Anything else is refused.
 */
export function authenticate(keys: ApiKeys, credentials: Credentials): AuthOutcome {
  if (keys.keyless) return { team: defaultTeam };
  const { authorization, subprotocol } = credentials;
  let token: string | undefined;
  if (authorization !== undefined && authorization.trim() !== '') {
    const value = authorization.trim();
    if (/^Bearer$/i.test(value)) return { refused: 'Unauthorized: Token missing' };
    token = bearerPattern.exec(value)?.[1];
    if (token === undefined)
      return { refused: "Unauthorized: send the key as 'Authorization: Bearer <key>'" };
  } else if (subprotocol !== undefined && subprotocol.trim() !== '') {
    token = subprotocolPattern.exec(subprotocol.trim())?.[0];
    if (token === undefined)
      return { refused: 'Unauthorized: send the key as the only subprotocol' };
  } else {
    // Keys turn a keyless server into a keyed one; say so, since the caller may not know.
    return {
      refused:
        "Unauthorized: this server has API keys (TRAWL_API_KEYS or 'trawl keys create'); send 'Authorization: Bearer <key>'",
    };
  }
  const team = keys.teamOf(token);
  return team === undefined ? { refused: 'Unauthorized: Invalid token' } : { team };
}

/** What `request` presents as its key; the subprotocol counts only on a WebSocket upgrade. */
export function credentialsOf(request: FastifyRequest): Credentials {
  // `request.ws` is set by @fastify/websocket for a connection Node handed over as an upgrade,
  // unlike an `Upgrade` header, which any plain HTTP call can carry.
  return {
    authorization: request.headers.authorization,
    ...(request.ws ? { subprotocol: request.headers['sec-websocket-protocol'] } : {}),
  };
}

/**
 * Whether a route needs a key: every route registered under /v2 or /v1. Given the route's pattern as
 * the router matched it (after decoding the path), never the raw URL.
 */
export function isKeyedRoute(routeUrl: string): boolean {
  return routeUrl === '/v2' || routeUrl.startsWith('/v2/') || routeUrl.startsWith('/v1/');
}
