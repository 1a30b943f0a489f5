/**
 * The job host: the runner of every kind of job, kept apart from the work itself, as BullMQ's
 * `Worker` runs a processor it is given and crawlee's `BasicCrawler` runs a request handler. A
 * kind registers how to run one job of it (`JobKindHandler.run`, which also resumes: it is given
 * the record as last stored); the host owns the rest — the record in the store, in the spec's
 * status words, for the retention time; a queue unit per job (in-process, or BullMQ so that any
 * worker runs it); the lease and take-over after a kill (the queue's); cancel (the store's mark,
 * `cancels.ts`); restore at start-up; and the start and end events the kind reports.
 *
 * A job runs at least once to its end: a process that dies mid-run leaves the record as its last
 * checkpoint stored it, and the next one to take the unit runs the kind again from there.
 */
import { toTrawlError } from '../errors.ts';
import type { Queue, QueueUnit, UnitHandler } from '../interfaces/queue.ts';
import { scanStore, type Store } from '../interfaces/store.ts';
import { CancelWatch, isCancelRequested, requestCancel } from './cancels.ts';

/** The statuses of a hosted job, as the spec words them. */
export type HostedStatus = 'processing' | 'completed' | 'failed' | 'cancelled';

/** What the host keeps of every job; a kind adds its own fields. */
export interface HostedRecord {
  id: string;
  team: string;
  status: HostedStatus;
  createdAt: string;
  /** When the results go; moved on at every write. */
  expiresAt: string;
  error?: string;
}

/** What one run of a job sees of its host. */
export interface RunControl<R> {
  /** Aborts on a cancel (`cancelled`), and when the run is handed over (`handedOver`). */
  readonly signal: AbortSignal;
  /** The job was cancelled: the run ends as `cancelled`. */
  readonly cancelled: boolean;
  /**
   * This process let the job go (its lease was lost, or it is closing): the run is not an end,
   * the next process to take the job resumes it from its last checkpoint.
   */
  readonly handedOver: boolean;
  /** Stores the record between steps (what a take-over resumes from); ignored once handed over. */
  checkpoint(record: R): Promise<void>;
}

/** One kind of job, as it registers with the host. */
export interface JobKindHandler<R extends HostedRecord> {
  /** The kind's name; also the kind of its queue units. */
  readonly kind: string;
  /** Where its records live in the store. */
  readonly namespace: string;
  /** How long a record stays readable after its last write. */
  readonly retentionMs: number;
  /** Jobs of this kind one process runs at once with a shared queue. @default 20 */
  readonly concurrency?: number;
  /** After a new job is stored and queued: its start event. */
  started?(record: R): Promise<void>;
  /**
   * Runs the job to its end from the record as stored (a fresh one, or a checkpoint), and
   * resolves with it ended (`completed`, `failed`, or `cancelled` when `control.cancelled`).
   */
  run(record: R, control: RunControl<R>): Promise<R>;
  /** After the end is stored, in the process that ran the job: its end event, its bookkeeping. */
  ended?(record: R): Promise<void>;
}

/**
 * Units of a kind of job that keeps its records itself (a crawl's owner and its pages, with the
 * frontier in the store; a monitor check): the host only takes them off the queue, in one place
 * with every other kind.
 */
export interface UnitKind {
  kind: string;
  run: UnitHandler;
  /** Units of it this process runs at once; 0: no bound. */
  concurrency: number;
}

/** What the host is built from. */
export interface JobHostOptions {
  store: Store;
  queue: Queue;
  log?: (message: string, error?: unknown) => void;
}

interface Running {
  record: HostedRecord;
  cancelled: boolean;
  handedOver: boolean;
}

/** A hosted job's unit: the job's id is the unit's, so one job never runs twice at once. */
interface UnitData {
  team: string;
  id: string;
}

const keyOf = (team: string, id: string) => `${encodeURIComponent(team)}/${id}`;

/** Hosts the jobs of every registered kind in this process. */
export class JobHost {
  readonly #store: Store;
  readonly #queue: Queue;
  readonly #log: (message: string, error?: unknown) => void;
  readonly #kinds = new Map<string, JobKindHandler<HostedRecord>>();
  readonly #units = new Map<string, UnitKind>();
  readonly #running = new Map<string, Running>();
  /** Writes of each job, one after another, so an older state never lands last. */
  readonly #writes = new Map<string, Promise<unknown>>();
  readonly #cancels: CancelWatch;
  /**
   * Jobs started here that the embedded queue runs here, as given: their options stay the
   * objects the request's check resolved, so they are not parsed again.
   */
  readonly #fresh = new Map<string, HostedRecord>();
  #consuming: Promise<void> | undefined;
  #closing = false;

