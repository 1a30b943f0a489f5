/**
 * The one way a job is cancelled, whichever process asks and whichever runs it: a mark in the
 * store under the job's id, which the processes running any part of the job (its owner, its
 * page units, a hosted run) read twice a second. A process that asks and runs the job itself
 * also aborts it at once.
 */
import type { Store } from '../interfaces/store.ts';
import { dayMs } from '../internal/time.ts';

/** Namespace of cancel requests, written by any process, read by whoever runs the job. */
export const jobCancelsNamespace = 'job-cancels';
/** How often the marks of the jobs running here are read. */
const cancelPollMs = 500;

/** Marks job `id` cancelled for every process; the mark outlives the job's results. */
export function requestCancel(store: Store, id: string, ttlMs = dayMs): Promise<void> {
  return store.set(jobCancelsNamespace, id, new Date().toISOString(), { ttlMs });
}

/** Whether some process asked job `id` to stop. */
export async function isCancelRequested(store: Store, id: string): Promise<boolean> {
  return (await store.get(jobCancelsNamespace, id)) !== undefined;
}

/**
 * Watches the cancel marks of the jobs that have work running in this process, with one timer
 * for all of them while any runs: each piece of work holds its job's signal while it runs.
 */
export class CancelWatch {
  readonly #store: Store;
  /** Jobs with work here, each with its controller and how many pieces hold it. */
  readonly #jobs = new Map<string, { controller: AbortController; holders: number }>();
  #timer: NodeJS.Timeout | undefined;
  /** A poll under way: a slow store must not stack one poll on another every tick. */
  #polling = false;

  constructor(store: Store) {
    this.#store = store;
  }

  /** The signal that aborts when job `id` is cancelled; call `release` when the work ends. */
  hold(id: string): { signal: AbortSignal; release: () => void } {
    let job = this.#jobs.get(id);
    if (!job) {
      job = { controller: new AbortController(), holders: 0 };
      this.#jobs.set(id, job);
    }
    job.holders += 1;
    this.#timer ??= setInterval(() => void this.#poll(), cancelPollMs);
    this.#timer.unref();
    let released = false;
    return {
      signal: job.controller.signal,
      release: () => {
        if (released) return;
        released = true;
        this.#release(id);
      },
    };
  }

  /** Aborts the work of job `id` running here at once (the cancel was asked here). */
  abortHere(id: string): boolean {
    const job = this.#jobs.get(id);
    job?.controller.abort(new Error('the job was cancelled'));
    return job !== undefined;
  }

  #release(id: string): void {
    const job = this.#jobs.get(id);
    if (job && --job.holders === 0) this.#jobs.delete(id);
    if (this.#jobs.size === 0) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  async #poll(): Promise<void> {
    if (this.#polling) return;
    this.#polling = true;
    try {
      for (const [id, job] of this.#jobs) {
        if (job.controller.signal.aborted) continue;
        const cancelled = await isCancelRequested(this.#store, id).catch(() => false);
        if (cancelled) job.controller.abort(new Error('the job was cancelled'));
      }
    } finally {
      this.#polling = false;
    }
  }
}
