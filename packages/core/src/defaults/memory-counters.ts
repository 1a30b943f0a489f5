/**
 * Counters of one process, the embedded default of `Counters`: what a single `trawl serve` or a
 * library user counts (rate windows, scrape slots, credit and token totals, reservations). The
 * same contract as the Redis counters, so the code that counts never asks which it has; keys
 * expire as there, swept as they are touched.
 */
import { randomUUID } from 'node:crypto';
import type {
  CounterAddOptions,
  CounterFields,
  CounterHit,
  CounterReservation,
  Counters,
} from '../interfaces/counters.ts';

interface Entry {
  /** Totals, or the count of a rate window (field `count`). */
  fields: CounterFields;
  /** Slots or reservations by id: their amount (1 for a slot) and the end of their lease. */
  leases: Map<string, { amount: number; until: number }>;
  /** When the key goes (its leases keep it while any is live). */
  expiresAt: number;
}

/** Keys swept for expiry once this many are held. */
const sweepAbove = 10_000;

/** `Counters` in this process's memory. Every operation is synchronous underneath, so atomic. */
export class MemoryCounters implements Counters {
  readonly #entries = new Map<string, Entry>();
  readonly #now: () => number;

  /** `now`: the clock in ms (tests move it). */
  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  hit(key: string, limit: number, windowMs: number): Promise<CounterHit> {
    const now = this.#now();
    let entry = this.#live(key, now);
    if (!entry) entry = this.#create(key, {}, now + Math.max(1, windowMs));
    const count = entry.fields['count'] ?? 0;
    const resetInMs = Math.max(0, entry.expiresAt - now);
    if (count >= limit) return Promise.resolve({ allowed: false, count, resetInMs });
    entry.fields['count'] = count + 1;
    return Promise.resolve({ allowed: true, count: count + 1, resetInMs });
  }

  acquire(key: string, limit: number, leaseMs: number): Promise<string | undefined> {
    const now = this.#now();
    const entry = this.#live(key, now) ?? this.#create(key, {}, 0);
    if (entry.leases.size >= limit) return Promise.resolve(undefined);
    const slot = randomUUID();
    entry.leases.set(slot, { amount: 1, until: now + leaseMs });
    return Promise.resolve(slot);
  }

  renew(key: string, slot: string, leaseMs: number): Promise<boolean> {
    const now = this.#now();
    const lease = this.#live(key, now)?.leases.get(slot);
    if (lease) lease.until = now + leaseMs;
    return Promise.resolve(lease !== undefined);
  }

  release(key: string, slot: string): Promise<void> {
    this.#entries.get(key)?.leases.delete(slot);
    return Promise.resolve();
  }

  held(key: string): Promise<number> {
    return Promise.resolve(this.#live(key, this.#now())?.leases.size ?? 0);
  }

  add(key: string, deltas: CounterFields, options: CounterAddOptions): Promise<CounterFields> {
    const now = this.#now();
    const entry = this.#live(key, now) ?? this.#create(key, { ...options.seed }, 0);
    for (const [field, delta] of Object.entries(deltas))
      entry.fields[field] = (entry.fields[field] ?? 0) + Math.trunc(delta);
    if (options.settles !== undefined) entry.leases.delete(options.settles);
    entry.expiresAt = now + options.ttlMs;
    return Promise.resolve({ ...entry.fields });
  }

  reserve(key: string, reservation: CounterReservation): Promise<boolean> {
    const { id, amount, ceiling, ...options } = reservation;
    const now = this.#now();
    const entry = this.#live(key, now) ?? this.#create(key, { ...options.seed }, 0);
    entry.expiresAt = Math.max(entry.expiresAt, now + options.ttlMs);
    let total = amount;
    for (const [field, weight] of Object.entries(ceiling.weights))
      total += weight * (entry.fields[field] ?? 0);
    for (const [other, lease] of entry.leases) if (other !== id) total += lease.amount;
    if (total > ceiling.max) return Promise.resolve(false);
    entry.leases.set(id, { amount, until: now + options.leaseMs });
    return Promise.resolve(true);
  }

  unreserve(key: string, id: string): Promise<void> {
    return this.release(key, id);
  }

  reserved(key: string): Promise<number> {
    let sum = 0;
    for (const lease of this.#live(key, this.#now())?.leases.values() ?? []) sum += lease.amount;
    return Promise.resolve(sum);
  }

  read(key: string): Promise<CounterFields | undefined> {
    const entry = this.#live(key, this.#now());
    return Promise.resolve(
      entry && Object.keys(entry.fields).length > 0 ? { ...entry.fields } : undefined,
    );
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  /** The entry of `key` with its lapsed leases dropped; undefined when it expired. */
  #live(key: string, now: number): Entry | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    for (const [id, lease] of entry.leases) if (lease.until <= now) entry.leases.delete(id);
    if (entry.expiresAt <= now && entry.leases.size === 0) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  #create(key: string, fields: CounterFields, expiresAt: number): Entry {
    if (this.#entries.size >= sweepAbove) {
      const now = this.#now();
      for (const name of [...this.#entries.keys()]) this.#live(name, now);
    }
    const entry: Entry = { fields, leases: new Map(), expiresAt };
    this.#entries.set(key, entry);
    return entry;
  }
}
