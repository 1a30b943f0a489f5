/**
 * The embedded Store: one SQLite file through node:sqlite, in WAL mode so readers never wait for
 * the writer. Values are stored as JSON text; expiry is checked on read and swept on write.
 *
 * Writes are committed in groups: a write runs at once inside a transaction that
 * stays open until the current turn of the event loop ends (or `maxGroupWrites` writes), and its
 * promise resolves only once that transaction has committed. So a write whose promise resolved
 * survives the process being killed, while the many pages a crawl has in flight share one commit
 * instead of paying one each. Reads run on the same connection, inside the open transaction:
 * they see every write made before them, committed or not.
 *
 * Writes keep their order (`orderedWrites`): they run in the order they are started, and once
 * one fails, every write started later in the same turn fails too without running, so no later
 * write is kept without an earlier one. A caller may start writes that must land in order
 * together and let them share a commit.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { StoreError, TrawlError } from '../errors.ts';
import { checkedListLimit } from './memory-store.ts';
import { WalCheckpointer } from './sqlite-checkpointer.ts';
import { storedJson } from './stored-json.ts';
import { SqliteSearchIndex } from './sqlite-search-index.ts';
import type { Store, StoreEntry, StoreListOptions, StoreSetOptions } from '../interfaces/store.ts';

// Loaded at run time, not imported: on a Node.js without node:sqlite a static import fails while
// linking, before `internal/node-version.ts` can say which Node.js Trawl needs.
const sqlite = process.getBuiltinModule('node:sqlite');

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
 * Creates the table, or moves an older file's table to the current layout.
 *
 * - `expires_at` comes before `value`: SQLite reads a row's columns in order, so a column after
 *   a large value costs a walk through its overflow pages on every scan.
 * - A rowid table with the key in an index of its own, not a WITHOUT ROWID table: values are
 *   tens of KB (a cached page, a crawl's document), and a WITHOUT ROWID B-tree keeps them in its
 *   key order, so every lookup and insert of a random key (the page cache's hashes) walked and
 *   split pages full of them. Measured on 4,000 pages of 36 KB: lookups 1.0 s → 15 ms,
 *   inserts 1.0 → 0.34 s, CPU 3.3 → 1.3 s.
 */
