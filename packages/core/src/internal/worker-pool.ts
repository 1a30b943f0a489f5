/**
 * CPU-heavy work off the calling thread, in a piscina pool of worker threads. A task runs under
 * a deadline and a heap limit: past the deadline its worker is terminated (synchronous work in a
 * reader library cannot be interrupted any other way), and a worker that runs out of its heap
 * dies alone instead of taking the process with it. Idle workers do not keep the process alive,
 * and `closeWorkerPools()` ends them all (the `trawl` command calls it before it exits).
 *
 * Errors cross the thread boundary as plain data (structured clone keeps no class), so a worker
 * module returns `WorkerOutcome` and the caller gets its TrawlError back with its code.
 */
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import {
  ContentTooLargeError,
  type ErrorCode,
  FetchError,
  NotConfiguredError,
  StoreError,
  TimeoutError,
  TrawlError,
  type TrawlErrorOptions,
  UnsupportedTypeError,
  ValidationError,
} from '../errors.ts';

/** What a worker module's default export resolves to: its value, or its error as data. */
export type WorkerOutcome<T> = { ok: true; value: T } | { ok: false; error: SerializedError };

export interface SerializedError {
  name: string;
  message: string;
  code?: ErrorCode;
  details?: TrawlErrorOptions['details'];
  retryable?: boolean;
}

export function serializeError(error: unknown): SerializedError {
  if (error instanceof TrawlError)
    return {
      name: error.name,
      message: error.message,
      code: error.code,
      ...(error.details ? { details: error.details } : {}),
      retryable: error.retryable,
    };
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}

/**
 * The classes an error may come back as: callers tell them apart with instanceof (the CLI's exit
 * code, scrape's retry decisions), so a worker's error keeps its class, not just its code.
 */
type ErrorClass = new (
  message: string,
  options: TrawlErrorOptions & { code?: ErrorCode },
) => TrawlError;
const errorClasses: Record<string, ErrorClass> = {
  ValidationError: ValidationError as ErrorClass,
  TimeoutError: TimeoutError as ErrorClass,
  ContentTooLargeError,
  UnsupportedTypeError,
  NotConfiguredError: NotConfiguredError as ErrorClass,
  FetchError: FetchError as ErrorClass,
  StoreError,
};

/** The error a worker reported, rebuilt: a TrawlError keeps its class and code, others their name. */
export function deserializeError(error: SerializedError): Error {
  if (error.code) {
    const options = {
      code: error.code,
      ...(error.details ? { details: error.details } : {}),
      retryable: error.retryable ?? false,
    };
    const Class = errorClasses[error.name];
    const rebuilt = Class
      ? new Class(error.message, options)
      : new TrawlError(error.code, error.message, options);
    // The class's own code when it has one fixed (the constructor ignores `code`), else as sent.
    if (rebuilt.code !== error.code) return new TrawlError(error.code, error.message, options);
    rebuilt.name = error.name;
    return rebuilt;
  }
  const rebuilt =
    error.name === 'RangeError' ? new RangeError(error.message) : new Error(error.message);
  rebuilt.name = error.name;
  return rebuilt;
}

export interface WorkerPoolOptions {
  /** The worker module: its default export takes a task and resolves to a WorkerOutcome. */
  module: URL;
  /** What the work is, for error messages ("Parsing the file"). */
  what: string;
  /** Heap ceiling per worker, in MB. */
  maxHeapMb: number;
  /**
   * How far, in MB, the process's RSS may grow over what it was when a task started before
   * running tasks are stopped (CONTENT_TOO_LARGE). The heap ceiling does not cover memory
   * outside the JavaScript heap — typed arrays a decoder fills, native canvases — which a small
   * crafted file can blow up (a JBIG2 image of 1 KB). Growth, not a total, so a process that
   * holds much of its own is not refused every file.
   */
  maxRssGrowthMb?: number;
  /**
   * Past this RSS, in MB, a fifth of `maxRssGrowthMb` is growth enough to stop running tasks:
   * a process already holding much garbage gets less room before it nears its ceiling.
   */
  rssCeilingMb?: number;
  /** How long an idle worker is kept for the next task. @default 30_000 */
  idleMs?: number;
  /** Most worker threads at once. @default the machine's cores */
  threads?: number;
  /**
   * Tasks a worker holds at once. Above 1 a worker gets its next task while it runs one, so it
   * does not wait for the calling thread between tasks; but piscina gives a task that can be
   * stopped (one with an AbortSignal) a worker of its own, so such a pool stops a task by
   * replacing all its workers, and the tasks it held besides fail with WorkerUnavailableError
   * (their callers run them in their own thread). For short tasks only. @default 1
   */
  tasksPerThread?: number;
  /**
   * Young generation per worker, in MB. Short tasks that allocate much and keep little (page
   * conversion) run as well in a small one, and each worker's RSS stays small.
   * @default V8's own
   */
  maxYoungMb?: number;
}

