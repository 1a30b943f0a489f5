/**
 * The built-in search index of PostgresStore: PostgreSQL full-text search in a table beside the
 * store's own. A stored generated `tsvector` weights the title (A) above headings (B),
 * description (C) and body (D); a GIN index serves `@@`; `ts_rank_cd` ranks (cover density, so
 * words found close together count more) and `ts_headline` cuts the snippet.
 *
 * Each row belongs to a team (the one the page was scraped for); the key is (team, URL) and every
 * read filters by team.
 *
 * The `simple` text search configuration is used: it lower-cases without stemming, so pages in
 * any language are indexed alike, as SQLite's unicode61 tokenizer does.
 */
import type { QueryResultRow } from 'pg';
import {
  defaultTeam,
  type IndexEntry,
  type IndexHit,
  type IndexQuery,
  type IndexStats,
  type SearchIndex,
} from '@trawl/core';
import {
  indexFilterClauses,
  indexHitOf,
  mergeWordPasses,
  wantsAnyWordPass,
  type IndexHitRow,
} from '@trawl/core/server';

/** Runs one statement against the store's pool; failures are STORE_UNAVAILABLE already. */
export type RunQuery = <R extends QueryResultRow>(
  action: string,
  sql: string,
  params: unknown[],
) => Promise<R[]>;

/** Snippet settings of ts_headline: no markup, about 24 words as SQLite's snippet. */
const headline = 'StartSel="",StopSel="",MaxWords=30,MinWords=12,ShortWord=2';

/** A SearchIndex in PostgreSQL; its table is created on first use. */
export class PostgresSearchIndex implements SearchIndex {
  readonly #run: RunQuery;
  /** `"schema"."table"`, quoted. */
  readonly #table: string;
  #ready: Promise<void> | undefined;

  constructor(run: RunQuery, table: string) {
    this.#run = run;
    this.#table = table;
  }

  async put(entry: IndexEntry): Promise<void> {
    await this.#ensure();
    await this.#run(
      'index a page',
      `INSERT INTO ${this.#table} (team, url, domain, language, fetched_at, title, description, headings, body)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (team, url) DO UPDATE SET domain = excluded.domain, language = excluded.language,
         fetched_at = excluded.fetched_at, title = excluded.title,
         description = excluded.description, headings = excluded.headings, body = excluded.body`,
      [
        entry.team,
        entry.url,
        entry.domain,
        entry.language,
        entry.fetchedAt,
        // PostgreSQL text cannot hold U+0000, which scraped text sometimes does.
        ...[entry.title, entry.description, entry.headings, entry.body].map((text) =>
          text.replaceAll('\u0000', ' '),
        ),
      ],
    );
  }

  async remove(team: string, url: string): Promise<boolean> {
    await this.#ensure();
    const rows = await this.#run<{ url: string }>(
      'remove a page from the index',
      `DELETE FROM ${this.#table} WHERE team = $1 AND url = $2 RETURNING url`,
      [team, url],
    );
    return rows.length > 0;
  }

  /** Pages holding every word first; when fewer than `limit`, pages holding any word follow. */
  async query(query: IndexQuery): Promise<IndexHit[]> {
    if (query.words.length === 0) return [];
    await this.#ensure();
    // Words hold only letters, digits and _ (search/words.ts), so quoting each is enough for
    // to_tsquery.
    const quoted = query.words.map((word) => `'${word}'`);
    const all = await this.#search(query, quoted.join(' & '), query.limit);
    if (!wantsAnyWordPass(query, all)) return all;
    const any = await this.#search(query, quoted.join(' | '), query.limit + all.length);
    return mergeWordPasses(query, all, any);
  }

  async #search(query: IndexQuery, tsquery: string, limit: number): Promise<IndexHit[]> {
    const params: unknown[] = [tsquery];
    const param = (value: unknown) => `$${params.push(value)}`;
    const where = ['tsv @@ q', ...indexFilterClauses(query, param)];
    const rows = await this.#run<IndexHitRow & { score: number }>(
      'search the index',
      `SELECT url, title, description, language, fetched_at,
         ts_headline('simple', body, q, '${headline}') AS snippet, score
       FROM (
         SELECT *, ts_rank_cd(tsv, q) AS score
         FROM ${this.#table}, to_tsquery('simple', $1) AS q
         WHERE ${where.join(' AND ')}
         ORDER BY score DESC, url LIMIT ${param(limit)}
       ) AS best
       ORDER BY score DESC, url`,
      params,
    );
    return rows.map((row) => indexHitOf(row, row.score));
  }

  async stats(): Promise<IndexStats> {
    await this.#ensure();
    const rows = await this.#run<{ documents: string; bytes: string }>(
      'read index statistics',
      `SELECT count(*) AS documents, pg_total_relation_size('${this.#table.replaceAll("'", "''")}') AS bytes FROM ${this.#table}`,
      [],
    );
    return { documents: Number(rows[0]?.documents ?? 0), bytes: Number(rows[0]?.bytes ?? 0) };
  }

  async clear(): Promise<void> {
    await this.#ensure();
    await this.#run('clear the index', `TRUNCATE ${this.#table}`, []);
  }

  /** Creates the table and its GIN index unless they exist (once per store). */
  #ensure(): Promise<void> {
    this.#ready ??= this.#create().catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  /**
   * One statement, so one transaction, under a lock on the table's name: processes starting at
   * once against a new database (or one of the layout before teams) wait for each other and find
   * the work done, where separate `IF NOT EXISTS` statements raced into duplicate-key errors.
   */
  async #create(): Promise<void> {
    await this.#run('create the search index', createStatement(this.#table), []);
  }
}

