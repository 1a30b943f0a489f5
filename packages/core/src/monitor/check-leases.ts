/**
 * Who runs a monitor check, when processes share the store: the process running a check holds a
 * lease on it (a `Store.claim`, renewed while the check runs). Another process closes a check
 * left `queued`/`running` only once it can take that lease — its runner died — and skips a
 * scheduled run while the monitor's current check is leased by a live process. On a store one
 * process owns (SQLite, memory) there is nobody else: a check open at start was left by a crash.
 */
import type { Store } from '../interfaces/store.ts';

const namespace = 'monitor-check-leases';
/** Stop requests of checks running in another process (a deleted monitor's check). */
const stopsNamespace = 'monitor-check-stops';
/** A dead runner's checks are closed this long after its last renewal at the latest. */
const leaseMs = 60_000;

/** The leases of the checks of one store. */
export class CheckLeases {
  readonly #store: Store;
  readonly #owner: string;
  readonly #shared: boolean;

  constructor(store: Store, owner: string) {
    this.#store = store;
    this.#owner = owner;
    this.#shared = store.capabilities?.shared === true;
  }

  /**
   * Takes the lease of a check this process starts; resolves a function that gives it back.
   * `holder` names a lease several processes keep alive together: a check handed to a worker
   * is held by the process that waits for it and by the worker that runs it, so it stays open
   * while either lives.
   */
  async hold(checkId: string, holder = this.#owner): Promise<() => Promise<void>> {
    if (!this.#shared) return () => Promise.resolve();
    await this.#store.claim(namespace, checkId, holder, leaseMs);
    const renewing = setInterval(
      () => void this.#store.claim(namespace, checkId, holder, leaseMs).catch(() => false),
      leaseMs / 3,
    );
    renewing.unref();
    return async () => {
      clearInterval(renewing);
      await this.#store.delete(namespace, checkId).catch(() => undefined);
    };
  }

  /** Whether this process may close an open check: nobody alive holds its lease (now ours). */
  async takeOver(checkId: string): Promise<boolean> {
    if (!this.#shared) return true;
    // Our own lease means the check is starting or running here: never take it over.
    if ((await this.#store.get<string>(namespace, checkId)) === this.#owner) return false;
    return this.#store.claim(namespace, checkId, this.#owner, leaseMs);
  }

  /** Gives back a lease taken by {@link takeOver}. */
  async release(checkId: string): Promise<void> {
    if (this.#shared) await this.#store.delete(namespace, checkId).catch(() => undefined);
  }

  /** Whether another live process runs the check. */
  async isHeldElsewhere(checkId: string): Promise<boolean> {
    if (!this.#shared) return false;
    const holder = await this.#store.get<string>(namespace, checkId);
    return holder !== undefined && holder !== this.#owner;
  }

  /** Asks the process running a check elsewhere to stop it. */
  async requestStop(checkId: string): Promise<void> {
    await this.#store.set(stopsNamespace, checkId, true, { ttlMs: leaseMs * 10 });
  }

  /** Whether a stop of the check was asked for (by {@link requestStop}). */
  async stopRequested(checkId: string): Promise<boolean> {
    return (await this.#store.get<boolean>(stopsNamespace, checkId)) === true;
  }
}
