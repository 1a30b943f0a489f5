import type { SearchIndex } from './search-index.ts';

/**
 * Durable key-value storage, partitioned by namespace. Core keeps everything that must survive a
 * restart here: the page cache now; jobs, crawl frontiers and results, monitors and feedback later.
 *
 * Values are JSON-serialisable data. Implementations must be safe to share between concurrent
 * callers in one process.
 *
 * @remarks
 * Deliberately out of the contract: transactions across keys, secondary indexes, change
 * notifications and blocking reads. Capabilities that need them (job queues, crawl frontiers)
 * build them on `Queue`, or on per-backend features declared in `capabilities`.
 */
export interface Store {
  /** Reads a value; absent or expired keys return `undefined`, never throw. Backend failure throws STORE_UNAVAILABLE. */
  get<T>(namespace: string, key: string): Promise<T | undefined>;
  /** Writes a value, replacing any previous one (idempotent); `ttlMs` makes it expire. */
  set(namespace: string, key: string, value: unknown, options?: StoreSetOptions): Promise<void>;
  /** Removes a key; resolves `true` when it existed. Idempotent. */
  delete(namespace: string, key: string): Promise<boolean>;
  /** Lists live entries whose key starts with `prefix`, in ascending key order, after the key `after`. */
  list<T>(namespace: string, options?: StoreListOptions): Promise<StoreEntry<T>[]>;
  /**
   * Writes `owner` under `key` for `ttlMs` only if the key is absent, expired, or already holds
   * `owner` (its holder renewing the claim); resolves `true` when written. Atomic across every
   * process sharing the store: the one primitive of claims and leases (a monitor's due run, a
   * webhook delivery). Release a claim with `delete`.
   */
  claim(namespace: string, key: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Removes every key of the namespace. Idempotent. */
  clear(namespace: string): Promise<void>;
  /** Releases connections and file handles; the store is unusable afterwards. Idempotent. */
  close(): Promise<void>;
  /** What the backend offers beyond the contract. */
  readonly capabilities?: StoreCapabilities;
  /** The full-text index of scraped pages, when the backend has one (memory and Redis do not). */
  readonly searchIndex?: SearchIndex;
}

/** Options of `Store.set`. */
export interface StoreSetOptions {
  /** Time to live in milliseconds; the entry reads as absent afterwards. Unset: kept until deleted. */
  ttlMs?: number;
}

/** Entries `Store.list` returns when no `limit` is given; the one value every backend uses. */
export const defaultListLimit = 100;

/** Options of `Store.list`. */
export interface StoreListOptions {
  /** Only keys starting with this. @default '' */
  prefix?: string;
  /** Only keys sorting strictly after this one (a cursor). */
  after?: string;
  /** At most this many entries (a positive integer). @default defaultListLimit (100) */
  limit?: number;
}

/** One entry returned by `Store.list`. */
export interface StoreEntry<T> {
  key: string;
  value: T;
}

/** Optional features a backend declares instead of being sniffed. */
export interface StoreCapabilities {
  /** Data survives a restart of the process. */
  persistent: boolean;
  /** Several processes may share the store safely. */
  shared: boolean;
  /**
   * Writes started one after another without waiting for each other are applied in the order
   * they were started, and neither a failure nor a crash keeps a later one without the earlier
   * ones. A caller whose writes must land in order may then start them together, so that they
   * share a commit, instead of waiting for each. Absent: wait for each write.
   */
  orderedWrites?: boolean;
}

/** Page size of {@link scanStore}. */
const scanBatch = 500;

/**
 * Every live entry of a namespace (under `prefix`, and after the key `after` when given), in key
 * order, read in pages so that a large namespace never sits in memory at once.
 */
export async function* scanStore<T>(
  store: Store,
  namespace: string,
  prefix = '',
  after?: string,
): AsyncGenerator<StoreEntry<T>> {
  for (;;) {
    const entries = await store.list<T>(namespace, {
      prefix,
      ...(after === undefined ? {} : { after }),
      limit: scanBatch,
    });
    yield* entries;
    if (entries.length < scanBatch) return;
    after = entries.at(-1)?.key;
  }
}
