/**
 * The embedded queue: units run in the process that adds them, as Trawl always ran its jobs, with
 * nothing else to set up. Units added before a consumer of their kind exists wait for one.
 */
import { toTrawlError } from '../errors.ts';
import type {
  ConsumeOptions,
  Queue,
  QueueCapabilities,
  QueueCounts,
  QueueUnit,
  UnitHandler,
} from '../interfaces/queue.ts';
import { Semaphore } from '../internal/semaphore.ts';

interface Consumer {
  handler: UnitHandler;
  slots: Semaphore;
}

/** A unit added and not finished; `started` once handed to its consumer (maybe waiting for a slot). */
interface Entry {
  unit: QueueUnit;
  started: boolean;
  running: boolean;
}

interface Waiter {
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** A `Queue` inside this process; units are lost with it (jobs resume from the Store instead). */
export class InProcessQueue implements Queue {
  readonly capabilities: QueueCapabilities = { shared: false };
  readonly #consumers = new Map<string, Consumer>();
  /** Units added and not finished, by kind and id: each id waits or runs once. */
  readonly #units = new Map<string, Map<string, Entry>>();
  readonly #waiters = new Map<string, Waiter[]>();
  readonly #abort = new AbortController();

  consume(kind: string, handler: UnitHandler, options: ConsumeOptions = {}): Promise<void> {
    if (this.#consumers.has(kind)) throw new Error(`a consumer of '${kind}' units is registered`);
    this.#consumers.set(kind, { handler, slots: new Semaphore(options.concurrency ?? 1) });
    // Units added before anyone consumed them start now, in the order they came.
    for (const entry of this.#unitsOf(kind).values()) if (!entry.started) this.#start(entry);
    return Promise.resolve();
  }

  add(unit: QueueUnit): Promise<void> {
    if (this.#abort.signal.aborted) return Promise.resolve();
    const units = this.#unitsOf(unit.kind);
    if (units.has(unit.id)) return Promise.resolve();
    const entry: Entry = { unit, started: false, running: false };
    units.set(unit.id, entry);
    if (this.#consumers.has(unit.kind)) this.#start(entry);
    return Promise.resolve();
  }

  async run<R>(unit: QueueUnit): Promise<R> {
    const result = new Promise<unknown>((resolve, reject) => {
      const key = `${unit.kind}\u0000${unit.id}`;
      const waiters = this.#waiters.get(key) ?? [];
      waiters.push({ resolve, reject });
      this.#waiters.set(key, waiters);
    });
    await this.add(unit);
    return (await result) as R;
  }

  counts(kind: string): Promise<QueueCounts> {
    let active = 0;
    let waiting = 0;
    for (const entry of this.#unitsOf(kind).values()) {
      if (entry.running) active += 1;
      else waiting += 1;
    }
    return Promise.resolve({ waiting, active });
  }

  close(): Promise<void> {
    this.#abort.abort();
    return Promise.resolve();
  }

  #unitsOf(kind: string) {
    let units = this.#units.get(kind);
    if (!units) {
      units = new Map();
      this.#units.set(kind, units);
    }
    return units;
  }

  #start(entry: Entry): void {
    const consumer = this.#consumers.get(entry.unit.kind);
    if (!consumer) return;
    entry.started = true;
    const { unit } = entry;
    const settle = (outcome: { value?: unknown; error?: unknown }) => {
      this.#unitsOf(unit.kind).delete(unit.id);
      const key = `${unit.kind}\u0000${unit.id}`;
      const waiters = this.#waiters.get(key) ?? [];
      this.#waiters.delete(key);
      for (const waiter of waiters) {
        if ('error' in outcome) waiter.reject(toTrawlError(outcome.error));
        else waiter.resolve(outcome.value);
      }
    };
    void (async () => {
      await consumer.slots.acquire();
      entry.running = true;
      try {
        settle({ value: await consumer.handler(unit, this.#abort.signal) });
      } catch (error) {
        settle({ error });
      } finally {
        consumer.slots.release();
      }
    })();
  }
}
