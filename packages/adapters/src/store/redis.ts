/**
 * A Store on Redis, shared by every process that points at the same server and prefix.
 *
 * Why @redis/client (node-redis) rather than keyv with @keyv/redis: `Store.list` needs an ordered
 * scan of a key prefix with a cursor, and keyv's adapters offer get/set/delete/clear plus an
 * unordered SCAN iterator, so every page would read and sort the whole namespace. node-redis is
 * the client Redis itself maintains and recommends for new projects (ioredis is kept up on a
 * best-effort basis), and it has typed commands, Lua scripts and RESP3. We depend on
 * `@redis/client` alone: the `redis` package only adds modules (JSON, search, bloom, time series)
 * that a key-value store does not use.
 *
 * Layout in Redis, for a namespace `ns` (URI-encoded, so `:`, `{` and `}` in it cannot make two
 * namespaces share keys):
 *
 * - `<prefix>:{ns}:keys` is a sorted set of the namespace's keys, every score 0, so ZRANGE BYLEX
 *   walks them in byte order from any cursor: that is `list`.
 * - `<prefix>:{ns}:expiry` is a sorted set of the keys that have a ttl, scored by their expiry
 *   time, so writes can find index members whose value Redis has expired and drop them. Without
 *   it, a namespace only read by `get` (the page cache) would grow its index forever.
 * - `<prefix>:{ns}:v:<key>` is a string holding the JSON value, with a PX expiry so Redis itself
 *   frees it on time.
 *
 * The braces are a Redis Cluster hash tag: a namespace's keys share one slot, so each script may
 * touch all of them. Every write is one Lua script (atomic); each script declares every key it
 * touches, as Redis asks of scripts.
 *
 * Keys list in byte order of their UTF-8 form, which is code point order: the same as JavaScript's
 * `<` except when characters above U+FFFF meet ones in U+E000–U+FFFF (SqliteStore orders alike).
 * Needs Redis 6.2 or later (ZRANGE BYLEX/BYSCORE with LIMIT, RESP3).
 */
import type { Store, StoreEntry, StoreListOptions, StoreSetOptions } from '@trawl/core';
import {
  openRedisPart,
  type RedisClient,
  type RedisConnection,
  type RedisPartOptions,
} from '../redis/connection.ts';
import { assertName, limitOf, toJson, ttlOf } from './input.ts';
import { claimScript, deleteScript, dropScript, pruneScript, setScript } from './redis-scripts.ts';

/** Options of `RedisStore`: where Redis is, the key prefix and the timeouts. */
export type RedisStoreOptions = RedisPartOptions;

/** Members read per round trip by `list` and `clear`: bounds memory and Redis's busy time. */
const pageSize = 1000;

/** The Redis keys of one namespace. */
interface NamespaceKeys {
  index: string;
  expiry: string;
  /** Prepended to an entry's key to name the Redis string holding its value. */
  value: string;
}

/**
 * A Store in Redis, shared between processes. It connects on the first call, and reconnects in the
 * background if the connection drops later; calls made meanwhile fail at once.
 *
 * @throws StoreError (STORE_UNAVAILABLE, retryable) from every method when Redis cannot be reached
 * or does not answer in time; ValidationError (BAD_REQUEST) for a namespace or key that is not
 * well-formed text, a value with no JSON form or a NaN `ttlMs` or `limit`.
 */
export class RedisStore implements Store {
  readonly capabilities = { persistent: true, shared: true };
  readonly #prefix: string;
  readonly #redis: RedisConnection;

