/**
 * Per-team limits of the server: a request rate per minute (429 with Retry-After) and a number of
 * scrapes at once (beyond it scrapes wait their turn and say so in their metadata). Each is off
 * unless configured. They are counted in `Counters`: in memory, per process, by default; in
 * Redis (`TRAWL_REDIS_URL`) or the PostgreSQL store's database every process pointing at the
 * same one counts one limit. Credits
 * (402 once spent) are core's Admission over its CreditLedger, kept in the store so a restart
 * does not refill them.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { MemoryCounters, type Counters, type Store } from '@trawl/core';
import { dayMs, Semaphore } from '@trawl/core/server';

/** How the hosted service groups routes for its rate limiter. */
export type RateMode = 'scrape' | 'crawl' | 'crawlStatus' | 'map' | 'search' | 'account';

/** A 429 answer: the message and how long to wait. */
export interface RateRefusal {
  error: string;
  retryAfterSeconds: number;
}

const windowMs = 60_000;

/** Counter keys never hold a team name as is: a ':' in it must not split the key. */
const teamKey = (team: string) => encodeURIComponent(team);

/** Fixed one-minute windows per team and mode. */
export class RateLimiter {
  readonly #perMinute: number;
  readonly #counters: Counters;

  /** `counters`: where the windows are counted (shared ones count for every process). */
  constructor(perMinute: number, counters: Counters = new MemoryCounters()) {
    this.#perMinute = perMinute;
    this.#counters = counters;
  }

  /** Counts a request; a refusal when the team is over its rate for this mode. */
  async take(team: string, mode: RateMode, now = Date.now()): Promise<RateRefusal | undefined> {
    if (this.#perMinute <= 0) return undefined;
    const hit = await this.#counters.hit(
      `rate:${teamKey(team)}:${mode}`,
      this.#perMinute,
      windowMs,
    );
    return hit.allowed ? undefined : refusal(hit.count, now + hit.resetInMs, now);
  }
}

/** The hosted service's 429 message. */
function refusal(count: number, resetsAt: number, now: number): RateRefusal {
  const retryAfterSeconds = Math.max(1, Math.ceil((resetsAt - now) / 1000));
  return {
    retryAfterSeconds,
    error: `Rate limit exceeded. Consumed (req/min): ${count}, Remaining (req/min): 0. Please retry after ${retryAfterSeconds}s, resets at ${new Date(resetsAt).toISOString()}`,
  };
}

/**
 * A shared slot is leased, and renewed every third of it while its scrape runs: the slots of a
 * process that dies come free after this.
 */
const slotLeaseMs = 30_000;
/** Waits between two tries for a shared slot, first to last. */
const slotPollMs = { first: 25, last: 250 };

/** Scrapes at once per team; the rest wait in arrival order (per process when shared). */
export class TeamConcurrency {
  readonly #limit: number;
  readonly #teams = new Map<string, { running: number; slots: Semaphore }>();
  readonly #counters: Counters;

  /** `counters`: hold the slots in them (shared ones count for every process) besides here. */
  constructor(limit: number, counters: Counters = new MemoryCounters()) {
    this.#limit = limit;
    this.#counters = counters;
  }

  /** Number of the team's scrapes running now (in every process, when shared). */
  async running(team: string): Promise<number> {
    if (this.#limit > 0) return this.#counters.held(`concurrency:${teamKey(team)}`);
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
    let waits = state.slots.available === 0;
    await state.slots.acquire();
    let shared: { key: string; slot: string; renewing: NodeJS.Timeout } | undefined;
    try {
      // This process's waiters line up first (in arrival order); the head then waits for a
      // slot that every process counts.
      if (this.#limit > 0) {
        const key = `concurrency:${teamKey(team)}`;
        const slot = await this.#sharedSlot(key);
        waits ||= slot.waited;
        const counters = this.#counters;
        const renewing = setInterval(
          () => void counters.renew(key, slot.id, slotLeaseMs).catch(() => undefined),
          slotLeaseMs / 3,
        );
        renewing.unref();
        shared = { key, slot: slot.id, renewing };
      }
    } catch (error) {
      state.slots.release();
      throw error;
    }
    state.running += 1;
    try {
      const result = await work();
      return { result, waitedMs: waits ? Math.round(performance.now() - started) : 0 };
    } finally {
      state.running -= 1;
      if (shared) {
        clearInterval(shared.renewing);
        await this.#counters.release(shared.key, shared.slot).catch(() => undefined);
      }
      state.slots.release();
      if (state.running === 0 && state.slots.waiting === 0) this.#teams.delete(team);
    }
  }

  /** Polls the shared counters until a slot is free; resolves its id and whether it waited. */
  async #sharedSlot(key: string): Promise<{ id: string; waited: boolean }> {
    const counters = this.#counters;
    let pollMs = slotPollMs.first;
    for (let waited = false; ; waited = true) {
      const id = await counters.acquire(key, this.#limit, slotLeaseMs);
      if (id !== undefined) return { id, waited };
      await sleep(pollMs);
      pollMs = Math.min(slotPollMs.last, pollMs * 2);
    }
  }
}

/** A team's idempotency keys are remembered for a day, as long as its job results. */
const idempotencyTtlMs = dayMs;

/**
 * `x-idempotency-key` of job-starting requests: each key starts at most one job per team, also
 * across processes sharing the store (the claim is one atomic `Store.claim`).
 */
export class IdempotencyKeys {
  readonly #store: Store;

  constructor(store: Store) {
    this.#store = store;
  }

  /** Claims `key` for `team`; false when the team used it before. No key: always true. */
  claim(team: string, key: string | undefined): Promise<boolean> {
    if (key === undefined) return Promise.resolve(true);
    // A new owner each time: a second claim of a used key never passes as its holder renewing.
    return this.#store.claim('idempotency', `${team}\u0000${key}`, randomUUID(), idempotencyTtlMs);
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
