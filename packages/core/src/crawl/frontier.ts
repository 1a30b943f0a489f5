/**
 * The persistent state of a job in the Store: its record, the queue of URLs to scrape, the set of
 * URLs taken, and what each finished URL gave. Everything a job knows lives here as it happens,
 * so a killed process resumes exactly where it stopped.
 *
 * Keys of namespace `job:<id>` (numbers zero-padded so key order is numeric order):
 * - `q/<seq>`   a queued URL (deleted once its outcome is stored)
 * - `s/<key>`   a URL key taken (dedupe), with the seq it was queued as, or as an alias
 * - `d/<seq>`   the outcome of a finished queue entry (written before the result it names)
 * - `r/<ord>`   the documents, in completion order (numbers may skip a slot: see below)
 * - `o/<ord>`   in a store processes share, which queue entry took result slot `<ord>`
 * - `e/<seq>`   the error of a failed URL; `x/<key>` a document link skipped
 * - `b/<key>`   a URL robots.txt blocked
 *
 * Exactly once: a page's outcome marker `d/<seq>` names the result slot `r/<ord>` before the
 * document is written, and the queue entry goes last. After a kill, a queue entry whose marker
 * exists is either complete (result present: drop the entry) or is scraped again into a new
 * slot, as readers may have passed the empty one.
 */
import { keepJsonWhenStored } from '../defaults/stored-json.ts';
import type { Document } from '../document.ts';
import { scanStore, type Store, type StoreEntry } from '../interfaces/store.ts';
import { isCancelRequested } from '../jobs/cancels.ts';
import type { ErrorCode } from '../errors.ts';
import type { JobError, JobErrors, JobKind, JobProgress, JobStatus } from './types.ts';

/** Namespace of the job records. */
export const jobsNamespace = 'jobs';

/** What the store keeps about a job besides its pages. */
export interface JobRecord {
  id: string;
  kind: JobKind;
  url: string;
  /** The validated options, defaults applied. */
  options: Record<string, unknown>;
  status: JobStatus;
  createdAt: string;
  finishedAt?: string;
  error?: string;
  warning?: string;
  /** Start page done and sitemaps read: the frontier is complete but for what pages add. */
  seeded: boolean;
  /** Queue numbers below this are taken (reserved before use, so a kill never reuses one). */
  nextSeq: number;
  /**
   * Counters at the end, so a finished job reads back without scanning; while it runs in a
   * shared store, as its owner last published them.
   */
  progress?: JobProgress;
  /** Pages being scraped when the owner last published its counters (shared store). */
  activePages?: number;
  /** Batch scrape: inputs skipped as invalid. */
  invalidURLs?: string[];
}

/** One URL waiting in the queue. */
export interface QueueItem {
  seq: number;
  url: string;
  /** Discovery depth: start and sitemap URLs are 0. */
  depth: number;
  /** Dedupe key; empty for batch entries, which are never deduplicated. */
  key: string;
}

/** The outcome of a finished queue entry. */
export type Outcome =
  { kind: 'document'; ordinal: number } | { kind: 'error' } | { kind: 'dropped'; reason: string };

const pad = (n: number) => n.toString().padStart(12, '0');
/** How long a slot claim outlives its page: far longer than two owners of a job can overlap. */
const slotClaimMs = 60 * 60 * 1000;

/** The store-side half of a running job. */
export class JobState {
  readonly store: Store;
  readonly namespace: string;
  record: JobRecord;
  // Record writes go one after another, so an older snapshot never lands after a newer one.
  #saving: Promise<void> = Promise.resolve();

  constructor(store: Store, record: JobRecord) {
    this.store = store;
    this.record = record;
    this.namespace = `job:${record.id}`;
  }

  /** Reads a job record; undefined when there is none. */
  static async load(store: Store, id: string): Promise<JobRecord | undefined> {
    return store.get<JobRecord>(jobsNamespace, id);
  }

