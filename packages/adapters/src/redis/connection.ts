/**
 * One connection to Redis as Trawl's Redis parts use it (the store, the shared limits): connects
 * on the first call, reconnects in the background when the connection drops later (calls made
 * meanwhile fail at once), bounds every connect and command by a timeout, runs Lua scripts by
 * SHA1, and turns every failure into STORE_UNAVAILABLE naming the server but never the URL (it
 * may hold a password).
 */
import { createClient } from '@redis/client';
import { StoreError, TrawlError, ValidationError } from '@trawl/core';
import { reasonOf } from '../store/input.ts';
import type { Script } from '../store/redis-scripts.ts';

/** What a user of one of Trawl's Redis parts (the store, the shared counters) may set. */
export interface RedisPartOptions {
  /**
   * Where Redis listens: `redis://[user:password@]host:port[/db]`, or `rediss://` for TLS.
   * @default 'redis://127.0.0.1:6379'
   */
  url?: string;
  /**
   * Start of every Redis key the part writes, so that several deployments or apps can share a
   * database (the store and the counters of one deployment share it, so their keys sit together).
   * @default 'trawl'
   */
  prefix?: string;
  /**
   * How long to wait for a connection, handshake included, before failing with STORE_UNAVAILABLE.
   * @default 5000
   */
  connectTimeoutMs?: number;
  /**
   * How long one command may wait for its reply; a later one fails with STORE_UNAVAILABLE and
   * the connection is replaced.
   * @default 5000
   */
  commandTimeoutMs?: number;
}

/** The defaults of `RedisPartOptions`, in one place. */
const partDefaults = {
  url: 'redis://127.0.0.1:6379',
  prefix: 'trawl',
  connectTimeoutMs: 5000,
  commandTimeoutMs: 5000,
} as const satisfies Required<RedisPartOptions>;

/** A part's key prefix and its connection, defaults filled in; `name` is for messages. */
export function openRedisPart(
  options: RedisPartOptions,
  name: string,
): { prefix: string; redis: RedisConnection } {
  return {
    prefix: options.prefix ?? partDefaults.prefix,
    redis: new RedisConnection({
      url: options.url ?? partDefaults.url,
      connectTimeoutMs: options.connectTimeoutMs ?? partDefaults.connectTimeoutMs,
      commandTimeoutMs: options.commandTimeoutMs ?? partDefaults.commandTimeoutMs,
      name,
    }),
  };
}

/** Options of {@link RedisConnection}. */
export interface RedisConnectionOptions {
  /** `redis://[user:password@]host:port[/db]`, or `rediss://` for TLS. */
  url: string;
  /** How long to wait for a connection, handshake included. */
  connectTimeoutMs: number;
  /** How long one command may wait for its reply. */
  commandTimeoutMs: number;
  /** What the connection serves, for messages (`Redis store`). */
  name: string;
}

/** Opens a node-redis client; a function so that its exact client type can be named. */
function newClient(options: {
  url: string;
  connectTimeoutMs: number;
  shouldReconnect: () => boolean;
}) {
  return createClient({
    url: options.url,
    // Fail calls at once while the connection is down, instead of queueing them without bound;
    // the caller gets STORE_UNAVAILABLE (retryable) and the client reconnects in the background.
    disableOfflineQueue: true,
    socket: {
      // Bounds the TCP connect of reconnections; the first connect has its own timer (see #open).
      connectTimeout: options.connectTimeoutMs,
      // Before the first connection succeeds, give up at once so the caller hears why; after it,
      // retry forever with capped backoff, because a server restart must not kill a long-running
      // store.
      reconnectStrategy: (retries: number) =>
        options.shouldReconnect() ? Math.min(50 * 2 ** retries, 2000) : false,
    },
  });
}

export type RedisClient = ReturnType<typeof newClient>;

/** A lazily opened, self-healing node-redis connection. */
export class RedisConnection {
  readonly #url: string;
  readonly #name: string;
  readonly #connectTimeoutMs: number;
  readonly #commandTimeoutMs: number;
  /** `host:port` for messages: the URL may hold a password, so it is never quoted whole. */
  readonly #target: string;
  #client: RedisClient | undefined;
  #opening: Promise<RedisClient> | undefined;
  /** The last error the client reported in the background, to explain the next failure. */
  #lastError: unknown;
  #closed = false;

