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

/** FTS5 query text of plain words: each quoted (inner quotes doubled), any of them matching. */
export function ftsMatchOf(words: readonly string[]): string {
  return words.map((word) => `"${word.replaceAll('"', '""')}"`).join(' OR ');
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

/** A SearchIndex in a SQLite database opened by SqliteStore. */
export class SqliteSearchIndex implements SearchIndex {
  readonly #db: DatabaseSync;
  readonly #find: StatementSync;
  readonly #deleteDoc: StatementSync;
  readonly #deleteText: StatementSync;
  readonly #insertDoc: StatementSync;
  readonly #insertText: StatementSync;
  readonly #count: StatementSync;

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

  put(entry: IndexEntry): Promise<void> {
    return settle(() =>
      this.#transaction(() => {
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
      }),
    );
  }

  remove(url: string): Promise<boolean> {
    return settle(() => this.#transaction(() => this.#removeSync(url)));
  }

  query(query: IndexQuery): Promise<IndexHit[]> {
    if (query.words.length === 0) return Promise.resolve([]);
    const where = ['search_text MATCH ?'];
    const parameters: (string | number)[] = [ftsMatchOf(query.words)];
    const domainClause = (domain: string) => {
      parameters.push(domain, `%.${domain}`);
      return '(d.domain = ? OR d.domain LIKE ?)';
    };
    if (query.includeDomains?.length)
      where.push(`(${query.includeDomains.map(domainClause).join(' OR ')})`);
    for (const domain of query.excludeDomains ?? []) where.push(`NOT ${domainClause(domain)}`);
    if (query.fetchedAfter !== undefined) {
      where.push('d.fetched_at >= ?');
      parameters.push(query.fetchedAfter);
    }
    if (query.fetchedBefore !== undefined) {
      where.push('d.fetched_at <= ?');
      parameters.push(query.fetchedBefore);
    }
    if (query.language) {
      // Pages that declare no language are not excluded by a language they might well be in.
      where.push("(d.language = '' OR d.language = ? OR d.language LIKE ?)");
      parameters.push(query.language.toLowerCase(), `${query.language.toLowerCase()}-%`);
    }
    const sql = `
      SELECT d.url, d.language, d.fetched_at,
        search_text.title AS title, search_text.description AS description,
        snippet(search_text, 3, '', '', '…', ${snippetTokens}) AS snippet,
        bm25(search_text, ${weights.join(', ')}) AS rank
      FROM search_text JOIN search_docs d ON d.id = search_text.rowid
      WHERE ${where.join(' AND ')}
      ORDER BY rank LIMIT ?`;
    parameters.push(query.limit);
    return settle(() => this.#hits(sql, parameters));
  }

  #hits(sql: string, parameters: (string | number)[]): IndexHit[] {
    const rows = this.#db.prepare(sql).all(...parameters) as {
      url: string;
      language: string;
      fetched_at: number;
      title: string;
      description: string;
      snippet: string;
      rank: number;
    }[];
    return rows.map((row) => ({
      url: row.url,
      title: row.title,
      description: row.description,
      snippet: row.snippet,
      language: row.language,
      fetchedAt: row.fetched_at,
      // bm25() is lower for better matches.
      score: -row.rank,
    }));
  }

  stats(): Promise<IndexStats> {
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