  /** @throws ValidationError (BAD_REQUEST) when `url` is not a redis:// or rediss:// URL. */
  constructor(options: RedisStoreOptions = {}) {
    ({ prefix: this.#prefix, redis: this.#redis } = openRedisPart(options, 'Redis store'));
    assertName('prefix', this.#prefix, { allowNul: true });
  }

  async get<T>(namespace: string, key: string): Promise<T | undefined> {
    const keys = this.#keys(namespace);
    assertName('key', key, { allowNul: true });
    return this.#redis.run('read', async (client) => {
      const json = await this.#redis.call(client, client.get(keys.value + key));
      return json === null ? undefined : (JSON.parse(json) as T);
    });
  }

  async set(
    namespace: string,
    key: string,
    value: unknown,
    options: StoreSetOptions = {},
  ): Promise<void> {
    const keys = this.#keys(namespace);
    assertName('key', key, { allowNul: true });
    const json = toJson(key, value);
    const ttlMs = ttlOf(options);
    // PX takes only positive integers; an entry born expired is the same as no entry.
    if (ttlMs !== undefined && ttlMs <= 0) {
      await this.delete(namespace, key);
      return;
    }
    return this.#redis.run('write', async (client) => {
      // Expiry scores use this process's clock, but they only pick candidates: pruneScript checks
      // each against Redis's own expiry, so clock skew between writers cannot drop a live key.
      const now = Date.now();
      const due = (await this.#redis.eval(
        client,
        setScript,
        [keys.value + key, keys.index, keys.expiry],
        [
          key,
          json,
          ttlMs === undefined ? '' : String(ttlMs),
          String(now + (ttlMs ?? 0)),
          String(now),
        ],
      )) as string[];
      if (due.length > 0) {
        // Housekeeping only: the write has succeeded, and the next write retries the sweep.
        await this.#prune(client, keys, due).catch(() => undefined);
      }
    });
  }

  async delete(namespace: string, key: string): Promise<boolean> {
    const keys = this.#keys(namespace);
    assertName('key', key, { allowNul: true });
    return this.#redis.run('delete', async (client) => {
      const deleted = await this.#redis.eval(
        client,
        deleteScript,
        [keys.value + key, keys.index, keys.expiry],
        [key],
      );
      return deleted === 1;
    });
  }

  async claim(namespace: string, key: string, owner: string, ttlMs: number): Promise<boolean> {
    const keys = this.#keys(namespace);
    assertName('key', key, { allowNul: true });
    const ttl = Math.max(1, Math.ceil(ttlMs));
    return this.#redis.run('write', async (client) => {
      const taken = await this.#redis.eval(
        client,
        claimScript,
        [keys.value + key, keys.index, keys.expiry],
        [key, JSON.stringify(owner), String(ttl), String(Date.now() + ttl)],
      );
      return taken === 1;
    });
  }

  async list<T>(namespace: string, options?: StoreListOptions): Promise<StoreEntry<T>[]> {
    const keys = this.#keys(namespace);
    const prefix = options?.prefix ?? '';
    const after = options?.after;
    assertName('key', prefix, { allowNul: true });
    if (after !== undefined) assertName('key', after, { allowNul: true });
    const limit = limitOf(options);
    if (limit === 0) return [];
    // Lex ranges compare bytes, so the cursor is compared as bytes too. A key strictly after
    // `after` and starting with `prefix` sorts after whichever of the two is greater.
    let min =
      after !== undefined && Buffer.compare(Buffer.from(after), Buffer.from(prefix)) >= 0
        ? `(${after}`
        : `[${prefix}`;
    // 0xFF never occurs in UTF-8, so prefix + 0xFF sorts after every key that starts with prefix
    // and before every other key that sorts after them.
    const max =
      prefix === '' ? '+' : Buffer.concat([Buffer.from(`(${prefix}`), Buffer.from([0xff])]);
    return this.#redis.run('list', async (client) => {
      const entries: StoreEntry<T>[] = [];
      // Index members whose value has expired take a slot in a page but yield no entry, so keep
      // reading until the page is full or the range is exhausted.
      while (entries.length < limit) {
        const count = Math.min(limit - entries.length, pageSize);
        const members = await this.#redis.call(
          client,
          client.zRange(keys.index, min, max, { BY: 'LEX', LIMIT: { offset: 0, count } }),
        );
        if (members.length === 0) break;
        const values = await this.#redis.call(
          client,
          client.mGet(members.map((member) => keys.value + member)),
        );
        const expired: string[] = [];
        members.forEach((member, index) => {
          const json = values[index];
          if (json === null || json === undefined) expired.push(member);
          else entries.push({ key: member, value: JSON.parse(json) as T });
        });
        if (expired.length > 0) await this.#prune(client, keys, expired);
        const last = members.at(-1);
        if (members.length < count || last === undefined) break;
        min = `(${last}`;
      }
      return entries;
    });
  }

  async clear(namespace: string): Promise<void> {
    const keys = this.#keys(namespace);
    return this.#redis.run('clear', async (client) => {
      // In pages, so a large namespace never blocks Redis for long. The cursor moves forward, so
      // keys written behind it while clearing survive, as if written just after the clear.
      let min = '-';
      for (;;) {
        const members = await this.#redis.call(
          client,
          client.zRange(keys.index, min, '+', { BY: 'LEX', LIMIT: { offset: 0, count: pageSize } }),
        );
        const last = members.at(-1);
        if (last === undefined) break;
        await this.#redis.eval(
          client,
          dropScript,
          [keys.index, keys.expiry, ...members.map((member) => keys.value + member)],
          members,
        );
        if (members.length < pageSize) break;
        min = `(${last}`;
      }
    });
  }

  async close(): Promise<void> {
    await this.#redis.close();
  }

  /** Checks a namespace and names its Redis keys. */
  #keys(namespace: string): NamespaceKeys {
    assertName('namespace', namespace, { allowNul: true });
    const base = `${this.#prefix}:{${encodeURIComponent(namespace)}}:`;
    return { index: `${base}keys`, expiry: `${base}expiry`, value: `${base}v:` };
  }

  /** Drops the index members of entries whose value is gone. */
  async #prune(client: RedisClient, keys: NamespaceKeys, members: string[]): Promise<void> {
    await this.#redis.eval(
      client,
      pruneScript,
      [keys.index, keys.expiry, ...members.map((member) => keys.value + member)],
      members,
    );
  }
}
