/**
 * Units of work and who runs them. A crawl or batch scrape is one `job` unit (its owner, which
 * drives the frontier) and one `page` unit per URL. The
 * embedded `InProcessQueue` runs them in the process that adds them; a shared queue (BullMQ on
 * Redis) lets any number of worker processes on any machine run them.
 *
 * @remarks
 * Deliberately out of the contract: priorities, delays, repeat schedules, rate limits and unit
 * dependencies. A unit runs at least once: a consumer that dies while running one has it run
 * again elsewhere once its lease expires, so handlers must be safe to run twice (the job's
 * exactly-once bookkeeping lives in the Store, not in the queue).
 */

/** One unit of work. */
export interface QueueUnit<T = unknown> {
  /** What runs it: the consumer registered for this kind. */
  kind: string;
  /** A stable id: a unit whose id is already waiting or running is not added again. */
  id: string;
  /** JSON-serialisable input of the handler. */
  data: T;
}

/** Runs one unit; `signal` aborts when the consumer stops or loses the unit. */
export type UnitHandler = (unit: QueueUnit, signal: AbortSignal) => Promise<unknown>;

/** Options of `Queue.consume`. */
export interface ConsumeOptions {
  /** Units of this kind this process runs at once. @default 1 */
  concurrency?: number;
}

/** Units of one kind, across every process sharing the queue. */
export interface QueueCounts {
  /** Added and not yet started. */
  waiting: number;
  /** Started and not yet finished. */
  active: number;
}

/** Where units of work wait for a consumer. */
export interface Queue {
  /** Runs units of `kind` in this process, `concurrency` at a time, until `close()`. One handler per kind. */
  consume(kind: string, handler: UnitHandler, options?: ConsumeOptions): Promise<void>;
  /** Adds a unit without waiting for it; idempotent while a unit with its id waits or runs. */
  add(unit: QueueUnit): Promise<void>;
  /** Adds a unit and resolves with its handler's result; rejects with a TrawlError when the handler throws. */
  run<R>(unit: QueueUnit): Promise<R>;
  /** Units of `kind` waiting and running, as every process sharing the queue sees them. */
  counts(kind: string): Promise<QueueCounts>;
  /** Stops consuming (running handlers see their signal abort) and releases connections. Idempotent. */
  close(): Promise<void>;
  /** What the backend offers beyond the contract. */
  readonly capabilities: QueueCapabilities;
}

/** Features a queue declares instead of being sniffed. */
export interface QueueCapabilities {
  /** Units added here may run in other processes (and survive this one). */
  shared: boolean;
}