function createSchema(db: DatabaseSync): void {
  const columns = db.prepare('PRAGMA table_info(kv)').all() as { name: string }[];
  const names = columns.map((column) => column.name);
  const table = db
    .prepare("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'kv'")
    .get() as { sql: string } | undefined;
  const current = ['namespace', 'key', 'expires_at', 'value'];
  if (names.join() === current.join() && !/WITHOUT\s+ROWID/i.test(table?.sql ?? '')) return;
  db.exec('BEGIN IMMEDIATE');
  try {
    db.exec(`
      DROP TABLE IF EXISTS kv_rows;
      CREATE TABLE kv_rows (
        namespace TEXT NOT NULL,
        key TEXT NOT NULL,
        expires_at INTEGER,
        value TEXT NOT NULL,
        PRIMARY KEY (namespace, key)
      );
    `);
    if (names.length > 0) {
      db.exec(
        'INSERT INTO kv_rows (namespace, key, expires_at, value) SELECT namespace, key, expires_at, value FROM kv; DROP TABLE kv;',
      );
    }
    // The expiry index is made after the table is renamed so that its name never collides with
    // the index of the table it replaces (dropped with it).
    db.exec(`
      ALTER TABLE kv_rows RENAME TO kv;
      CREATE INDEX IF NOT EXISTS kv_expiry ON kv (expires_at) WHERE expires_at IS NOT NULL;
      COMMIT;
    `);
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
}

/**
 * The list queries: (namespace, lower bound, upper bound, limit). Both bounds are on the key's
 * index, so SQLite scans only the keys in range, from max(prefix, after) to the first key past
 * the prefix. (A filter on the prefix in place of the upper bound reads on through every later
 * key of the namespace whenever a page is not full.)
 */
export const listStatements = {
  from: 'SELECT key, value, expires_at FROM kv WHERE namespace = ? AND key >= ? AND key < ? ORDER BY key LIMIT ?',
  after:
    'SELECT key, value, expires_at FROM kv WHERE namespace = ? AND key > ? AND key < ? ORDER BY key LIMIT ?',
};

/** SQLite orders every TEXT value before every BLOB: the upper bound of "no upper bound". */
const aboveAllText = new Uint8Array([0xff]);

/**
 * The least string above every string that starts with `prefix`: the prefix with its last code
 * point raised by one. SQLite compares TEXT as UTF-8 bytes, whose order is code point order, so
 * this bound is exact for characters outside the BMP too.
 */
export function prefixEnd(prefix: string): string | Uint8Array {
  const points = [...prefix];
  while (points.length > 0) {
    const last = points.pop()?.codePointAt(0) ?? 0;
    if (last < 0x10ffff) {
      // Surrogate code points cannot be stored as UTF-8; the next real one is U+E000.
      const next = last + 1 >= 0xd800 && last + 1 <= 0xdfff ? 0xe000 : last + 1;
      return points.join('') + String.fromCodePoint(next);
    }
  }
  return aboveAllText;
}

/**
 * The size of a new file's pages. A crawl writes ~120 KB a page (document, page cache, search
 * index), all of it in overflow chains: 16 KiB pages make a quarter of the WAL frames and
 * syscalls of SQLite's 4 KiB, for 30–40 % less time in commits on 4,000 such pages.
 * Larger pages cost more again: every small update (a queue entry) rewrites a whole page.
 * A file made earlier keeps its pages; only a VACUUM would change them.
 */
const pageBytes = 16_384;

/**
 * WAL bytes after which a commit copies the log into the database itself: the backstop behind the
 * checkpoint thread (sqlite-checkpointer.ts), which copies it every few MB. A checkpoint here
 * waits for two fsyncs on the committing thread; SQLite's 1000 pages (4 MB) made a crawl wait on
 * one every 30 pages, and 40 MB keeps the log bounded while the thread does the copying.
 */
const walCheckpointBytes = 40 * 1024 * 1024;

/** Writes after which the open group commits without waiting for the end of the turn. */
const maxGroupWrites = 500;

/** A write of the open group, waiting for its commit. */
interface GroupedWrite {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** A Store in a SQLite file. */
export class SqliteStore implements Store {
  readonly capabilities = { persistent: true, shared: false, orderedWrites: true };
  /** FTS5 over the pages scraped with this store: the built-in search source. */
  readonly searchIndex: SqliteSearchIndex;
  readonly #db: DatabaseSync;
  readonly #get: StatementSync;
  readonly #set: StatementSync;
  readonly #claim: StatementSync;
  readonly #delete: StatementSync;
  readonly #list: StatementSync;
  readonly #listAfter: StatementSync;
  readonly #clear: StatementSync;
  readonly #sweep: StatementSync;
  #writesSinceSweep = 0;
  #closed = false;
  /** Writes of the open transaction, resolved when it commits. */
  #group: GroupedWrite[] = [];
  #commitTimer: NodeJS.Immediate | undefined;
  /** Checkpoints off this thread; none for a database in memory. */
  readonly #checkpointer: WalCheckpointer | undefined;
  #closing: Promise<void> | undefined;
  /** Why writes fail until the end of this turn: one started earlier in the turn failed. */
  #failedThisTurn: Error | undefined;

  constructor(options: SqliteStoreOptions) {
    try {
      if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true });
      this.#db = new sqlite.DatabaseSync(options.path);
      // page_size first: it only takes effect before the file has a journal (and any table).
      this.#db.exec(`
        PRAGMA page_size = ${pageBytes};
        PRAGMA journal_mode = WAL;
        PRAGMA synchronous = NORMAL;
        PRAGMA busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))};
      `);
      const { page_size: filePageBytes } = this.#db.prepare('PRAGMA page_size').get() as {
        page_size: number;
      };
      this.#db.exec(`PRAGMA wal_autocheckpoint = ${Math.ceil(walCheckpointBytes / filePageBytes)}`);
      createSchema(this.#db);
      this.searchIndex = new SqliteSearchIndex(this.#db, (write) => this.#write(write));
      this.#checkpointer =
        options.path === ':memory:' ? undefined : new WalCheckpointer(options.path);
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
    // Takes the row only when it is free, expired or held by the same owner: one statement, so
    // two processes on one file cannot both win (SQLite serialises writers).
    this.#claim = this.#db.prepare(
      'INSERT INTO kv (namespace, key, value, expires_at) VALUES (?, ?, ?, ?) ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at WHERE kv.expires_at <= ? OR kv.value = excluded.value',
    );
    this.#delete = this.#db.prepare(
      'DELETE FROM kv WHERE namespace = ? AND key = ? RETURNING expires_at',
    );
    this.#list = this.#db.prepare(listStatements.from);
    this.#listAfter = this.#db.prepare(listStatements.after);
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
    return this.#write(() => {
      const expiresAt = options.ttlMs === undefined ? null : Date.now() + options.ttlMs;
      const json = storedJson(value);
      this.#set.run(namespace, key, json, expiresAt);
      this.#checkpointer?.written(json.length);
      // Expired rows are invisible already; sweeping now and then keeps the file from growing.
      if (++this.#writesSinceSweep >= 1000) {
        this.#writesSinceSweep = 0;
        this.#sweep.run(Date.now());
      }
    });
  }

  delete(namespace: string, key: string): Promise<boolean> {
    return this.#write(() => {
      // An expired row not yet swept is gone as far as callers know: deleting it finds nothing.
      const row = this.#delete.get(namespace, key) as { expires_at: number | null } | undefined;
      return row !== undefined && (row.expires_at === null || row.expires_at > Date.now());
    });
  }

  list<T>(namespace: string, options: StoreListOptions = {}): Promise<StoreEntry<T>[]> {
    return this.#run(() => {
      const prefix = options.prefix ?? '';
      const limit = checkedListLimit(options.limit);
      const now = Date.now();
      const entries: StoreEntry<T>[] = [];
      const end = prefixEnd(prefix);
      let after =
        options.after !== undefined && options.after >= prefix ? options.after : undefined;
      // Expired rows still sit in the table until swept; read on past them to fill the page.
      for (;;) {
        const rows = (
          after === undefined
            ? this.#list.all(namespace, prefix, end, limit)
            : this.#listAfter.all(namespace, after, end, limit)
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

  claim(namespace: string, key: string, owner: string, ttlMs: number): Promise<boolean> {
    return this.#run(() => {
      const now = Date.now();
      const result = this.#claim.run(namespace, key, JSON.stringify(owner), now + ttlMs, now);
      return Number(result.changes) > 0;
    });
  }

  clear(namespace: string): Promise<void> {
    return this.#write(() => {
      this.#clear.run(namespace);
    });
  }

  close(): Promise<void> {
    if (!this.#closing) {
      // Writes of the open group are committed (their promises resolve) before the file closes.
      this.#commit();
      this.#closed = true;
      // Pages queued for the index are written (not indexed: the next reader does that) before
      // the file is closed.
      this.searchIndex.close();
      this.#db.close();
      this.#closing = this.#checkpointer?.close() ?? Promise.resolve();
    }
    return this.#closing;
  }

  /**
   * Runs a write in the open group transaction (opening one if none is) and resolves with its
   * result once that transaction has committed.
   */
  #write<T>(operation: () => T): Promise<T> {
    if (this.#closed) return Promise.reject(new StoreError('The SQLite store is closed'));
    if (this.#failedThisTurn) return Promise.reject(this.#failedThisTurn);
    let result: T;
    try {
      if (!this.#db.isTransaction) this.#db.exec('BEGIN IMMEDIATE');
      result = operation();
    } catch (error) {
      // Some failures (a full disk, I/O) roll the whole transaction back: the group is lost.
      if (!this.#db.isTransaction) this.#failGroup(error);
      const failure = this.#storeError(error);
      // Writes started after this one in the same turn may depend on it: they fail too.
      this.#failedThisTurn = failure;
      setImmediate(() => {
        this.#failedThisTurn = undefined;
      });
      if (this.#db.isTransaction) this.#commitTimer ??= setImmediate(() => this.#commit());
      return Promise.reject(failure);
    }
    const committed = new Promise<T>((resolve, reject) => {
      this.#group.push({ resolve: () => resolve(result), reject });
    });
    if (this.#group.length >= maxGroupWrites) this.#commit();
    else this.#commitTimer ??= setImmediate(() => this.#commit());
    return committed;
  }

  /** Commits the open group and settles its writes. */
  #commit(): void {
    if (this.#commitTimer) clearImmediate(this.#commitTimer);
    this.#commitTimer = undefined;
    const group = this.#group;
    this.#group = [];
    if (!this.#db.isTransaction) {
      for (const write of group) write.resolve();
      return;
    }
    try {
      this.#db.exec('COMMIT');
    } catch (error) {
      try {
        if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      } catch {
        // Already rolled back by SQLite itself.
      }
      const failure = this.#storeError(error);
      for (const write of group) write.reject(failure);
      return;
    }
    this.#checkpointer?.committed();
    for (const write of group) write.resolve();
  }

  /** The open group was rolled back by SQLite: its writes fail. */
  #failGroup(error: unknown): void {
    if (this.#commitTimer) clearImmediate(this.#commitTimer);
    this.#commitTimer = undefined;
    const failure = this.#storeError(error);
    for (const write of this.#group.splice(0)) write.reject(failure);
  }

  #storeError(error: unknown): Error {
    // Our own errors (a bad limit) are the caller's; only SQLite's own failures are the store's.
    if (error instanceof TrawlError) return error;
    return new StoreError(`SQLite store failed: ${(error as Error).message}`, { cause: error });
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
