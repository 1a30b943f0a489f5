/**
 * Counters that every process of a deployment shares: the team limits (a request rate, scrapes at
 * once, credit totals) that must hold however many processes serve one team.
 *
 * @remarks
 * The embedded default is `MemoryCounters`: one process counts its own. Every operation is atomic
 * on the backend (Redis: one Lua script each), and every key expires, so a dead process leaves
 * nothing that holds a team back for good (a reservation lapses at the end of its lease).
 */
export interface Counters {
  /**
   * Counts one hit of `key` in its fixed window of `windowMs` (the window starts at its first
   * hit), unless `limit` hits are counted in it already. Atomic across processes.
   */
  hit(key: string, limit: number, windowMs: number): Promise<CounterHit>;
  /**
   * Takes one of the `limit` slots of `key` for `leaseMs`: resolves the slot's id, or undefined
   * when every slot is held. A slot whose lease has passed is free again.
   */
  acquire(key: string, limit: number, leaseMs: number): Promise<string | undefined>;
  /** Extends a held slot's lease by `leaseMs` from now; false when it had been lost. */
  renew(key: string, slot: string, leaseMs: number): Promise<boolean>;
  /** Gives a slot back. Idempotent. */
  release(key: string, slot: string): Promise<void>;
  /** How many slots of `key` are held now. */
  held(key: string): Promise<number>;
  /**
   * Adds whole numbers to fields of `key` and keeps it `ttlMs` more. When `key` does not exist,
   * it starts from `seed` (the durable totals it mirrors). Resolves with every field after.
   */
  add(key: string, deltas: CounterFields, options: CounterAddOptions): Promise<CounterFields>;
  /**
   * Reserves `amount` against a ceiling as `id`, for `leaseMs`: taken only when the fields of
   * `key` weighted by `ceiling.weights`, plus every live reservation of `key` (this id's former
   * amount left out), plus `amount`, stay at most `ceiling.max`. Reserving an id again replaces
   * its amount and lease (a reservation grows or is renewed that way). A missing `key` starts
   * from `seed`. Resolves whether the amount is reserved.
   */
  reserve(key: string, reservation: CounterReservation): Promise<boolean>;
  /** Drops the reservation `id` of `key`. Idempotent. */
  unreserve(key: string, id: string): Promise<void>;
  /** The sum of the live reservations of `key`. */
  reserved(key: string): Promise<number>;
  /** The fields of `key`; undefined when it does not exist (never written, or expired). */
  read(key: string): Promise<CounterFields | undefined>;
  /** Releases the connection. Idempotent. */
  close(): Promise<void>;
}

/** Whole-number fields of one counter. */
export type CounterFields = Record<string, number>;

/** Options of `Counters.add`. */
export interface CounterAddOptions {
  /** How long the key lives after this write, in ms. */
  ttlMs: number;
  /** Where a missing key starts from. @default every field 0 */
  seed?: CounterFields;
  /** A reservation of `key` this add settles: dropped in the same atomic step. */
  settles?: string;
}

/** What `Counters.reserve` checks: `sum(weights[field] × field) + reservations ≤ max`. */
export interface CounterCeiling {
  weights: CounterFields;
  max: number;
}

/** What `Counters.reserve` holds, and until when. */
export interface CounterReservation {
  id: string;
  amount: number;
  ceiling: CounterCeiling;
  /** How long the reservation holds unless reserved again or settled, in ms. */
  leaseMs: number;
  /** How long the key lives after this write, in ms. */
  ttlMs: number;
  /** Where a missing key starts from. @default every field 0 */
  seed?: CounterFields;
}

/** What `Counters.hit` answers. */
export interface CounterHit {
  /** Whether the hit was counted (the window was not full). */
  allowed: boolean;
  /** Hits in the window, this one included when allowed. */
  count: number;
  /** Time until the window ends, in ms. */
  resetInMs: number;
}
