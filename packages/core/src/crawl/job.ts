/**
 * The job runner shared by crawl and batch scrape: a scheduler over the persistent frontier with
 * a job-wide and a per-host concurrency bound, an optional delay between scrapes, retries of
 * 429/503 answers, and the bookkeeping that makes every page count exactly once.
 *
 * What differs between a crawl and a batch scrape (seeding, what a page's links do) is the
 * `JobPlan` the caller passes; everything else is here.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { resolveEngineConfig, type EngineConfig, type EngineContext } from '../config.ts';
import type { Document } from '../document.ts';
import { toTrawlError, type ErrorCode } from '../errors.ts';
import type { ScrapeOutcome } from '../scrape/engine.ts';
import { noProgress, readDocuments, RecordedJob, resultsPage } from './job-reading.ts';
import { watchShared, type PageDispatch } from './shared-owner.ts';
import { jobError, type JobState, type QueueItem } from './frontier.ts';
import type { JobPlan } from './plan.ts';
import { RecentDocuments } from './recent-documents.ts';
import { scrapeWithRetries } from './retries.ts';
import type {
  Job,
  JobErrors,
  JobProgress,
  JobResultsPage,
  JobStatus,
  JobSummary,
} from './types.ts';
import { dayMs } from '../internal/time.ts';

const bufferTarget = 200;
/** A running (or finished) crawl or batch scrape. */
export class JobRunner extends RecordedJob implements Job {
  readonly config: EngineConfig;
  readonly #context: EngineContext;
  readonly #plan: JobPlan;
  readonly #abort = new AbortController();
  readonly #concurrency: number;
  readonly #hostConcurrency: number;
  readonly #counters: JobProgress = { ...noProgress };
  /** Queue entries read from the store and not yet started, in queue order. */
  #buffer: QueueItem[] = [];
  #bufferCursor: number | undefined;
  #storeDrained = false;
  #refilling: Promise<void> | undefined;
  // Bumped by every enqueue, so a refill that raced with one does not claim the store is drained.
  #writes = 0;
  #enqueueChain: Promise<void> = Promise.resolve();
  readonly #inFlight = new Map<number, Promise<void>>();
  readonly #hostLoad = new Map<string, number>();
  #nextOrdinal = 0;
  /**
   * Documents must land in slot order: a reader that has seen slot n+1 never looks at slot n
   * again. A store of this process applies writes in the order they are made, which is slot
   * order; a shared store's connections could commit them out of order, so there each document
   * waits for the one before it.
   */
  #storing: Promise<unknown> | undefined;
  #firstDone = false;
  #afterFirst: Promise<void> | undefined;
  #lastStartAt = 0;
  #delayTimer: Promise<void> | undefined;
  #status: JobStatus;
  #changed = Promise.withResolvers<void>();
  readonly #done = Promise.withResolvers<JobSummary>();
  #finishing = false;
  readonly #dispatch: PageDispatch | undefined;
  #stopWatch: (() => void) | undefined;
  /** The last 128 stored documents, for an iterator that keeps up (the objects 'document' gets). */
  readonly #recent: RecentDocuments;

