/**
 * A Queue on BullMQ over Redis: units added by any process run on whichever `trawl worker` (or
 * `trawl serve`) consumes their kind, on any machine that reaches the Redis server.
 *
 * One BullMQ queue per kind of unit (`job`, `page`), named `<kind>` under `prefix`. The
 * unit id is the BullMQ job id, so adding a unit that still waits or runs is a no-op. A consumer
 * holds a lock on each unit it runs and renews it every `leaseMs / 2`; a consumer that dies stops
 * renewing, and once the lock has expired BullMQ's stalled-job check puts the unit back to wait
 * for another consumer: that is the lease after which a dead owner's job is taken over.
 *
 * Results travel in BullMQ's completed events (one QueueEvents stream reader per kind that this
 * process runs units of), and finished units are removed at once: Redis keeps only what waits or
 * runs. A handler's error travels as a value (`{ failed }`) so its code survives the trip.
 */
import {
  QueueEvents,
  Queue as BullQueue,
  Worker,
  type ConnectionOptions,
  type Job as BullJob,
} from 'bullmq';
import {
  TrawlError,
  ValidationError,
  toTrawlError,
  type ConsumeOptions,
  type ErrorCode,
  type Queue,
  type QueueCapabilities,
  type QueueCounts,
  type QueueUnit,
  type UnitHandler,
} from '@trawl/core';

/** Options of `BullmqQueue`. */
export interface BullmqQueueOptions {
  /** Where Redis listens: `redis://[user:password@]host:port[/db]`. @default 'redis://127.0.0.1:6379' */
  url?: string;
  /** Start of every Redis key BullMQ writes for this queue, so several deployments share a server. @default 'trawl' */
  prefix?: string;
  /**
   * How long a consumer's hold on a unit lasts without renewal: a unit whose consumer died runs
   * again elsewhere within about twice this. @default 30000
   */
  leaseMs?: number;
}

/** What a handler's outcome looks like on the wire. */
type Outcome = { value: unknown } | { failed: { code: ErrorCode; message: string } };

interface Waiter {
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** A `Queue` shared through Redis with BullMQ. */
export class BullmqQueue implements Queue {
  readonly capabilities: QueueCapabilities = { shared: true };
  readonly #connection: ConnectionOptions;
  readonly #prefix: string;
  readonly #leaseMs: number;
  readonly #queues = new Map<string, BullQueue>();
  readonly #workers = new Map<string, Worker>();
  readonly #events = new Map<string, Promise<QueueEvents>>();
  readonly #waiters = new Map<string, Waiter[]>();
  #closed = false;

