/**
 * The built-in index of the embedded store: SQLite FTS5 in the store's own file. A plain table
 * holds each page's URL and filter columns; an FTS5 table with the same rowid holds its text.
 * Ranking is FTS5's BM25 with the title weighted above headings, description and body.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { StoreError } from '../errors.ts';
import type {
  IndexEntry,
  IndexHit,
  IndexQuery,
  IndexStats,
  SearchIndex,
} from '../interfaces/search-index.ts';
import {
  indexFilterClauses,
  indexHitOf,
  mergeWordPasses,
  wantsAnyWordPass,
  type IndexHitRow,
} from '../search/index-query.ts';

/** BM25 weights of the FTS columns: title, description, headings, body. */
const weights = [10, 3, 5, 1] as const;
/** Tokens of context in a snippet. */
const snippetTokens = 24;

function createSchema(db: DatabaseSync): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS search_docs (
      id INTEGER PRIMARY KEY,
      url TEXT NOT NULL UNIQUE,
      domain TEXT NOT NULL,
      language TEXT NOT NULL,
      fetched_at INTEGER NOT NULL
    );
    CREATE INDEX IF NOT EXISTS search_docs_domain ON search_docs (domain);
    CREATE VIRTUAL TABLE IF NOT EXISTS search_text USING fts5(
      title, description, headings, body,
      tokenize = 'unicode61 remove_diacritics 2'
    );
  `);
}

/** FTS5 query text of plain words: each quoted (inner quotes doubled), joined by AND or OR. */
export function ftsMatchOf(words: readonly string[], join: 'AND' | 'OR'): string {
  return words.map((word) => `"${word.replaceAll('"', '""')}"`).join(` ${join} `);
}

/** Runs a synchronous SQLite call as a promise; SQLite's failures become STORE_UNAVAILABLE. */
function settle<T>(operation: () => T): Promise<T> {
  try {
    return Promise.resolve(operation());
  } catch (error) {
    return Promise.reject(
      new StoreError(`SQLite search index failed: ${(error as Error).message}`, { cause: error }),
    );
  }
}

/**
 * How long a put waits for others to share its transaction, in ms. FTS5 writes a segment per
 * transaction and merges segments as they pile up: at 50 ms a crawl's 80–100 pages/s wrote about
 * six pages per transaction, and a 5,000-word page cost 0.88 ms to index in batches of 4
 * against 0.63 in batches of 16 or more (issue 17).
 */
const flushDelayMs = 250;
/** Pages queued that are written without waiting longer (~1.5 MB of text held meanwhile). */
const flushPages = 32;

/** A SearchIndex in a SQLite database opened by SqliteStore. */
export class SqliteSearchIndex implements SearchIndex {
  readonly #db: DatabaseSync;
  readonly #find: StatementSync;
  readonly #deleteDoc: StatementSync;
  readonly #deleteText: StatementSync;
  readonly #insertDoc: StatementSync;
  readonly #insertText: StatementSync;
  readonly #count: StatementSync;
  readonly #pending: IndexEntry[] = [];
  #flushTimer: NodeJS.Timeout | undefined;

