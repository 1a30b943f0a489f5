/**
 * A Store in process memory: for tests and short scripts. Values are copied through JSON on the
 * way in and out, so callers cannot mutate what is stored, as with every other backend.
 */
import { StoreError } from '../errors.ts';
import {
  defaultListLimit,
  type Store,
  type StoreEntry,
  type StoreListOptions,
  type StoreSetOptions,
} from '../interfaces/store.ts';
import { ValidationError } from '../errors.ts';
import { storedJson } from './stored-json.ts';

/** The list limit to use; a limit that is not a positive integer is the caller's error. */
export function checkedListLimit(limit: number | undefined): number {
  if (limit === undefined) return defaultListLimit;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new ValidationError(`Store list limit must be a positive integer (got ${limit})`);
  }
  return limit;
}

interface MemoryEntry {
  json: string;
  expiresAt: number | undefined;
}

/** A Store that lives and dies with the process. */
export class MemoryStore implements Store {
  readonly capabilities = { persistent: false, shared: false };
  readonly #namespaces = new Map<string, Map<string, MemoryEntry>>();
  #closed = false;

  get<T>(namespace: string, key: string): Promise<T | undefined> {
    return this.#run(() => {
      const entry = this.#live(namespace, key);
      return entry ? (JSON.parse(entry.json) as T) : undefined;
    });
  }

  set(namespace: string, key: string, value: unknown, options?: StoreSetOptions): Promise<void> {
    const ttlMs = options?.ttlMs;
    return this.#run(() => {
      let entries = this.#namespaces.get(namespace);
      if (!entries) this.#namespaces.set(namespace, (entries = new Map<string, MemoryEntry>()));
      entries.set(key, {
        json: storedJson(value),
        expiresAt: ttlMs === undefined ? undefined : Date.now() + ttlMs,
      });
    });
  }

  delete(namespace: string, key: string): Promise<boolean> {
    return this.#run(() => {
      const existed = this.#live(namespace, key) !== undefined;
      this.#namespaces.get(namespace)?.delete(key);
      return existed;
    });
  }

  list<T>(namespace: string, options: StoreListOptions = {}): Promise<StoreEntry<T>[]> {
    return this.#run(() => {
      const limit = checkedListLimit(options.limit);
      const prefix = options.prefix ?? '';
      const after = options.after;
      const keys = [...(this.#namespaces.get(namespace)?.keys() ?? [])]
        .filter((key) => key.startsWith(prefix) && (after === undefined || key > after))
        .sort();
      const entries: StoreEntry<T>[] = [];
      for (const key of keys) {
        if (entries.length >= limit) break;
        const entry = this.#live(namespace, key);
        if (entry) entries.push({ key, value: JSON.parse(entry.json) as T });
      }
      return entries;
    });
  }

  claim(namespace: string, key: string, owner: string, ttlMs: number): Promise<boolean> {
    return this.#run(() => {
      const json = JSON.stringify(owner);
      const held = this.#live(namespace, key);
      if (held && held.json !== json) return false;
      let entries = this.#namespaces.get(namespace);
      if (!entries) this.#namespaces.set(namespace, (entries = new Map<string, MemoryEntry>()));
      entries.set(key, { json, expiresAt: Date.now() + ttlMs });
      return true;
    });
  }

  clear(namespace: string): Promise<void> {
    return this.#run(() => {
      this.#namespaces.delete(namespace);
    });
  }

  close(): Promise<void> {
    this.#closed = true;
    this.#namespaces.clear();
    return Promise.resolve();
  }

  #live(namespace: string, key: string): MemoryEntry | undefined {
    const entries = this.#namespaces.get(namespace);
    const entry = entries?.get(key);
    if (entry?.expiresAt !== undefined && entry.expiresAt <= Date.now()) {
      entries?.delete(key);
      return undefined;
    }
    return entry;
  }

  #run<T>(operation: () => T): Promise<T> {
    if (this.#closed) return Promise.reject(new StoreError('The memory store is closed'));
    try {
      return Promise.resolve(operation());
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }
}