  constructor(options: BullmqQueueOptions = {}) {
    const url = options.url ?? 'redis://127.0.0.1:6379';
    if (!/^rediss?:\/\//.test(url))
      throw new ValidationError(`BullmqQueue needs a redis:// or rediss:// URL (got '${url}')`);
    // Workers block on Redis: BullMQ asks for no per-request retry limit on their connections.
    this.#connection = { url, maxRetriesPerRequest: null };
    this.#prefix = options.prefix ?? 'trawl';
    this.#leaseMs = options.leaseMs ?? 30_000;
  }

  async consume(kind: string, handler: UnitHandler, options: ConsumeOptions = {}): Promise<void> {
    if (this.#workers.has(kind)) throw new Error(`a consumer of '${kind}' units is registered`);
    const process = async (job: BullJob, _token?: string, signal?: AbortSignal) => {
      const unit: QueueUnit = { kind, id: job.id ?? '', data: job.data as unknown };
      try {
        return { value: await handler(unit, signal ?? new AbortController().signal) };
      } catch (error) {
        const trawlError = toTrawlError(error);
        return { failed: { code: trawlError.code, message: trawlError.message } };
      }
    };
    const worker = new Worker(kind, process, {
      connection: this.#connection,
      prefix: this.#prefix,
      concurrency: options.concurrency ?? 1,
      lockDuration: this.#leaseMs,
      stalledInterval: this.#leaseMs,
      // A unit whose consumer died is run again however often that happens: the job's own
      // bookkeeping in the Store makes a second run harmless.
      maxStalledCount: Number.MAX_SAFE_INTEGER,
      removeOnComplete: { count: 0 },
      removeOnFail: { count: 0 },
    });
    // Connection trouble is retried by the client; the event must have a listener all the same.
    worker.on('error', () => undefined);
    // A unit whose lock could not be renewed may already run elsewhere: stop it here.
    worker.on('lockRenewalFailed', (ids) => {
      for (const id of ids) worker.cancelJob(id, 'lease lost');
    });
    this.#workers.set(kind, worker);
    await worker.waitUntilReady();
  }

  async add(unit: QueueUnit): Promise<void> {
    if (this.#closed) return;
    await this.#queue(unit.kind).add(unit.kind, unit.data, {
      jobId: unit.id,
      removeOnComplete: true,
      removeOnFail: true,
    });
  }

  async run<R>(unit: QueueUnit): Promise<R> {
    // The stream reader is live before the unit is added, so its completion cannot be missed.
    await this.#eventsOf(unit.kind);
    const key = `${unit.kind}\u0000${unit.id}`;
    const outcome = new Promise<unknown>((resolve, reject) => {
      const waiters = this.#waiters.get(key) ?? [];
      waiters.push({ resolve, reject });
      this.#waiters.set(key, waiters);
    });
    await this.add(unit);
    const settled = (await outcome) as Outcome;
    if ('failed' in settled) throw new TrawlError(settled.failed.code, settled.failed.message);
    return settled.value as R;
  }

  async counts(kind: string): Promise<QueueCounts> {
    const counts = await this.#queue(kind).getJobCounts(
      'active',
      'waiting',
      'prioritized',
      'delayed',
    );
    return {
      active: counts['active'] ?? 0,
      waiting: (counts['waiting'] ?? 0) + (counts['prioritized'] ?? 0) + (counts['delayed'] ?? 0),
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // Forced: a crawl's owner unit runs as long as the crawl; its lease lets another take over.
    for (const worker of this.#workers.values()) worker.cancelAllJobs('queue closed');
    await Promise.allSettled([...this.#workers.values()].map((worker) => worker.close(true)));
    const readers = await Promise.allSettled(this.#events.values());
    await Promise.allSettled(
      readers.flatMap((reader) => (reader.status === 'fulfilled' ? [reader.value.close()] : [])),
    );
    await Promise.allSettled([...this.#queues.values()].map((queue) => queue.close()));
    for (const waiters of this.#waiters.values()) {
      for (const waiter of waiters)
        waiter.reject(
          new TrawlError('STORE_UNAVAILABLE', 'the queue was closed', { retryable: true }),
        );
    }
    this.#waiters.clear();
  }

  #queue(kind: string): BullQueue {
    let queue = this.#queues.get(kind);
    if (!queue) {
      queue = new BullQueue(kind, { connection: this.#connection, prefix: this.#prefix });
      queue.on('error', () => undefined);
      this.#queues.set(kind, queue);
    }
    return queue;
  }

  #eventsOf(kind: string): Promise<QueueEvents> {
    let events = this.#events.get(kind);
    if (!events) {
      const reader = new QueueEvents(kind, { connection: this.#connection, prefix: this.#prefix });
      reader.on('error', () => undefined);
      reader.on('completed', ({ jobId, returnvalue }) => {
        this.#settle(kind, jobId, (waiter) => waiter.resolve(returnvalue));
      });
      reader.on('failed', ({ jobId, failedReason }) => {
        const error = new TrawlError('UNKNOWN_ERROR', `unit ${jobId} failed: ${failedReason}`);
        this.#settle(kind, jobId, (waiter) => waiter.reject(error));
      });
      events = reader.waitUntilReady().then(() => reader);
      this.#events.set(kind, events);
    }
    return events;
  }

  #settle(kind: string, id: string, settle: (waiter: Waiter) => void): void {
    const key = `${kind}\u0000${id}`;
    const waiters = this.#waiters.get(key);
    if (!waiters) return;
    this.#waiters.delete(key);
    for (const waiter of waiters) settle(waiter);
  }
}