  constructor(db: DatabaseSync) {
    this.#db = db;
    createSchema(db);
    this.#find = db.prepare('SELECT id FROM search_docs WHERE url = ?');
    this.#deleteDoc = db.prepare('DELETE FROM search_docs WHERE id = ?');
    this.#deleteText = db.prepare('DELETE FROM search_text WHERE rowid = ?');
    this.#insertDoc = db.prepare(
      'INSERT INTO search_docs (url, domain, language, fetched_at) VALUES (?, ?, ?, ?)',
    );
    this.#insertText = db.prepare(
      'INSERT INTO search_text (rowid, title, description, headings, body) VALUES (?, ?, ?, ?, ?)',
    );
    this.#count = db.prepare('SELECT count(*) AS n FROM search_docs');
  }

  /**
   * Queues the page and resolves: the queue is written in one transaction `flushDelayMs` later,
   * or at once when `flushPages` wait, and every read of the index (and `close`) writes it
   * first, so this process always sees every put. FTS5 writes a new index segment per
   * transaction, so a crawl's pages written together cost a third of what they cost one by one
   * (bench/search.ts); with page conversion on worker threads pages finish one per turn of the
   * event loop, and a scrape that waited for its page's write would wait the whole delay (issue
   * 17). The index is best-effort: a page lost to a full disk or a kill is only not findable.
   */
  put(entry: IndexEntry): Promise<void> {
    this.#pending.push(entry);
    if (this.#pending.length >= flushPages) this.flush();
    else this.#flushTimer ??= setTimeout(() => this.flush(), flushDelayMs);
    return Promise.resolve();
  }

  /**
   * Writes the queued pages now; reads call it first, so they always see every put. A batch that
   * SQLite refuses is lost with a process warning: its puts have resolved, so no caller is left.
   */
  flush(): void {
    if (this.#flushTimer) clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    const batch = this.#pending.splice(0);
    if (batch.length === 0) return;
    try {
      this.#transaction(() => {
        for (const entry of batch) this.#putSync(entry);
      });
    } catch (error) {
      process.emitWarning(
        `The search index lost ${batch.length} pages: ${(error as Error).message}`,
        {
          code: 'TRAWL_SEARCH_INDEX_WRITE',
        },
      );
    }
  }

  #putSync(entry: IndexEntry): void {
    this.#removeSync(entry.url);
    const { lastInsertRowid } = this.#insertDoc.run(
      entry.url,
      entry.domain,
      entry.language,
      entry.fetchedAt,
    );
    this.#insertText.run(
      lastInsertRowid,
      entry.title,
      entry.description,
      entry.headings,
      entry.body,
    );
  }

  remove(url: string): Promise<boolean> {
    this.flush();
    return settle(() => this.#transaction(() => this.#removeSync(url)));
  }

  /**
   * Pages holding every word come first (FTS5 intersects their lists, which stays fast when one
   * word is in every page); when they are fewer than `limit`, pages holding any word follow.
   */
  query(query: IndexQuery): Promise<IndexHit[]> {
    if (query.words.length === 0) return Promise.resolve([]);
    this.flush();
    return settle(() => {
      const all = this.#search(query, ftsMatchOf(query.words, 'AND'), query.limit);
      if (!wantsAnyWordPass(query, all)) return all;
      const any = this.#search(query, ftsMatchOf(query.words, 'OR'), query.limit + all.length);
      return mergeWordPasses(query, all, any);
    });
  }

  #search(query: IndexQuery, match: string, limit: number): IndexHit[] {
    const parameters: (string | number)[] = [match];
    const where = [
      'search_text MATCH ?',
      ...indexFilterClauses(
        query,
        (value) => {
          parameters.push(value);
          return '?';
        },
        'd.',
      ),
    ];
    const sql = `
      SELECT d.url, d.language, d.fetched_at,
        search_text.title AS title, search_text.description AS description,
        snippet(search_text, 3, '', '', '…', ${snippetTokens}) AS snippet,
        bm25(search_text, ${weights.join(', ')}) AS rank
      FROM search_text JOIN search_docs d ON d.id = search_text.rowid
      WHERE ${where.join(' AND ')}
      ORDER BY rank LIMIT ?`;
    parameters.push(limit);
    return this.#hits(sql, parameters);
  }

  #hits(sql: string, parameters: (string | number)[]): IndexHit[] {
    const rows = this.#db.prepare(sql).all(...parameters) as (IndexHitRow & { rank: number })[];
    // bm25() is lower for better matches.
    return rows.map((row) => indexHitOf(row, -row.rank));
  }

  stats(): Promise<IndexStats> {
    this.flush();
    return settle(() => this.#stats());
  }

  #stats(): IndexStats {
    const { n } = this.#count.get() as { n: number };
    let bytes: number | undefined;
    try {
      // dbstat is compiled into Node's SQLite; where it is not, the size is simply unknown.
      const row = this.#db
        .prepare(
          "SELECT sum(pgsize) AS bytes FROM dbstat WHERE name LIKE 'search_%' OR name LIKE 'sqlite_autoindex_search_%'",
        )
        .get() as { bytes: number | null };
      bytes = row.bytes ?? 0;
    } catch {
      bytes = undefined;
    }
    return bytes === undefined ? { documents: n } : { documents: n, bytes };
  }

  clear(): Promise<void> {
    this.flush();
    return settle(() =>
      this.#transaction(() => {
        this.#db.exec('DELETE FROM search_docs; DELETE FROM search_text;');
      }),
    );
  }

  #removeSync(url: string): boolean {
    const row = this.#find.get(url) as { id: number } | undefined;
    if (!row) return false;
    this.#deleteDoc.run(row.id);
    this.#deleteText.run(row.id);
    return true;
  }

  #transaction<T>(work: () => T): T {
    // A nested call (inside a store transaction) must not open a second one.
    if (this.#db.isTransaction) return work();
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      const result = work();
      this.#db.exec('COMMIT');
      return result;
    } catch (error) {
      this.#db.exec('ROLLBACK');
      throw error;
    }
  }
}
