/**
 * The built-in index of the embedded store: SQLite FTS5 in the store's own file. One plain table
 * holds each page (URL, filter columns and text); an FTS5 table over it (external content, so the
 * text is stored once) holds the words. Ranking is FTS5's BM25 with the title weighted above
 * headings, description and body.
 *
 * Each page row belongs to a team (the one it was scraped for) and every read filters by it: the
 * same URL scraped by two teams is two rows, and a team finds only its own.
 *
 * Pages are indexed lazily. A put stores the page's row, which costs about what storing
 * its document does; splitting its ~6,000 words into FTS5's lists cost three times that, on the
 * thread that fetches and stores every page of a crawl. So the words of pages past the
 * `indexed through` mark are added when the index is next read (query, stats) or once no page
 * has been put for `idleDelayMs`, a few pages at a time; a crawl that is fetching as fast as it
 * can never pays for a search nobody has asked for yet, and a crawl waiting on a slow site
 * indexes in its pauses. Row ids are AUTOINCREMENT, never reused, so the rows past the mark are
 * exactly the ones not indexed, whichever process wrote them, and they survive a restart.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { defaultTeam } from '../config.ts';
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

/** The columns of `search_pages` after its id, as created and as copied between layouts. */
const pageColumns = 'url, domain, language, fetched_at, title, description, headings, body';

/** The pages table: a row per team and URL. */
const createPagesTable = (condition: 'IF NOT EXISTS' | '') => `
  CREATE TABLE ${condition} search_pages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    team TEXT NOT NULL,
    url TEXT NOT NULL,
    domain TEXT NOT NULL,
    language TEXT NOT NULL,
    fetched_at INTEGER NOT NULL,
    title TEXT NOT NULL,
    description TEXT NOT NULL,
    headings TEXT NOT NULL,
    body TEXT NOT NULL,
    UNIQUE (team, url)
  );`;

/**
 * Creates the tables, or moves an index of an older layout into them: one whose pages had no
 * team, or the one before lazy indexing (`search_docs` and an FTS5 table holding its own copy of
 * the text), indexed again lazily. Pages of those layouts go to the default team: they were
 * written before the index kept teams, when every page was findable by everyone, and the
 * library, the CLI and a keyless server all work as that team.
 */