/**
 * Creates the table and its GIN index, and gives a table of the layout before teams its team
 * column, keyed by (team, url). Rows of that layout go to the default team: they were written
 * when every page was findable by everyone, and the library, the CLI and a keyless server all
 * work as that team.
 */
function createStatement(table: string): string {
  const literal = `'${table.replaceAll("'", "''")}'`;
  return `DO $create$
    DECLARE old_key text;
    BEGIN
      PERFORM pg_advisory_xact_lock(hashtext(${literal}));
      CREATE TABLE IF NOT EXISTS ${table} (
        team text NOT NULL,
        url text NOT NULL,
        domain text NOT NULL,
        language text NOT NULL,
        fetched_at bigint NOT NULL,
        title text NOT NULL,
        description text NOT NULL,
        headings text NOT NULL,
        body text NOT NULL,
        tsv tsvector GENERATED ALWAYS AS (
          setweight(to_tsvector('simple', title), 'A') ||
          setweight(to_tsvector('simple', headings), 'B') ||
          setweight(to_tsvector('simple', description), 'C') ||
          setweight(to_tsvector('simple', body), 'D')
        ) STORED,
        PRIMARY KEY (team, url)
      );
      SELECT conname INTO old_key FROM pg_constraint
        WHERE conrelid = ${literal}::regclass AND contype = 'p' AND array_length(conkey, 1) = 1;
      IF old_key IS NOT NULL THEN
        ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS team text NOT NULL DEFAULT '${defaultTeam}';
        ALTER TABLE ${table} ALTER COLUMN team DROP DEFAULT;
        EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I, ADD PRIMARY KEY (team, url)', ${literal}, old_key);
      END IF;
      CREATE INDEX IF NOT EXISTS ${indexName(table)} ON ${table} USING gin (tsv);
    END
  $create$`;
}

/** A quoted name for the GIN index: the table's own name with a suffix, in its schema. */
function indexName(table: string): string {
  const name = /"((?:[^"]|"")*)"$/.exec(table)?.[1] ?? 'trawl_search';
  return `"${name.slice(0, 50)}_tsv"`;
}