  saveRecord(): Promise<void> {
    const save = this.#saving.then(() =>
      this.store.set(jobsNamespace, this.record.id, this.record),
    );
    this.#saving = save.catch(() => undefined);
    return save;
  }

  /** Whether some process asked for the job to stop. */
  async isCancelRequested(): Promise<boolean> {
    return isCancelRequested(this.store, this.record.id);
  }

  /**
   * The counters of a job rebuilt from what it stored, and the highest result slot used: what a
   * restart resumes from.
   */
  async countOutcomes(): Promise<
    Pick<JobProgress, 'completed' | 'scraped' | 'failed' | 'total' | 'robotsBlocked'> & {
      maxOrdinal: number;
    }
  > {
    let completed = 0;
    let scraped = 0;
    let failed = 0;
    let maxOrdinal = -1;
    const finished = new Set<string>();
    for await (const { key, value } of this.scan<Outcome>('d/')) {
      finished.add(key.slice(2));
      completed += 1;
      if (value.kind === 'document') {
        scraped += 1;
        maxOrdinal = Math.max(maxOrdinal, value.ordinal);
      } else if (value.kind === 'error') {
        failed += 1;
      }
    }
    // Every URL taken is either still queued or has an outcome; entries cut off between the
    // two writes have both.
    let total = completed;
    for await (const { key } of this.scan('q/')) if (!finished.has(key.slice(2))) total += 1;
    let robotsBlocked = 0;
    for await (const _ of this.scan('b/')) robotsBlocked += 1;
    return { completed, scraped, failed, total, robotsBlocked, maxOrdinal };
  }

  /** Takes `count` queue numbers, persisted before any is used. */
  async reserve(count: number): Promise<number> {
    const first = this.record.nextSeq;
    this.record.nextSeq += count;
    await this.saveRecord();
    return first;
  }

  /**
   * Queues items and marks their keys taken, in order (each queue entry before its key: a kill
   * between leaves no gap).
   */
  enqueue(items: readonly QueueItem[]): Promise<void> {
    return this.#inOrder(
      items.flatMap((item) => [
        () => this.store.set(this.namespace, `q/${pad(item.seq)}`, item),
        ...(item.key ? [() => this.store.set(this.namespace, `s/${item.key}`, item.seq)] : []),
      ]),
    );
  }

  /**
   * Runs writes that must land in this order. A store that keeps the order of writes started
   * together (`orderedWrites`) gets them all at once, so they share its commits; a crawl's page
   * otherwise waits for a commit per write (six a page). Others get one at a time.
   */
  async #inOrder(writes: readonly (() => Promise<unknown>)[]): Promise<void> {
    if (this.store.capabilities?.orderedWrites) {
      await Promise.all(writes.map((write) => write()));
      return;
    }
    for (const write of writes) await write();
  }

  /** Marks a key taken without queueing it: a redirect target or canonical URL already fetched. */
  async alias(key: string): Promise<void> {
    await this.store.set(this.namespace, `s/${key}`, -1);
  }

  /** Queue entries after `afterSeq`, in queue order. */
  async queued(afterSeq: number | undefined, limit: number): Promise<QueueItem[]> {
    const entries = await this.store.list<QueueItem>(this.namespace, {
      prefix: 'q/',
      ...(afterSeq === undefined ? {} : { after: `q/${pad(afterSeq)}` }),
      limit,
    });
    return entries.map((entry) => entry.value);
  }

  async outcomeOf(seq: number): Promise<Outcome | undefined> {
    return this.store.get<Outcome>(this.namespace, `d/${pad(seq)}`);
  }

  /**
   * Takes result slot `ordinal` for queue entry `seq`, atomically across the processes sharing
   * the store; false when another owner took it: one that lost the job's lease and stores what
   * it had in hand before it notices, its counter of slots where the new owner's also is.
   */
  claimSlot(ordinal: number, seq: number): Promise<boolean> {
    return this.store.claim(this.namespace, `o/${pad(ordinal)}`, String(seq), slotClaimMs);
  }

  async hasResult(ordinal: number): Promise<boolean> {
    return (await this.store.get(this.namespace, `r/${pad(ordinal)}`)) !== undefined;
  }

  /** Stores a document in its slot: marker, then document, then the queue entry goes. */
  async storeDocument(
    item: QueueItem,
    ordinal: number,
    document: Document,
    ttlMs: number | undefined,
  ): Promise<void> {
    const outcome: Outcome = { kind: 'document', ordinal };
    // The CLI prints the document as it reads from the store: the store's text serves both.
    keepJsonWhenStored(document);
    await this.#inOrder([
      () => this.store.set(this.namespace, `d/${pad(item.seq)}`, outcome),
      () =>
        this.store.set(
          this.namespace,
          `r/${pad(ordinal)}`,
          document,
          ttlMs === undefined ? undefined : { ttlMs },
        ),
      () => this.store.delete(this.namespace, `q/${pad(item.seq)}`),
    ]);
  }

  storeError(item: QueueItem, error: JobError): Promise<void> {
    return this.#inOrder([
      () => this.store.set(this.namespace, `e/${pad(item.seq)}`, error),
      ...this.#finishing(item, { kind: 'error' }),
    ]);
  }

  /** Records an outcome without a document or error and retires the queue entry. */
  finish(item: QueueItem, outcome: Outcome): Promise<void> {
    return this.#inOrder(this.#finishing(item, outcome));
  }

  /** The writes of `finish`: the outcome, then the queue entry goes. */
  #finishing(item: QueueItem, outcome: Outcome): (() => Promise<unknown>)[] {
    return [
      () => this.store.set(this.namespace, `d/${pad(item.seq)}`, outcome),
      () => this.store.delete(this.namespace, `q/${pad(item.seq)}`),
    ];
  }

  async storeRobotsBlocked(key: string, url: string): Promise<void> {
    await this.store.set(this.namespace, `b/${key}`, url);
  }

  async storeSkipped(key: string, error: JobError): Promise<void> {
    await this.store.set(this.namespace, `x/${key}`, error);
  }

  /** Documents from ordinal `from`, at most `limit`. */
  async documents(from: number, limit: number): Promise<{ ordinal: number; document: Document }[]> {
    const entries = await this.store.list<Document>(this.namespace, {
      prefix: 'r/',
      ...(from > 0 ? { after: `r/${pad(from - 1)}` } : {}),
      limit,
    });
    return entries.map((entry) => ({ ordinal: Number(entry.key.slice(2)), document: entry.value }));
  }

  async deleteDocument(ordinal: number): Promise<void> {
    await this.store.delete(this.namespace, `r/${pad(ordinal)}`);
  }

  /** Every entry under `prefix`, read in batches. */
  scan<T>(prefix: string): AsyncGenerator<StoreEntry<T>> {
    return scanStore<T>(this.store, this.namespace, prefix);
  }

  /** Everything the job stored about pages, for an operator who deletes it. */
  async clear(): Promise<void> {
    await this.store.clear(this.namespace);
    await this.store.delete(jobsNamespace, this.record.id);
  }

  /** The job's failed pages and robots.txt-blocked URLs, as stored. */
  async errors(): Promise<JobErrors> {
    const errors: JobError[] = [];
    for await (const { value } of this.scan<JobError>('e/')) errors.push(value);
    for await (const { value } of this.scan<JobError>('x/')) errors.push(value);
    const robotsBlocked: string[] = [];
    for await (const { value } of this.scan<string>('b/')) robotsBlocked.push(value);
    return { errors, robotsBlocked };
  }
}

/** A failed page's record. */
export function jobError(url: string, code: ErrorCode, message: string): JobError {
  return {
    id: crypto.randomUUID(),
    url,
    code,
    error: message,
    timestamp: new Date().toISOString(),
  };
}
