/**
 * A counting semaphore: at most `permits` holders at once, the rest wait in arrival order. One
 * implementation for every "so many at a time" in the engine and the server (monitor checks,
 * a team's scrapes, browser pages, work over a list).
 */
export class Semaphore {
  #free: number;
  readonly #waiting: (() => void)[] = [];

  /** `permits`: how many may hold it at once; 0 or less means no limit. */
  constructor(permits: number) {
    this.#free = permits > 0 ? permits : Infinity;
  }

  /** Callers waiting for a permit. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Permits free now (Infinity without a limit). */
  get available(): number {
    return this.#free;
  }

  /**
   * Resolves when a permit is free, taking it; give it back with `release()`. A `signal` that
   * aborts while waiting takes the caller out of the line and rejects with the signal's reason
   * (wrapped in an Error, as `cause`, when it is not one).
   */
  async acquire(signal?: AbortSignal): Promise<void> {
    if (this.#free > 0) {
      this.#free -= 1;
      return;
    }
    signal?.throwIfAborted();
    await new Promise<void>((resolve, reject) => {
      const granted = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        const index = this.#waiting.indexOf(granted);
        if (index >= 0) this.#waiting.splice(index, 1);
        const reason: unknown = signal?.reason;
        reject(
          reason instanceof Error ? reason : new Error('Aborted while waiting', { cause: reason }),
        );
      };
      this.#waiting.push(granted);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Gives a permit back: the longest waiter gets it. */
  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#free += 1;
  }

  /** Runs `work` holding a permit. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await work();
    } finally {
      this.release();
    }
  }
}

/** Runs `work` over `items`, at most `limit` at once, in order of the items. */
export async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  });
  await Promise.all(workers);
}