/**
 * Why the pool cannot be used here: the worker module did not load (a runtime that cannot run
 * it), or the pool was closed while the task ran. Callers run the task in their own thread.
 */
export class WorkerUnavailableError extends Error {
  override name = 'WorkerUnavailableError';
}

/**
 * A task lost with its worker through no proven fault of its own, in a pool whose workers hold
 * several tasks: the workers were replaced to stop another task, or one ran out of memory while
 * holding this task and another. Run it once more; if it is lost again, `cause` is its error.
 */
export class TaskLostError extends Error {
  override name = 'TaskLostError';
}

const pools = new Set<WorkerPool>();

/**
 * Why a running task was stopped from outside: its deadline, memory, the pool closing, or its
 * workers replaced to stop another task (pools of several tasks per thread).
 */
type StopReason = 'deadline' | 'memory' | 'closed' | 'replaced';

interface TaskState {
  stopped?: StopReason;
  /** The piscina instance running it. */
  pool: Piscina;
  /** The process's RSS when the task started, in bytes. */
  startRss: number;
  /** The growth it was allowed when stopped for memory, in MB. */
  allowedMb?: number;
}

export class WorkerPool {
  #pool: Piscina | undefined;
  #usable: Promise<boolean> | undefined;
  readonly #options: WorkerPoolOptions;
  /** Running tasks, by the controller that stops them. */
  readonly #running = new Map<AbortController, TaskState>();
  #watch: NodeJS.Timeout | undefined;
  #completed = 0;

  constructor(options: WorkerPoolOptions) {
    this.#options = options;
  }