  /** @throws ValidationError (BAD_REQUEST) when `url` is not a redis:// or rediss:// URL. */
  constructor(options: RedisConnectionOptions) {
    this.#url = options.url;
    this.#name = options.name;
    this.#connectTimeoutMs = options.connectTimeoutMs;
    this.#commandTimeoutMs = options.commandTimeoutMs;
    let parsed: URL;
    try {
      parsed = new URL(this.#url);
    } catch (error) {
      throw new ValidationError(
        'The Redis URL is not a valid URL; expected redis://host:port or rediss://host:port',
        { cause: error },
      );
    }
    if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
      throw new ValidationError(
        `The Redis URL has protocol ${parsed.protocol}; expected redis: or rediss:`,
      );
    }
    this.#target = `${parsed.hostname}:${parsed.port || '6379'}`;
  }

  /** Closes the connection; calls fail afterwards. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // A connect in progress either fails on its own timer or sees #closed and closes its client.
    await this.#opening?.catch(() => undefined);
    const client = this.#client;
    this.#client = undefined;
    if (!client) return;
    // close() lets commands already sent receive their replies, but only for as long as any one
    // command may take.
    const timer = setTimeout(() => client.destroy(), this.#commandTimeoutMs);
    try {
      await client.close();
    } catch {
      client.destroy();
    } finally {
      clearTimeout(timer);
    }
  }

  /** Runs a script by SHA1, sending its body only when the server has not cached it yet. */
  async eval(
    client: RedisClient,
    { source, sha }: Script,
    keys: string[],
    args: string[],
  ): Promise<unknown> {
    try {
      return await this.call(client, client.evalSha(sha, { keys, arguments: args }));
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return this.call(client, client.eval(source, { keys, arguments: args }));
    }
  }

  /**
   * Bounds one command by `commandTimeoutMs`. node-redis times out only commands still waiting to
   * be written, never one whose reply is late, so a server that stops answering would hang every
   * caller. Replies arrive in order, so a late one means the connection is stuck: drop it, and
   * the next call connects afresh.
   */
  async call<T>(client: RedisClient, command: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        if (this.#client === client) this.#client = undefined;
        client.destroy();
        reject(new Error(`no reply within commandTimeoutMs (${this.#commandTimeoutMs} ms)`));
      }, this.#commandTimeoutMs);
    });
    try {
      return await Promise.race([command, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Runs an operation on a connected client, turning every failure into STORE_UNAVAILABLE. */
  async run<T>(action: string, operation: (client: RedisClient) => Promise<T>): Promise<T> {
    if (this.#closed) throw new StoreError(`The ${this.#name} is closed; open a new one`);
    let client: RedisClient;
    try {
      client = this.#client ?? (await (this.#opening ??= this.#open()));
    } catch (error) {
      throw this.#failure(`Cannot connect to Redis at ${this.#target}`, error);
    }
    try {
      return await operation(client);
    } catch (error) {
      throw this.#failure(`${this.#name} at ${this.#target} failed to ${action}`, error);
    }
  }

  /** Connects a new client, bounded by `connectTimeoutMs` from start to ready. */
  async #open(): Promise<RedisClient> {
    let isReady = false;
    let hasTimedOut = false;
    const client = newClient({
      url: this.#url,
      connectTimeoutMs: this.#connectTimeoutMs,
      shouldReconnect: () => isReady && !this.#closed,
    });
    // node-redis reports connection trouble as 'error' events; an EventEmitter without a listener
    // would crash the process on the first one. Calls fail on their own, so only remember it.
    client.on('error', (error: unknown) => {
      this.#lastError = error;
    });
    client.on('ready', () => {
      this.#lastError = undefined;
    });
    // node-redis's connectTimeout covers the TCP connect only; a server that accepts but never
    // answers would stall the handshake forever without this timer.
    const timer = setTimeout(() => {
      hasTimedOut = true;
      client.destroy();
    }, this.#connectTimeoutMs);
    try {
      await client.connect();
      isReady = true;
    } catch (error) {
      if (client.isOpen) client.destroy();
      if (!hasTimedOut) throw error;
      throw new Error(`no answer within connectTimeoutMs (${this.#connectTimeoutMs} ms)`, {
        cause: error,
      });
    } finally {
      clearTimeout(timer);
      this.#opening = undefined;
    }
    if (this.#closed) {
      client.destroy();
      throw new StoreError(`The ${this.#name} is closed; open a new one`);
    }
    this.#client = client;
    return client;
  }

  /** Wraps a client error, keeping errors that already carry a code. */
  #failure(message: string, error: unknown): TrawlError {
    if (error instanceof TrawlError) return error;
    let reason = reasonOf(error);
    const background = this.#lastError === undefined ? undefined : reasonOf(this.#lastError);
    if (background !== undefined && background !== reason) reason += ` (${background})`;
    return new StoreError(`${message}: ${reason}`, { cause: error });
  }
}
