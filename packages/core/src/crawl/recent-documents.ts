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
  readonly #onlyWriter: boolean;
  #newest = -1;

  /**
   * `onlyWriter`: this job writes every result slot, so any ordinal past the newest remembered
   * is still on its way here. False for a job in a shared store, where another owner may fill
   * slots: readers then go to the store as soon as memory has nothing for them.
   */
  constructor(limit: number, options: { onlyWriter: boolean } = { onlyWriter: true }) {
    this.#limit = limit;
    this.#onlyWriter = options.onlyWriter;
  }

  /** Keeps a document just stored under `ordinal`, dropping the oldest past the limit. */
  remember(ordinal: number, document: Document): void {
    this.#byOrdinal.set(ordinal, document);
    if (ordinal > this.#newest) this.#newest = ordinal;
    for (const oldest of this.#byOrdinal.keys()) {
      if (this.#byOrdinal.size <= this.#limit) break;
      this.#byOrdinal.delete(oldest);
    }
  }

  /**
   * Lets go of a document a reader has taken. With one reader, the usual case, a document then
   * lives only until it is handed over and dies young; kept for the next 128 pages, every one
   * outlived two scavenges and was promoted, and the main thread's old generation grew by their
   * garbage. A second reader finds it in the store.
   */
  release(ordinal: number): void {
    this.#byOrdinal.delete(ordinal);
  }

  /**
   * Whether the document of `ordinal` is yet to be remembered: past every ordinal remembered so
   * far, so still being written by this job, which remembers it once it is stored. A reader
   * waits for it rather than read the store: it found the commit done but the document not yet
   * remembered more than half the time, read and parsed it again, and the copy it then left
   * here was never released. False before anything is remembered, when a resumed
   * job's earlier documents are in the store only.
   */
  isAhead(ordinal: number): boolean {
    return this.#onlyWriter && this.#newest >= 0 && ordinal > this.#newest;
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