function createSchema(db: DatabaseSync): void {
  moveToTeamLayout(db);
  db.exec(`
    ${createPagesTable('IF NOT EXISTS')}
    CREATE INDEX IF NOT EXISTS search_pages_domain ON search_pages (domain);
    CREATE VIRTUAL TABLE IF NOT EXISTS search_words USING fts5(
      title, description, headings, body,
      content = 'search_pages', content_rowid = 'id',
      tokenize = 'unicode61 remove_diacritics 2'
    );
    CREATE TABLE IF NOT EXISTS search_state (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
    INSERT OR IGNORE INTO search_state (name, value) VALUES ('indexed_through', 0);
  `);
  const old = db
    .prepare("SELECT count(*) AS n FROM sqlite_master WHERE name IN ('search_docs', 'search_text')")
    .get() as { n: number };
  if (old.n < 2) return;
  db.exec('BEGIN IMMEDIATE');
  try {
    db.exec(`
      INSERT OR IGNORE INTO search_pages (team, ${pageColumns})
      SELECT '${defaultTeam}', d.url, d.domain, d.language, d.fetched_at,
        t.title, t.description, t.headings, t.body
      FROM search_docs d JOIN search_text t ON t.rowid = d.id ORDER BY d.id;
      DROP TABLE search_text;
      DROP TABLE search_docs;
      COMMIT;
    `);
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
}

/**
 * Gives a `search_pages` table without a team column one: the table is copied into the new
 * layout with its row ids and its id sequence, so the words FTS5 indexed for each row (external
 * content, by row id) and the `indexed through` mark stay right, and no id is given twice.
 */
function moveToTeamLayout(db: DatabaseSync): void {
  const columns = db.prepare('PRAGMA table_info(search_pages)').all() as { name: string }[];
  if (columns.length === 0 || columns.some((column) => column.name === 'team')) return;
  db.exec('BEGIN IMMEDIATE');
  try {
    db.exec(`
      ALTER TABLE search_pages RENAME TO search_pages_before_teams;
      DROP INDEX IF EXISTS search_pages_domain;
      ${createPagesTable('')}
      INSERT INTO search_pages (id, team, ${pageColumns})
      SELECT id, '${defaultTeam}', ${pageColumns} FROM search_pages_before_teams ORDER BY id;
      DELETE FROM sqlite_sequence WHERE name = 'search_pages';
      INSERT INTO sqlite_sequence (name, seq)
      SELECT 'search_pages', seq FROM sqlite_sequence WHERE name = 'search_pages_before_teams';
      DROP TABLE search_pages_before_teams;
      COMMIT;
    `);
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
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
 * Without a store's group to join: how long a put waits for others to share its transaction, in
 * ms. Pages finish one per turn of the event loop, and a transaction per page costs a commit each.
 */
const flushDelayMs = 250;
/** Pages queued that are written without waiting longer (~1.5 MB of text held meanwhile). */
const flushPages = 32;
/** How long no page has been put before the index adds the words of the pages waiting, in ms. */
const idleDelayMs = 1000;
/**
 * Pages indexed per turn while idle: ~20 ms of a turn at most, so a server stays responsive. FTS5
 * writes a segment per transaction, and batches of 16 or more cost ~0.6 ms a page against 0.9
 * for batches of 4 (bench/search.ts).
 */
const idlePages = 24;
/** Pages indexed per turn by a reader catching up: ~50 ms of a turn on a slow core. */
const catchUpPages = 64;

/**
 * Runs a write in the store's open group transaction (SqliteStore's), opening one if none is;
 * resolves once that transaction has committed.
 */
export type StoreGroupWrite = (write: () => void) => Promise<void>;

/** Pages whose index write failed: they are only not findable, so a warning says so. */
function lostPages(count: number, error: unknown): void {
  process.emitWarning(`The search index lost ${count} pages: ${(error as Error).message}`, {
    code: 'TRAWL_SEARCH_INDEX_WRITE',
  });
}

/** A SearchIndex in a SQLite database opened by SqliteStore. */
export class SqliteSearchIndex implements SearchIndex {
  readonly #db: DatabaseSync;
  readonly #inStoreGroup: StoreGroupWrite | undefined;
  readonly #find: StatementSync;
  readonly #deletePage: StatementSync;
  readonly #deleteWords: StatementSync;
  readonly #insertPage: StatementSync;
  readonly #indexedThrough: StatementSync;
  readonly #markIndexed: StatementSync;
  readonly #indexFrom: StatementSync;
  readonly #lastId: StatementSync;
  readonly #count: StatementSync;
  readonly #pending: IndexEntry[] = [];
  #flushTimer: NodeJS.Timeout | undefined;
  #idleTimer: NodeJS.Timeout | undefined;
  #lastPutAt = 0;
  #closed = false;

  /**
   * `inStoreGroup`, when given, writes each put at once in the store's group transaction, which
   * the store commits with its own writes of the same turn; without it, puts are queued and
   * written in transactions of their own.
   */
  constructor(db: DatabaseSync, inStoreGroup?: StoreGroupWrite) {
    this.#db = db;
    this.#inStoreGroup = inStoreGroup;
    createSchema(db);
    this.#find = db.prepare(
      'SELECT id, title, description, headings, body FROM search_pages WHERE team = ? AND url = ?',
    );
    this.#deletePage = db.prepare('DELETE FROM search_pages WHERE id = ?');
    // External content: FTS5 finds the words to drop from the values they were indexed with.
    this.#deleteWords = db.prepare(
      "INSERT INTO search_words (search_words, rowid, title, description, headings, body) VALUES ('delete', ?, ?, ?, ?, ?)",
    );
    this.#insertPage = db.prepare(
      `INSERT INTO search_pages (team, ${pageColumns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#indexedThrough = db.prepare(
      "SELECT value FROM search_state WHERE name = 'indexed_through'",
    );
    this.#markIndexed = db.prepare(
      "UPDATE search_state SET value = ? WHERE name = 'indexed_through'",
    );
    this.#indexFrom = db.prepare(
      'INSERT INTO search_words (rowid, title, description, headings, body) SELECT id, title, description, headings, body FROM search_pages WHERE id > ? AND id <= ? ORDER BY id',
    );
    this.#lastId = db.prepare(
      'SELECT max(id) AS last FROM (SELECT id FROM search_pages WHERE id > ? ORDER BY id LIMIT ?)',
    );
    this.#count = db.prepare('SELECT count(*) AS n FROM search_pages');
  }

  /**
   * Writes the page's row in the store's group, or queues it when there is none (the queue is
   * written in one transaction `flushDelayMs` later, at once when `flushPages` wait, and before
   * every read and `close`), and resolves: this process always sees every put. The index is
   * best-effort: a page lost to a full disk or a kill before its commit is only not findable.
   */
  put(entry: IndexEntry): Promise<void> {
    this.#lastPutAt = Date.now();
    if (this.#inStoreGroup) {
      // Written now, committed with the store's writes of this turn: a queue held each page's
      // text (~70 KB) for up to 32 pages, long enough for the crawl thread's scavenges to
      // promote it, and the old generation filled with pages already written.
      this.#inStoreGroup(() => this.#putInGroup(entry)).catch((error: unknown) =>
        lostPages(1, error),
      );
    } else {
      this.#pending.push(entry);
      if (this.#pending.length >= flushPages) this.flush();
      else this.#flushTimer ??= setTimeout(() => this.flush(), flushDelayMs);
    }
    this.#scheduleIdleIndexing();
    return Promise.resolve();
  }

  /**
   * A put inside the store's group. A failure that leaves the transaction open loses only this
   * page: thrown, it would fail the store's later writes of the turn too. One that rolled the
   * transaction back is thrown, so that the store fails the writes it lost with it.
   */
  #putInGroup(entry: IndexEntry): void {
    try {
      this.#putSync(entry);
    } catch (error) {
      if (!this.#db.isTransaction) throw error;
      lostPages(1, error);
    }
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
      lostPages(batch.length, error);
    }
  }

  /** Stops indexing in idle time; the store closes the file after the last flush. */
  close(): void {
    this.#closed = true;
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    this.flush();
  }

  #putSync(entry: IndexEntry): void {
    this.#removeSync(entry.team, entry.url);
    this.#insertPage.run(
      entry.team,
      entry.url,
      entry.domain,
      entry.language,
      entry.fetchedAt,
      entry.title,
      entry.description,
      entry.headings,
      entry.body,
    );
  }

  remove(team: string, url: string): Promise<boolean> {
    this.flush();
    return settle(() => this.#transaction(() => this.#removeSync(team, url)));
  }

  /**
   * Pages holding every word come first (FTS5 intersects their lists, which stays fast when one
   * word is in every page); when they are fewer than `limit`, pages holding any word follow.
   */
  async query(query: IndexQuery): Promise<IndexHit[]> {
    if (query.words.length === 0) return [];
    await this.#catchUp();
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
      'search_words MATCH ?',
      ...indexFilterClauses(
        query,
        (value) => {
          parameters.push(value);
          return '?';
        },
        'p.',
      ),
    ];
    const sql = `
      SELECT p.url, p.language, p.fetched_at, p.title, p.description,
        snippet(search_words, 3, '', '', '…', ${snippetTokens}) AS snippet,
        bm25(search_words, ${weights.join(', ')}) AS rank
      FROM search_words JOIN search_pages p ON p.id = search_words.rowid
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

  async stats(): Promise<IndexStats> {
    await this.#catchUp();
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
        this.#db.exec(
          "DELETE FROM search_pages; INSERT INTO search_words (search_words) VALUES ('delete-all');",
        );
      }),
    );
  }

  /**
   * Adds the words of every page written but not yet indexed, this process's queue included, a
   * slice per turn: after a large crawl this takes seconds, and a server answers its other
   * requests meanwhile.
   */
  async #catchUp(): Promise<void> {
    for (;;) {
      const more = await settle(() => {
        if (this.#closed) throw new Error('the store is closed');
        this.flush();
        return this.#transaction(() => this.#indexSome(catchUpPages));
      });
      if (!more) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Indexes up to `limit` pages past the mark, in the open transaction; false when none waited. */
  #indexSome(limit: number): boolean {
    const { value: through } = this.#indexedThrough.get() as { value: number };
    const { last } = this.#lastId.get(through, limit) as { last: number | null };
    if (last === null) return false;
    this.#indexFrom.run(through, last);
    this.#markIndexed.run(last);
    return true;
  }

  /**
   * Indexes what waits, a slice per turn, once no page has been put for `idleDelayMs`. The timer
   * never holds the process open: what is left when it exits is indexed by the next reader.
   */
  #scheduleIdleIndexing(delay = idleDelayMs): void {
    if (this.#idleTimer || this.#closed) return;
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = undefined;
      const quietFor = Date.now() - this.#lastPutAt;
      if (quietFor < idleDelayMs) {
        this.#scheduleIdleIndexing(idleDelayMs - quietFor);
        return;
      }
      try {
        this.flush();
        if (this.#transaction(() => this.#indexSome(idlePages))) this.#scheduleIdleIndexing(0);
      } catch {
        // A busy or full file: the next reader indexes these pages.
      }
    }, delay);
    this.#idleTimer.unref();
  }

  #removeSync(team: string, url: string): boolean {
    const row = this.#find.get(team, url) as
      | { id: number; title: string; description: string; headings: string; body: string }
      | undefined;
    if (!row) return false;
    const { value: through } = this.#indexedThrough.get() as { value: number };
    if (row.id <= through)
      this.#deleteWords.run(row.id, row.title, row.description, row.headings, row.body);
    this.#deletePage.run(row.id);
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
