/**
 * What the SQL search indexes (SQLite's built-in one, PostgreSQL's in the adapters) share of a
 * query: the filter clauses, which are the same SQL in both, and the two passes of a query
 * (pages holding every word, then pages holding any word), and the hit a result row becomes.
 */
import type { IndexHit, IndexQuery } from '../interfaces/search-index.ts';

/**
 * The WHERE clauses of a query's filters, joined by AND by the caller: the team's entries only,
 * then the caller's filters. `param` binds a value and returns its placeholder; it is called in
 * the order the placeholders stand in the clauses. `prefix` qualifies the columns (`d.` when the
 * documents table is aliased).
 */
export function indexFilterClauses(
  query: IndexQuery,
  param: (value: string | number) => string,
  prefix = '',
): string[] {
  const where: string[] = [`${prefix}team = ${param(query.team)}`];
  const onDomain = (domain: string) =>
    `(${prefix}domain = ${param(domain)} OR ${prefix}domain LIKE ${param(`%.${domain}`)})`;
  if (query.includeDomains?.length)
    where.push(`(${query.includeDomains.map(onDomain).join(' OR ')})`);
  for (const domain of query.excludeDomains ?? []) where.push(`NOT ${onDomain(domain)}`);
  if (query.fetchedAfter !== undefined)
    where.push(`${prefix}fetched_at >= ${param(query.fetchedAfter)}`);
  if (query.fetchedBefore !== undefined)
    where.push(`${prefix}fetched_at <= ${param(query.fetchedBefore)}`);
  if (query.language) {
    // Pages that declare no language are not excluded by a language they might well be in.
    const language = query.language.toLowerCase();
    where.push(
      `(${prefix}language = '' OR ${prefix}language = ${param(language)} OR ${prefix}language LIKE ${param(`${language}-%`)})`,
    );
  }
  return where;
}

/** Whether the any-word pass runs: the all-words pass found fewer than the limit. */
export function wantsAnyWordPass(query: IndexQuery, all: readonly IndexHit[]): boolean {
  return all.length < query.limit && query.words.length !== 1;
}

/** The all-words hits, then the any-word hits not among them, up to the limit. */
export function mergeWordPasses(
  query: IndexQuery,
  all: readonly IndexHit[],
  any: readonly IndexHit[],
): IndexHit[] {
  const seen = new Set(all.map((hit) => hit.url));
  return [...all, ...any.filter((hit) => !seen.has(hit.url))].slice(0, query.limit);
}

/**
 * A row of a hit query: the documents' columns as the index stores them, and the snippet. A type,
 * not an interface, so a driver's untyped row (`Record<string, …>`) can be asserted to it.
 */
export type IndexHitRow = {
  url: string;
  title: string;
  description: string;
  snippet: string;
  language: string;
  /** ms since the epoch; node-postgres returns a bigint column as a string. */
  fetched_at: number | string;
};

/** The hit a row stands for, given its score (higher is better). */
export function indexHitOf(row: IndexHitRow, score: number): IndexHit {
  return {
    url: row.url,
    title: row.title,
    description: row.description,
    snippet: row.snippet,
    language: row.language,
    fetchedAt: Number(row.fetched_at),
    score,
  };
}
