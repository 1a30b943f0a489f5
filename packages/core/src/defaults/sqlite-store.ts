/**
 * The embedded Store: one SQLite file through node:sqlite, in WAL mode so readers never wait for
 * the writer. Values are stored as JSON text; expiry is checked on read and swept on write.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { StoreError, TrawlError } from '../errors.ts';
import { checkedListLimit } from './memory-store.ts';
import type { Store, StoreEntry, StoreListOptions, StoreSetOptions } from '../interfaces/store.ts';

/** Options of `SqliteStore`. */
export interface SqliteStoreOptions {
  /** Path of the database file; its folder is created. `:memory:` keeps it in memory. */
  path: string;
  /**
   * How long a writer waits for a lock held by another process, in ms.
   * @default 5000
   */
  busyTimeoutMs?: number;
}

/** A Store in a SQLite file. */
export class SqliteStore implements Store {
  readonly capabilities = { persistent: true, shared: false };
  readonly #db: DatabaseSync;
  readonly #get: StatementSync;
  readonly #set: StatementSync;
  readonly #delete: StatementSync;
  readonly #list: StatementSync;
  readonly #clear: StatementSync;
  readonly #sweep: StatementSync;
  #writesSinceSweep = 0;
  #closed = false;

  constructor(options: SqliteStoreOptions) {
    try {
      if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true });
      this.#db = new DatabaseSync(options.path);
      this.#db.exec(`
        PRAGMA journal_mode = WAL;
        PRAGMA synchronous = NORMAL;
        PRAGMA busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))};
        CREATE TABLE IF NOT EXISTS kv (
          namespace TEXT NOT NULL,
          key TEXT NOT NULL,
          value TEXT NOT NULL,
          expires_at INTEGER,
          PRIMARY KEY (namespace, key)
        ) WITHOUT ROWID;
      `);
    } catch (error) {
      throw new StoreError(
        `Cannot open the SQLite store at ${options.path}: ${(error as Error).message}`,
        { cause: error },
      );
    }
    this.#get = this.#db.prepare(
      'SELECT value, expires_at FROM kv WHERE namespace = ? AND key = ?',
    );
    this.#set = this.#db.prepare(
      'INSERT INTO kv (namespace, key, value, expires_at) VALUES (?, ?, ?, ?) ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at',
    );
    this.#delete = this.#db.prepare('DELETE FROM kv WHERE namespace = ? AND key = ?');
    this.#list = this.#db.prepare(
      // `key >= prefix` lets the primary key index start the scan; substr checks the prefix
      // itself (an upper bound such as prefix + U+FFFF would miss astral characters).
      'SELECT key, value FROM kv WHERE namespace = ? AND key >= ? AND substr(key, 1, length(?)) = ? AND (? IS NULL OR key > ?) AND (expires_at IS NULL OR expires_at > ?) ORDER BY key LIMIT ?',
    );
    this.#clear = this.#db.prepare('DELETE FROM kv WHERE namespace = ?');
    this.#sweep = this.#db.prepare(
      'DELETE FROM kv WHERE expires_at IS NOT NULL AND expires_at <= ?',
    );
  }

  get<T>(namespace: string, key: string): Promise<T | undefined> {
    return this.#run(() => {
      const row = this.#get.get(namespace, key) as
        { value: string; expires_at: number | null } | undefined;
      if (!row || (row.expires_at !== null && row.expires_at <= Date.now())) return undefined;
      return JSON.parse(row.value) as T;
    });
  }

  set(
    namespace: string,
    key: string,
    value: unknown,
    options: StoreSetOptions = {},
  ): Promise<void> {
    return this.#run(() => {
      const expiresAt = options.ttlMs === undefined ? null : Date.now() + options.ttlMs;
      this.#set.run(namespace, key, JSON.stringify(value), expiresAt);
      // Expired rows are invisible already; sweeping now and then keeps the file from growing.
      if (++this.#writesSinceSweep >= 1000) {
        this.#writesSinceSweep = 0;
        this.#sweep.run(Date.now());
      }
    });
  }

  delete(namespace: string, key: string): Promise<boolean> {
    return this.#run(() => Number(this.#delete.run(namespace, key).changes) > 0);
  }

  list<T>(namespace: string, options: StoreListOptions = {}): Promise<StoreEntry<T>[]> {
    return this.#run(() => {
      const prefix = options.prefix ?? '';
      const after = options.after ?? null;
      const rows = this.#list.all(
        namespace,
        prefix,
        prefix,
        prefix,
        after,
        after,
        Date.now(),
        checkedListLimit(options.limit),
      ) as {
        key: string;
        value: string;
      }[];
      return rows.map((row) => ({ key: row.key, value: JSON.parse(row.value) as T }));
    });
  }

  clear(namespace: string): Promise<void> {
    return this.#run(() => {
      this.#clear.run(namespace);
    });
  }

  close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.#db.close();
    }
    return Promise.resolve();
  }

  #run<T>(operation: () => T): Promise<T> {
    if (this.#closed) return Promise.reject(new StoreError('The SQLite store is closed'));
    try {
      return Promise.resolve(operation());
    } catch (error) {
      // Our own errors (a bad limit) are the caller's; only SQLite's own failures are the store's.
      if (error instanceof TrawlError) return Promise.reject(error);
      return Promise.reject(
        new StoreError(`SQLite store failed: ${(error as Error).message}`, { cause: error }),
      );
    }
  }
}
