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

/**
 * Creates the table, or moves an older file's table to the current layout. `expires_at` comes
 * before `value`: SQLite reads a row's columns in order, so a column after a large value costs
 * a walk through its overflow pages on every scan.
 */
function createSchema(db: DatabaseSync): void {
  const columns = db.prepare('PRAGMA table_info(kv)').all() as { name: string }[];
  const names = columns.map((column) => column.name);
  const current = ['namespace', 'key', 'expires_at', 'value'];
  if (names.join() === current.join()) return;
  db.exec('BEGIN IMMEDIATE');
  try {
    db.exec(`
      CREATE TABLE kv_next (
        namespace TEXT NOT NULL,
        key TEXT NOT NULL,
        expires_at INTEGER,
        value TEXT NOT NULL,
        PRIMARY KEY (namespace, key)
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS kv_next_expiry ON kv_next (expires_at) WHERE expires_at IS NOT NULL;
    `);
    if (names.length > 0) {
      db.exec(
        'INSERT INTO kv_next (namespace, key, expires_at, value) SELECT namespace, key, expires_at, value FROM kv; DROP TABLE kv;',
      );
    }
    db.exec('ALTER TABLE kv_next RENAME TO kv; COMMIT');
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
}

/** A Store in a SQLite file. */
export class SqliteStore implements Store {
  readonly capabilities = { persistent: true, shared: false };
  readonly #db: DatabaseSync;
  readonly #get: StatementSync;
  readonly #set: StatementSync;
  readonly #delete: StatementSync;
  readonly #list: StatementSync;
  readonly #listAfter: StatementSync;
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
      `);
      createSchema(this.#db);
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
    // The scan starts at max(prefix, after) on the primary key and stops at the first key past
    // the prefix; substr checks the prefix itself (an upper bound such as prefix + U+FFFF
    // would miss astral characters).
    this.#list = this.#db.prepare(
      'SELECT key, value, expires_at FROM kv WHERE namespace = ? AND key >= ? AND substr(key, 1, length(?)) = ? ORDER BY key LIMIT ?',
    );
    this.#listAfter = this.#db.prepare(
      'SELECT key, value, expires_at FROM kv WHERE namespace = ? AND key > ? AND substr(key, 1, length(?)) = ? ORDER BY key LIMIT ?',
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
      const limit = checkedListLimit(options.limit);
      const now = Date.now();
      const entries: StoreEntry<T>[] = [];
      let after =
        options.after !== undefined && options.after >= prefix ? options.after : undefined;
      // Expired rows still sit in the table until swept; read on past them to fill the page.
      for (;;) {
        // One lower bound only, the larger of prefix and after: SQLite starts the index scan
        // there instead of filtering every key from the prefix on.
        const rows = (
          after === undefined
            ? this.#list.all(namespace, prefix, prefix, prefix, limit)
            : this.#listAfter.all(namespace, after, prefix, prefix, limit)
        ) as {
          key: string;
          value: string;
          expires_at: number | null;
        }[];
        for (const row of rows) {
          if (row.expires_at !== null && row.expires_at <= now) continue;
          entries.push({ key: row.key, value: JSON.parse(row.value) as T });
          if (entries.length === limit) return entries;
        }
        const last = rows.at(-1);
        if (!last || rows.length < limit) return entries;
        after = last.key;
      }
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
