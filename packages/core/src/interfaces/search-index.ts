/**
 * A full-text index of the pages Trawl scraped: the built-in search source (`source: 'local'`).
 * A Store offers one when its backend can (SQLite FTS5, PostgreSQL full-text); stores without one
 * (memory, Redis) leave `Store.searchIndex` unset and local search answers with a warning.
 *
 * Every entry belongs to a team, and every read names the team it reads for: a team finds only
 * the pages scraped for it. The same URL scraped by two teams is two entries.
 *
 * @remarks
 * Deliberately out of the contract: query syntax. Callers pass plain words; each backend quotes
 * them itself, so no user text ever reaches the backend's query language raw.
 */
export interface SearchIndex {
  /** Adds a page, replacing any earlier entry of the same team and URL (idempotent). */
  put(entry: IndexEntry): Promise<void>;
  /** Removes the team's entry of `url`; resolves `true` when there was one. */
  remove(team: string, url: string): Promise<boolean>;
  /**
   * The team's best-ranked entries matching any of the words, best first; no words match
   * nothing. Entries of other teams are never returned.
   */
  query(query: IndexQuery): Promise<IndexHit[]>;
  /** How many pages the index holds (every team's) and, where known, its size on disk. */
  stats(): Promise<IndexStats>;
  /** Removes every entry of every team. Idempotent. */
  clear(): Promise<void>;
}

/** One indexed page. */
export interface IndexEntry {
  /** The team it was scraped for; with `url`, the entry's identity. */
  team: string;
  /** The page URL after redirects, without user name or password. */
  url: string;
  title: string;
  description: string;
  /** The page's headings, one per line. */
  headings: string;
  /** The main content as plain text. */
  body: string;
  /** The host name, lower case. */
  domain: string;
  /** The declared language (`en`, `fr-CA`), empty when unknown. */
  language: string;
  /** When the page was fetched, ms since the epoch. */
  fetchedAt: number;
}

/** What `SearchIndex.query` is asked. */
export interface IndexQuery {
  /** The team searching: only its entries are found. */
  team: string;
  /** Plain words (letters and digits); the backend quotes each. */
  words: readonly string[];
  limit: number;
  /** Only these hosts and their subdomains. */
  includeDomains?: readonly string[];
  /** Never these hosts or their subdomains. */
  excludeDomains?: readonly string[];
  /** Only pages fetched at or after this time (ms since the epoch). */
  fetchedAfter?: number;
  /** Only pages fetched at or before this time (ms since the epoch). */
  fetchedBefore?: number;
  /** Only pages in this language or its regional variants (`en` takes `en-GB`); unknown language passes. */
  language?: string;
}

/** One match of `SearchIndex.query`. */
export interface IndexHit {
  url: string;
  title: string;
  description: string;
  /** An excerpt around the matched words. */
  snippet: string;
  language: string;
  fetchedAt: number;
  /** Higher is better; only comparable within one answer. */
  score: number;
}

/** Size of an index. */
export interface IndexStats {
  documents: number;
  /** Bytes on disk the index takes, when the backend can tell. */
  bytes?: number;
}