  #start(): Piscina {
    if (!this.#pool) {
      this.#pool = new Piscina({
        filename: this.#options.module.href,
        // Threads start on demand: a process that never parses never pays for them.
        minThreads: 0,
        maxThreads: this.#options.threads ?? availableParallelism(),
        idleTimeout: this.#options.idleMs ?? 30_000,
        // With one task per worker, terminating a worker at a deadline ends only that task.
        concurrentTasksPerWorker: this.#options.tasksPerThread ?? 1,
        resourceLimits: {
          maxOldGenerationSizeMb: this.#options.maxHeapMb,
          ...(this.#options.maxYoungMb
            ? { maxYoungGenerationSizeMb: this.#options.maxYoungMb }
            : {}),
        },
      });
      // A worker that dies with no task of its own (out of memory while idle) is replaced.
      this.#pool.on('error', () => {});
      pools.add(this);
    }
    return this.#pool;
  }

  /**
   * Whether tasks can run in a worker: the first call loads the module once with a probe task
   * (`undefined`), to which the module must answer `{ ok: true }`. A module that fails to load
   * makes piscina report an error and retry, so the first error (or a minute of silence) ends
   * the probe.
   */
  usable(): Promise<boolean> {
    this.#usable ??= new Promise<boolean>((resolve) => {
      const pool = this.#start();
      const settle = (usable: boolean) => {
        clearTimeout(timer);
        pool.off('error', failed);
        resolve(usable);
      };
      const failed = () => settle(false);
      const timer = setTimeout(failed, 60_000);
      pool.once('error', failed);
      pool.run(undefined).then((outcome: WorkerOutcome<unknown>) => settle(outcome.ok), failed);
    }).then(async (usable) => {
      // Workers that cannot load are not kept retrying.
      if (!usable) {
        const pool = this.#pool;
        this.#pool = undefined;
        pools.delete(this);
        await pool?.destroy().catch(() => undefined);
      }
      return usable;
    });
    return this.#usable;
  }

  /**
   * Runs `task` in a worker and resolves to its value.
   *
   * @throws SCRAPE_TIMEOUT when `deadline` (epoch ms) passes first (the worker is terminated);
   *   CONTENT_TOO_LARGE when the worker runs out of its heap; the worker's own error otherwise;
   *   WorkerUnavailableError when no worker can run here, or the pool closed during the task
   */
  async run<T>(task: unknown, deadline: number, transferList?: ArrayBuffer[]): Promise<T> {
    if (!(await this.usable()))
      throw new WorkerUnavailableError(`${this.#options.what} cannot run in a worker thread`);
    const abort = new AbortController();
    const pool = this.#start();
    // RSS is read from /proc: only pools that watch memory pay for it.
    const state: TaskState = {
      pool,
      startRss: this.#options.maxRssGrowthMb === undefined ? 0 : process.memoryUsage.rss(),
    };
    const exclusive = (this.#options.tasksPerThread ?? 1) === 1;
    // A shared worker cannot be stopped for one task: its pool is replaced instead.
    if (!exclusive)
      abort.signal.addEventListener('abort', () => this.#replace(pool), { once: true });
    const timer = setTimeout(
      () => {
        state.stopped = 'deadline';
        abort.abort();
      },
      Math.max(0, deadline - Date.now()),
    );
    this.#running.set(abort, state);
    this.#watchMemory();
    try {
      const outcome = (await pool.run(task, {
        ...(exclusive ? { signal: abort.signal } : {}),
        ...(transferList ? { transferList } : {}),
      })) as WorkerOutcome<T>;
      this.#completed += 1;
      if (!outcome.ok) throw deserializeError(outcome.error);
      return outcome.value;
    } catch (error) {
      // The pool was closed under the task (`closeWorkerPools()` at a CLI's Ctrl-C): the task
      // did not fail, so callers run it in this thread rather than report the page as failed.
      if (state.stopped === 'closed')
        throw new WorkerUnavailableError(`${this.#options.what} was stopped: its pool closed`, {
          cause: error,
        });
      if (state.stopped === 'replaced')
        throw new TaskLostError(`${this.#options.what} was stopped with another task`, {
          cause: new TimeoutError(`${this.#options.what} was stopped with another task`),
        });
      if (state.stopped === 'memory')
        throw new ContentTooLargeError(
          `${this.#options.what} needed more than ${state.allowedMb} MB of memory and was stopped`,
          { cause: error },
        );
      if (abort.signal.aborted)
        throw new TimeoutError(`${this.#options.what} timed out and was stopped`, {
          cause: error,
        });
      const code = (error as { code?: string }).code;
      if (code === 'ERR_WORKER_OUT_OF_MEMORY' || /memory limit/i.test((error as Error).message)) {
        const tooLarge = new ContentTooLargeError(
          `${this.#options.what} needed more than ${this.#options.maxHeapMb} MB of memory and was stopped`,
          { cause: error },
        );
        // Which of the worker's tasks needed the memory cannot be told.
        if (!exclusive) throw new TaskLostError(tooLarge.message, { cause: tooLarge });
        throw tooLarge;
      }
      throw error;
    } finally {
      clearTimeout(timer);
      this.#running.delete(abort);
      if (this.#running.size === 0) {
        clearInterval(this.#watch);
        this.#watch = undefined;
      }
    }
  }

  /**
   * While tasks run, the process's RSS is sampled; once it has grown past the allowance since
   * the earliest running task started, every running task is stopped, as which of them grew
   * cannot be told apart (memory outside the heap is the process's), and the process stays up.
   */
  #watchMemory(): void {
    const growth = this.#options.maxRssGrowthMb;
    if (growth === undefined || this.#watch) return;
    this.#watch = setInterval(() => {
      const base = Math.min(...[...this.#running.values()].map((task) => task.startRss));
      const rss = process.memoryUsage.rss();
      const ceiling = (this.#options.rssCeilingMb ?? Infinity) * 1024 * 1024;
      const allowedMb = rss > ceiling ? growth / 5 : growth;
      if (rss - base <= allowedMb * 1024 * 1024) return;
      for (const [abort, state] of this.#running) {
        state.stopped ??= 'memory';
        state.allowedMb ??= allowedMb;
        abort.abort();
      }
    }, 50);
    this.#watch.unref();
  }

  /**
   * Ends the workers of `pool` to stop a task on it: the pool's other tasks are marked replaced,
   * and the next task starts a fresh pool.
   */
  #replace(pool: Piscina): void {
    for (const state of this.#running.values())
      if (state.pool === pool) state.stopped ??= 'replaced';
    if (this.#pool === pool) this.#pool = undefined;
    void pool.destroy().catch(() => undefined);
  }

  /** Tasks running now. */
  get running(): number {
    return this.#running.size;
  }

  /** Tasks a worker answered (with a value or its own error) since the pool was made. */
  get completed(): number {
    return this.#completed;
  }

  async close(): Promise<void> {
    for (const state of this.#running.values()) state.stopped ??= 'closed';
    const pool = this.#pool;
    this.#pool = undefined;
    this.#usable = undefined;
    pools.delete(this);
    await pool?.destroy();
  }
}

/** Ends every pool's workers, running tasks included (they fail); pools restart on next use. */
export async function closeWorkerPools(): Promise<void> {
  await Promise.all([...pools].map((pool) => pool.close()));
}
