/**
 * Per-team limits of the server: a request rate per minute (429 with Retry-After) and a number of
 * scrapes at once (beyond it scrapes wait their turn and say so in their metadata). Each is off
 * unless configured. Counters are in memory, per process: limits protect one server. Credits
 * (402 once spent) are core's CreditLedger, kept in the store so a restart does not refill them.
 */
import type { Store } from '@trawl/core';
import { dayMs, Semaphore } from '@trawl/core/server';

/** How the hosted service groups routes for its rate limiter. */
export type RateMode = 'scrape' | 'crawl' | 'crawlStatus' | 'map' | 'search' | 'account';

/** A 429 answer: the message and how long to wait. */
export interface RateRefusal {
  error: string;
  retryAfterSeconds: number;
}

const windowMs = 60_000;

/** Fixed one-minute windows per team and mode. */
export class RateLimiter {
  readonly #perMinute: number;
  readonly #windows = new Map<string, { start: number; count: number }>();

  constructor(perMinute: number) {
    this.#perMinute = perMinute;
  }

  /** Counts a request; a refusal when the team is over its rate for this mode. */
  take(team: string, mode: RateMode, now = Date.now()): RateRefusal | undefined {
    if (this.#perMinute <= 0) return undefined;
    const key = `${team}\u0000${mode}`;
    let window = this.#windows.get(key);
    if (!window || now - window.start >= windowMs) {
      window = { start: now, count: 0 };
      this.#windows.set(key, window);
      if (this.#windows.size > 10_000) this.#sweep(now);
    }
    if (window.count < this.#perMinute) {
      window.count += 1;
      return undefined;
    }
    const resetsAt = window.start + windowMs;
    const retryAfterSeconds = Math.max(1, Math.ceil((resetsAt - now) / 1000));
    return {
      retryAfterSeconds,
      error: `Rate limit exceeded. Consumed (req/min): ${window.count}, Remaining (req/min): 0. Please retry after ${retryAfterSeconds}s, resets at ${new Date(resetsAt).toISOString()}`,
    };
  }

  #sweep(now: number): void {
    for (const [key, window] of this.#windows) {
      if (now - window.start >= windowMs) this.#windows.delete(key);
    }
  }
}

/** Scrapes at once per team; the rest wait in arrival order. */
export class TeamConcurrency {
  readonly #limit: number;
  readonly #teams = new Map<string, { running: number; slots: Semaphore }>();

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Number of the team's scrapes running now. */
  running(team: string): number {
    return this.#teams.get(team)?.running ?? 0;
  }

  /**
   * Runs `work` when the team has a free slot. Resolves with its result and how long it waited
   * (0 when it did not).
   */
  async run<T>(team: string, work: () => Promise<T>): Promise<{ result: T; waitedMs: number }> {
    let state = this.#teams.get(team);
    if (!state) {
      state = { running: 0, slots: new Semaphore(this.#limit) };
      this.#teams.set(team, state);
    }
    const started = performance.now();
    const waits = state.slots.available === 0;
    await state.slots.acquire();
    state.running += 1;
    try {
      const result = await work();
      return { result, waitedMs: waits ? Math.round(performance.now() - started) : 0 };
    } finally {
      state.running -= 1;
      state.slots.release();
      if (state.running === 0 && state.slots.waiting === 0) this.#teams.delete(team);
    }
  }
}

/** A team's idempotency keys are remembered for a day, as long as its job results. */
const idempotencyTtlMs = dayMs;

/** `x-idempotency-key` of job-starting requests: each key starts at most one job per team. */
export class IdempotencyKeys {
  readonly #store: Store;
  // Claims run one after another, so two requests with one key cannot both read "unused".
  #claims: Promise<unknown> = Promise.resolve();

  constructor(store: Store) {
    this.#store = store;
  }

  /** Claims `key` for `team`; false when the team used it before. No key: always true. */
  claim(team: string, key: string | undefined): Promise<boolean> {
    if (key === undefined) return Promise.resolve(true);
    const id = `${team}\u0000${key}`;
    const claim = this.#claims.then(async () => {
      if ((await this.#store.get('idempotency', id)) !== undefined) return false;
      await this.#store.set('idempotency', id, true, { ttlMs: idempotencyTtlMs });
      return true;
    });
    this.#claims = claim.catch(() => undefined);
    return claim;
  }
}

/** The hosted service's rate-limit groups, by the pattern of the matched route. */
export function rateModeOf(method: string, path: string): RateMode {
  if (method === 'POST' && (path === '/v2/scrape' || path === '/v2/batch/scrape')) return 'scrape';
  if (method === 'POST' && path === '/v2/crawl') return 'crawl';
  if (method === 'POST' && path === '/v2/map') return 'map';
  if (method === 'POST' && path === '/v2/search') return 'search';
  // The hosted service counts creating, changing and running monitors with crawls.
  if ((method === 'POST' || method === 'PATCH') && path.startsWith('/v2/monitor')) return 'crawl';
  if (path.startsWith('/v2/team/') || path === '/v2/concurrency-check') return 'account';
  if (path === '/v2/feedback' || path === '/v2/search/:jobId/feedback') return 'account';
  return 'crawlStatus';
}