  constructor(state: JobState, plan: JobPlan, context: EngineContext, dispatch?: PageDispatch) {
    super(state);
    this.#plan = plan;
    this.#context = context;
    this.#dispatch = dispatch;
    this.config = context.config ?? resolveEngineConfig();
    this.#status = state.record.status;
    if (state.store.capabilities?.shared) this.#storing = Promise.resolve();
    // In a shared store another owner of the job may fill result slots this process never sees.
    this.#recent = new RecentDocuments(128, { onlyWriter: !this.#storing });
    const options = state.record.options as { maxConcurrency?: number };
    this.#concurrency = options.maxConcurrency ?? this.config.crawlConcurrency;
    this.#hostConcurrency = this.config.hostConcurrency;
    if (state.record.progress) Object.assign(this.#counters, state.record.progress);
    // An EventEmitter without listeners for an event is fine; progress is optional to watch.
    this.setMaxListeners(0);
  }

  get status(): JobStatus {
    return this.#status;
  }
  get progress(): JobProgress {
    return { ...this.#counters, queued: this.#counters.total - this.#counters.completed };
  }
  get done(): Promise<JobSummary> {
    return this.#done.promise;
  }
  get signal(): AbortSignal {
    return this.#abort.signal;
  }
  get isFinal(): boolean {
    return this.#status !== 'scraping';
  }
  /** Ending: no new page starts (cancelled, failed, or completing). */
  get isEnding(): boolean {
    return this.#finishing || this.isFinal;
  }
  get engineContext(): EngineContext {
    return { ...this.#context, signal: this.#abort.signal };
  }
  /** Stops driving without an end status or `done`: another process took the job over. */
  abandon(): void {
    this.#finishing = true;
    this.#stopWatch?.();
    this.#abort.abort();
  }

  /** Counts URLs taken into the job (queued or about to be). */
  countTaken(count: number): void {
    this.#counters.total += count;
  }
  countDiscovered(count = 1): void {
    this.#counters.discovered += count;
  }
  get taken(): number {
    return this.#counters.total;
  }
  /** Pages being scraped now. */
  get activePages(): number {
    return this.#inFlight.size;
  }
  /** Wakes the scheduler: new queue entries were written. */
  wake(): void {
    this.#writes += 1;
    this.#storeDrained = false;
    this.#pump();
  }

  /**
   * Queues new URLs. Batches run one after another, so queue numbers reach the store in
   * increasing order and the scheduler's cursor never skips an entry written late.
   */
  enqueue(entries: readonly Omit<QueueItem, 'seq'>[]): Promise<void> {
    if (entries.length === 0) return Promise.resolve();
    this.countTaken(entries.length);
    const run = this.#enqueueChain.then(async () => {
      const first = await this.state.reserve(entries.length);
      await this.state.enqueue(entries.map((entry, index) => ({ ...entry, seq: first + index })));
      this.wake();
    });
    this.#enqueueChain = run.catch(() => undefined);
    return run;
  }

  /** Records a URL robots.txt disallowed, once per key. */
  async recordRobotsBlocked(key: string, url: string): Promise<void> {
    await this.state.storeRobotsBlocked(key, url);
    this.#counters.robotsBlocked += 1;
    this.emit('robotsBlocked', url);
  }

  /**
   * Records something the job passed over that is not a queued page (a document link it cannot
   * read yet, a broken sitemap), once per key; it shows in `errors()`.
   */
  async recordIssue(key: string, url: string, code: ErrorCode, message: string): Promise<void> {
    await this.state.storeSkipped(key, jobError(url, code, message));
  }

  /** Starts (or, after a restart, resumes) the job. */
  start(): this {
    if (this.isFinal) {
      this.#done.resolve(this.#summary());
      return this;
    }
    void this.#run();
    return this;
  }

  async #run(): Promise<void> {
    try {
      if (this.state.store.capabilities?.shared) this.#stopWatch = watchShared(this);
      if (!this.#plan.firstAlone) this.#firstDone = true;
      if (this.state.record.nextSeq > 0) await this.#restore();
      else await this.state.saveRecord();
      if (!this.state.record.seeded) await this.#plan.seed(this);
      this.#pump();
    } catch (error) {
      await this.#fail(error);
    }
  }

  /** Rebuilds counters and the result cursor from the store after a restart. */
  async #restore(): Promise<void> {
    const { maxOrdinal, ...counters } = await this.state.countOutcomes();
    Object.assign(this.#counters, counters);
    this.#counters.discovered = Math.max(this.#counters.discovered, counters.total);
    this.#nextOrdinal = maxOrdinal + 1;
    if (this.#plan.firstAlone) this.#firstDone = (await this.state.outcomeOf(0)) !== undefined;
    await this.#plan.restore?.(this);
  }

  #pump(): void {
    if (this.isFinal || this.#finishing) return;
    if (this.#firstDone && this.state.record.seeded === false && !this.#afterFirst) {
      this.#afterFirst = this.#runAfterFirst();
    }
    while (this.#inFlight.size < this.#effectiveConcurrency()) {
      // Nothing else starts before the first entry (the start page) is done.
      if (!this.#firstDone && (this.#inFlight.size > 0 || this.#buffer[0]?.seq !== 0)) {
        if (this.#buffer.length === 0) this.#refill();
        break;
      }
      const index = this.#nextStartable();
      if (index === -1) {
        if (this.#buffer.length < bufferTarget) this.#refill();
        break;
      }
      if (!this.#delayAllows()) break;
      const [item] = this.#buffer.splice(index, 1);
      if (item) this.#launch(item);
    }
    if (this.#buffer.length < bufferTarget / 2) this.#refill();
    this.#checkFinished();
  }

  /** The first buffered entry whose host has room; most crawls have one host, so look at [0] first. */
  #nextStartable(): number {
    const hasRoom = (item: QueueItem) =>
      (this.#hostLoad.get(hostOf(item.url)) ?? 0) < this.#hostConcurrency;
    const first = this.#buffer[0];
    if (!first) return -1;
    return hasRoom(first) ? 0 : this.#buffer.findIndex(hasRoom);
  }

  #effectiveConcurrency(): number {
    return this.#plan.delaySeconds ? 1 : this.#concurrency;
  }

  /** With a delay, at most one start per `delay` seconds; schedules a wake-up otherwise. */
  #delayAllows(): boolean {
    const delayMs = (this.#plan.delaySeconds ?? 0) * 1000;
    if (delayMs === 0) return true;
    const waitMs = this.#lastStartAt + delayMs - Date.now();
    if (waitMs <= 0) return true;
    if (!this.#delayTimer) {
      this.#delayTimer = sleep(waitMs, undefined, { signal: this.#abort.signal })
        .then(() => {
          this.#delayTimer = undefined;
          this.#pump();
        })
        .catch(() => undefined);
    }
    return false;
  }

  #refill(): void {
    if (this.#refilling || this.#storeDrained) return;
    const writesBefore = this.#writes;
    this.#refilling = (async () => {
      try {
        const items = await this.state.queued(this.#bufferCursor, bufferTarget);
        const known = new Set(this.#buffer.map((item) => item.seq));
        for (const item of items) {
          if (!this.#inFlight.has(item.seq) && !known.has(item.seq)) this.#buffer.push(item);
        }
        const last = items.at(-1);
        if (last) this.#bufferCursor = last.seq;
        if (items.length < bufferTarget && writesBefore === this.#writes) this.#storeDrained = true;
      } catch (error) {
        await this.#fail(error);
      } finally {
        this.#refilling = undefined;
      }
      this.#pump();
    })();
  }

  #checkFinished(): void {
    if (
      this.#inFlight.size === 0 &&
      this.#buffer.length === 0 &&
      this.#storeDrained &&
      !this.#refilling &&
      this.state.record.seeded &&
      this.#firstDone
    ) {
      void this.#finish('completed');
    }
  }

  async #runAfterFirst(): Promise<void> {
    try {
      await this.#plan.afterFirst?.(this);
      this.state.record.seeded = true;
      await this.state.saveRecord();
      this.wake();
    } catch (error) {
      await this.#fail(error);
    }
  }

  #launch(item: QueueItem): void {
    const host = hostOf(item.url);
    this.#hostLoad.set(host, (this.#hostLoad.get(host) ?? 0) + 1);
    this.#lastStartAt = Date.now();
    const task = this.#process(item)
      .catch((error: unknown) => this.#fail(error))
      .finally(() => {
        this.#inFlight.delete(item.seq);
        const load = (this.#hostLoad.get(host) ?? 1) - 1;
        if (load === 0) this.#hostLoad.delete(host);
        else this.#hostLoad.set(host, load);
        if (item.seq === 0) this.#firstDone = true;
        this.#pump();
      });
    this.#inFlight.set(item.seq, task);
  }

  /** Scrapes one queue entry and stores its outcome, exactly once. */
  async #process(item: QueueItem): Promise<void> {
    const previous = await this.state.outcomeOf(item.seq);
    if (previous) {
      // The process died after the outcome was written: finish the entry, or scrape the page
      // again. Its empty slot stays empty: readers of the stored documents may have passed it,
      // so the page takes a new slot, and its marker is rewritten to name that one.
      if (previous.kind !== 'document' || (await this.state.hasResult(previous.ordinal))) {
        await this.state.finish(item, previous);
        return;
      }
    }
    if (this.#plan.admit && !(await this.#plan.admit(this, item))) {
      await this.state.finish(item, { kind: 'dropped', reason: 'robots' });
      this.#countDone();
      return;
    }
    let outcome: ScrapeOutcome;
    try {
      outcome = await this.#scrapeWithRetries(item);
    } catch (error) {
      if (this.#abort.signal.aborted) return;
      const trawlError = toTrawlError(error);
      await this.#storeError(item, trawlError.code, trawlError.message);
      return;
    }
    if (this.#abort.signal.aborted) return;
    const verdict = await this.#plan.review(this, item, outcome);
    if (verdict.error) {
      await this.#storeError(item, verdict.error.code, verdict.error.message);
      return;
    }
    if (!verdict.keep) {
      await this.state.finish(item, { kind: 'dropped', reason: verdict.dropReason ?? 'dropped' });
      this.#countDone();
      return;
    }
    const options = this.state.record.options as { zeroDataRetention?: boolean };
    // Zero data retention: a document nobody reads does not outlive a day.
    const ttlMs = options.zeroDataRetention ? dayMs : undefined;
    const storeAt = async (ordinal: number) => {
      await this.state.storeDocument(item, ordinal, outcome.document, ttlMs);
      return ordinal;
    };
    // In a shared store, slots are claimed and written one after another, in slot order.
    const stored = this.#storing
      ? this.#storing.then(async () => storeAt(await this.#claimSlot(item.seq)))
      : storeAt(this.#nextOrdinal++);
    if (this.#storing) this.#storing = stored.catch(() => undefined);
    const ordinal = await stored;
    this.#recent.remember(ordinal, outcome.document);
    // A page found half-stored after a restart was counted when the counters were rebuilt.
    if (!previous) {
      this.#counters.scraped += 1;
      this.#countDone();
    }
    this.emit('document', outcome.document);
    this.#notify();
  }

  /** The next result slot no other owner of the job has taken. */
  async #claimSlot(seq: number): Promise<number> {
    for (;;) {
      const ordinal = this.#nextOrdinal++;
      if (await this.state.claimSlot(ordinal, seq)) return ordinal;
    }
  }

  #scrapeWithRetries(item: QueueItem): Promise<ScrapeOutcome> {
    const { seq, url } = item;
    const options = this.#plan.scrapeOptions;
    if (this.#dispatch) return this.#dispatch({ jobId: this.id, seq, url, options }, this.signal);
    return scrapeWithRetries(item.url, this.#plan.scrapeOptions, this.engineContext, {
      retries: this.config.crawlRetries,
      signal: this.#abort.signal,
    });
  }

  async #storeError(item: QueueItem, code: ErrorCode, message: string): Promise<void> {
    const error = jobError(item.url, code, message);
    await this.state.storeError(item, error);
    this.#counters.failed += 1;
    this.#countDone();
    this.emit('pageError', error);
  }

  #countDone(): void {
    this.#counters.completed += 1;
    this.emit('progress', this.progress);
  }

  #notify(): void {
    const changed = this.#changed;
    this.#changed = Promise.withResolvers<void>();
    changed.resolve();
  }

  async #finish(status: JobStatus, error?: string): Promise<void> {
    if (this.#finishing || this.isFinal) return;
    this.#finishing = true;
    this.#stopWatch?.();
    if (status !== 'completed') this.#abort.abort();
    // Pages in flight store nothing after an abort; wait so nothing is written after `done`.
    await Promise.allSettled([...this.#inFlight.values()]);
    const record = this.state.record;
    record.status = status;
    record.finishedAt = new Date().toISOString();
    record.progress = this.progress;
    if (error) record.error = error;
    const warning = this.#plan.warning?.(this);
    if (warning) record.warning = warning;
    try {
      await this.state.saveRecord();
    } catch {
      // The store is gone; the status in memory is still right for this process.
    }
    this.#status = status;
    this.#finishing = false;
    this.emit('progress', this.progress);
    this.emit('status', status);
    this.#notify();
    this.#done.resolve(this.#summary());
  }

  async #fail(error: unknown): Promise<void> {
    if (this.isFinal) return;
    const trawlError = toTrawlError(error);
    await this.#finish('failed', `${trawlError.code}: ${trawlError.message}`);
  }

  #summary(): JobSummary {
    const record = this.state.record;
    return {
      id: record.id,
      status: this.#status,
      progress: this.progress,
      ...(record.error ? { error: record.error } : {}),
      ...(record.warning ? { warning: record.warning } : {}),
    };
  }

  async cancel(): Promise<void> {
    if (this.isFinal) return;
    await this.#finish('cancelled');
  }

  errors(): Promise<JobErrors> {
    return this.state.errors();
  }

  results(options: { skip?: number; limit?: number } = {}): Promise<JobResultsPage> {
    return resultsPage(this.state, options);
  }

  [Symbol.asyncIterator](): AsyncGenerator<Document> {
    return readDocuments(
      this.state,
      () => ({ changed: this.#changed.promise, final: this.isFinal }),
      this.#recent,
    );
  }
}

const hostOf = (url: string) => new URL(url).host;
