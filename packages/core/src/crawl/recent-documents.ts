/**
 * The documents a job stored last, kept in memory by ordinal so that an iterator keeping up with
 * the job takes them from here instead of reading back and parsing what was just written (issue
 * 17: a crawl read every page's JSON back out of SQLite a moment after writing it). Bounded: the
 * oldest go first, and a slower reader, or one started later, reads the store as before.
 */
import type { Document } from '../document.ts';

/** An entry as the iterator yields it. */
export interface OrdinalDocument {
  ordinal: number;
  document: Document;
}

export class RecentDocuments {
  readonly #byOrdinal = new Map<number, Document>();
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Keeps a document just stored under `ordinal`, dropping the oldest past the limit. */
  remember(ordinal: number, document: Document): void {
    this.#byOrdinal.set(ordinal, document);
    for (const oldest of this.#byOrdinal.keys()) {
      if (this.#byOrdinal.size <= this.#limit) break;
      this.#byOrdinal.delete(oldest);
    }
  }

  /**
   * Lets go of a document a reader has taken. With one reader, the usual case, a document then
   * lives only until it is handed over and dies young; kept for the next 128 pages, every one
   * outlived two scavenges and was promoted, and the main thread's old generation grew by their
   * garbage (issue 17). A second reader finds it in the store.
   */
  release(ordinal: number): void {
    this.#byOrdinal.delete(ordinal);
  }

  /** The documents from ordinal `from` on, consecutive and in order, at most `limit`. */
  from(from: number, limit: number): OrdinalDocument[] {
    const entries: OrdinalDocument[] = [];
    for (let ordinal = from; entries.length < limit; ordinal++) {
      const document = this.#byOrdinal.get(ordinal);
      if (!document) break;
      entries.push({ ordinal, document });
    }
    return entries;
  }
}