  constructor(options: JobHostOptions) {
    this.#store = options.store;
    this.#queue = options.queue;
    this.#log = options.log ?? (() => undefined);
    this.#cancels = new CancelWatch(options.store);
  }

  /** Registers a kind; every kind is registered before `consume` or `restore`. */
  register<R extends HostedRecord>(handler: JobKindHandler<R>): void {
    this.#mustBeNew(handler.kind);
    this.#kinds.set(handler.kind, handler);
  }

  /** Registers the units of a kind that keeps its own records; before `consume`. */
  registerUnits(units: UnitKind): void {
    this.#mustBeNew(units.kind);
    this.#units.set(units.kind, units);
  }

  /** The kinds registered, by name: those whose records the host keeps, then the others. */
  get kinds(): string[] {
    return [...this.#kinds.keys(), ...this.#units.keys()];
  }

  #mustBeNew(kind: string): void {
    if (this.#kinds.has(kind) || this.#units.has(kind))
      throw new Error(`a job kind '${kind}' is registered`);
  }

  /** Stores a new job, queues its unit and reports its start. */
  async start<R extends HostedRecord>(kind: string, record: R): Promise<void> {
    const handler = this.#kind(kind);
    await this.#save(handler, record);
    await handler.started?.(record);
    if (!this.#queue.capabilities.shared) this.#fresh.set(record.id, record);
    await this.#queue.add(unitOf(kind, record));
  }

  /**
   * A team's job of `kind`: the live record while it runs here, else as stored; a job cancelled
   * and not yet ended reads `cancelled`. Undefined for another team's id, as for an unknown one.
   */
  async get<R extends HostedRecord>(
    kind: string,
    team: string,
    id: string,
  ): Promise<R | undefined> {
    const running = this.#running.get(id);
    if (running) {
      if (running.record.team !== team) return undefined;
      return (running.cancelled ? { ...running.record, status: 'cancelled' } : running.record) as R;
    }
    const record = await this.#store.get<R>(this.#kind(kind).namespace, keyOf(team, id));
    return record && this.#withCancel(record);
  }

  /** A team's jobs of `kind` for which `keep` holds, as `get` reads them. */
  async list<R extends HostedRecord>(
    kind: string,
    team: string,
    keep: (record: R) => boolean,
  ): Promise<R[]> {
    const found: R[] = [];
    const { namespace } = this.#kind(kind);
    for await (const { value } of scanStore<R>(this.#store, namespace, `${keyOf(team, '')}`))
      if (keep(value)) found.push(await this.#withCancel(value));
    return found;
  }

  /**
   * Cancels a job, wherever it runs: the run stops within half a second and ends as
   * `cancelled`; reads say so at once.
   */
  async cancel(id: string): Promise<void> {
    await requestCancel(this.#store, id);
    const running = this.#running.get(id);
    if (running) running.cancelled = true;
    this.#cancels.abortHere(id);
  }

  /**
   * Runs the units of every kind queued anywhere (`trawl serve`, `trawl worker`; not the API
   * role): the one place a process takes work off the queue.
   */
  consume(): Promise<void> {
    this.#consuming ??= (async () => {
      const shared = this.#queue.capabilities.shared;
      for (const [kind, handler] of this.#kinds)
        await this.#queue.consume(kind, (unit, signal) => this.#runUnit(unit, signal), {
          // In-process every job runs at once, as it always did.
          concurrency: shared ? (handler.concurrency ?? 20) : 0,
        });
      for (const units of this.#units.values())
        await this.#queue.consume(units.kind, units.run, { concurrency: units.concurrency });
    })();
    return this.#consuming;
  }

  /**
   * Queues again the unit of every job a stopped process left `processing` (a unit still
   * waiting or held elsewhere is not doubled). Resolves with their ids.
   */
  async restore(): Promise<string[]> {
    const queued: string[] = [];
    for (const [kind, handler] of this.#kinds) {
      for await (const { value } of scanStore<HostedRecord>(this.#store, handler.namespace)) {
        if (value.status !== 'processing' || this.#running.has(value.id)) continue;
        await this.#queue.add(unitOf(kind, value));
        queued.push(value.id);
      }
    }
    return queued;
  }

  /** Lets the jobs running here go without ending them: they resume wherever they are taken next. */
  close(): void {
    this.#closing = true;
    for (const [id, running] of this.#running) {
      running.handedOver = true;
      this.#cancels.abortHere(id);
    }
  }

  /** The handler of every hosted kind's units, in whichever process takes them. */
  async #runUnit(unit: QueueUnit, signal: AbortSignal): Promise<null> {
    const { team, id } = unit.data as UnitData;
    const handler = this.#kind(unit.kind);
    const fresh = this.#fresh.get(id);
    this.#fresh.delete(id);
    if (this.#running.has(id) || signal.aborted || this.#closing) return null;
    const stored =
      fresh ?? (await this.#store.get<HostedRecord>(handler.namespace, keyOf(team, id)));
    if (stored?.status !== 'processing') return null;
    const running: Running = { record: stored, cancelled: false, handedOver: false };
    this.#running.set(id, running);
    const watch = this.#cancels.hold(id);
    const onLost = () => {
      running.handedOver = true;
      this.#cancels.abortHere(id);
    };
    signal.addEventListener('abort', onLost, { once: true });
    // A cancel that came while the unit waited (or before a take-over) ends the job at once.
    if (await isCancelRequested(this.#store, id).catch(() => false)) {
      running.cancelled = true;
      this.#cancels.abortHere(id);
    }
    // An abort that is not a hand-over is a cancel (asked in another process, seen by the watch).
    watch.signal.addEventListener(
      'abort',
      () => {
        if (!running.handedOver) running.cancelled = true;
      },
      { once: true },
    );
    const control: RunControl<HostedRecord> = {
      signal: watch.signal,
      get cancelled() {
        return running.cancelled && !running.handedOver;
      },
      get handedOver() {
        return running.handedOver;
      },
      checkpoint: (record) =>
        running.handedOver ? Promise.resolve() : this.#save(handler, record),
    };
    try {
      let ended: HostedRecord;
      try {
        ended = await handler.run(stored, control);
      } catch (error) {
        ended = { ...stored, status: 'failed', error: toTrawlError(error).message };
      }
      if (running.handedOver) return null;
      if (control.cancelled) ended.status = 'cancelled';
      running.record = ended;
      await this.#save(handler, ended);
      // Only now: until the end is stored, reads see the live record.
      this.#running.delete(id);
      await handler.ended?.(ended);
      return null;
    } catch (error) {
      this.#log(`${unit.kind} ${id}: the end was not stored`, error);
      return null;
    } finally {
      this.#running.delete(id);
      signal.removeEventListener('abort', onLost);
      watch.release();
    }
  }

  async #withCancel<R extends HostedRecord>(record: R): Promise<R> {
    if (record.status !== 'processing') return record;
    const cancelled = await isCancelRequested(this.#store, record.id);
    return cancelled ? { ...record, status: 'cancelled' } : record;
  }

  #kind(kind: string): JobKindHandler<HostedRecord> {
    const handler = this.#kinds.get(kind);
    if (!handler) throw new Error(`no job kind '${kind}' is registered`);
    return handler;
  }

  /** Stores a job's record as it is now, its results kept for the kind's retention from now. */
  #save(handler: JobKindHandler<HostedRecord>, record: HostedRecord): Promise<void> {
    const snapshot = structuredClone({
      ...record,
      expiresAt: new Date(Date.now() + handler.retentionMs).toISOString(),
    });
    record.expiresAt = snapshot.expiresAt;
    const previous = this.#writes.get(record.id) ?? Promise.resolve();
    const write = previous.then(() =>
      this.#store.set(handler.namespace, keyOf(record.team, record.id), snapshot, {
        ttlMs: handler.retentionMs,
      }),
    );
    const settled = write.catch((error: unknown) =>
      this.#log(`${handler.kind} ${record.id}: the job could not be stored`, error),
    );
    this.#writes.set(record.id, settled);
    void settled.then(() => {
      if (this.#writes.get(record.id) === settled) this.#writes.delete(record.id);
    });
    return write;
  }
}

function unitOf(kind: string, record: HostedRecord): QueueUnit<UnitData> {
  return { kind, id: record.id, data: { team: record.team, id: record.id } };
}
