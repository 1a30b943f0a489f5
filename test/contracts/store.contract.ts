/**
 * The Store contract as a test suite: every Store implementation runs it against the real
 * backend (memory, SQLite file, and later Redis and PostgreSQL), each test in its own namespace.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '@trawl/core';

/** Options for backends whose features differ. */
/** The keys `store.list` gives, in its order: what most listing assertions compare. */
export async function listedKeys(
  store: Store,
  namespace: string,
  options?: Parameters<Store['list']>[1],
): Promise<string[]> {
  return (await store.list(namespace, options)).map((entry) => entry.key);
}

export interface StoreContractOptions {
  /** The backend keeps data across `close()` and reopening with `reopen`. */
  reopen?: () => Promise<Store>;
  /** Separate instances from `makeStore` share one backend (Redis, PostgreSQL). */
  shared?: boolean;
}

/** Registers the contract tests for one Store implementation. */
export function describeStoreContract(
  name: string,
  makeStore: () => Promise<Store>,
  options: StoreContractOptions = {},
): void {
  describe(`${name} store contract`, () => {
    let store: Store;
    beforeAll(async () => {
      store = await makeStore();
    });
    afterAll(async () => {
      await store.close();
    });
    const ns = () => `t_${randomUUID()}`;

    it('returns undefined for a key never written', async () => {
      expect(await store.get(ns(), 'missing')).toBeUndefined();
    });

    it('reads back what was written, as a copy', async () => {
      const namespace = ns();
      const value = { a: 1, nested: { list: ['x', 2, null] }, text: 'é€日本' };
      await store.set(namespace, 'k', value);
      const read = await store.get<typeof value>(namespace, 'k');
      expect(read).toEqual(value);
      value.a = 2;
      expect((await store.get<typeof value>(namespace, 'k'))?.a).toBe(1);
    });

    it('replaces a value on a second set', async () => {
      const namespace = ns();
      await store.set(namespace, 'k', 'first');
      await store.set(namespace, 'k', 'second');
      expect(await store.get(namespace, 'k')).toBe('second');
    });

    it('keeps namespaces apart', async () => {
      const [first, second] = [ns(), ns()];
      await store.set(first, 'k', 1);
      expect(await store.get(second, 'k')).toBeUndefined();
      await store.clear(second);
      expect(await store.get(first, 'k')).toBe(1);
    });

    it('deletes idempotently and says whether the key existed', async () => {
      const namespace = ns();
      await store.set(namespace, 'k', true);
      expect(await store.delete(namespace, 'k')).toBe(true);
      expect(await store.delete(namespace, 'k')).toBe(false);
      expect(await store.get(namespace, 'k')).toBeUndefined();
    });

    it('hides entries once their ttl has passed', async () => {
      const namespace = ns();
      await store.set(namespace, 'short', 'gone', { ttlMs: 1 });
      await store.set(namespace, 'long', 'kept', { ttlMs: 60_000 });
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await store.get(namespace, 'short')).toBeUndefined();
      expect(await store.get(namespace, 'long')).toBe('kept');
      expect((await store.list(namespace)).map((entry) => entry.key)).toEqual(['long']);
    });

    it('keeps an entry without expiry once it is set again without ttlMs', async () => {
      const namespace = ns();
      await store.set(namespace, 'k', 'first', { ttlMs: 1 });
      await store.set(namespace, 'k', 'second');
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await store.get(namespace, 'k')).toBe('second');
    });

    it('treats a ttlMs of zero or less as an entry born expired', async () => {
      const namespace = ns();
      await store.set(namespace, 'k', 'old');
      await store.set(namespace, 'k', 'new', { ttlMs: 0 });
      expect(await store.get(namespace, 'k')).toBeUndefined();
      expect(await store.list(namespace)).toEqual([]);
      expect(await store.delete(namespace, 'k')).toBe(false);
    });

    it('lists by prefix in key order, paging with after and limit', async () => {
      const namespace = ns();
      for (const key of ['b:2', 'a:1', 'b:1', 'b:3', 'c:1'])
        await store.set(namespace, key, key.toUpperCase());
      const page1 = await store.list<string>(namespace, { prefix: 'b:', limit: 2 });
      expect(page1).toEqual([
        { key: 'b:1', value: 'B:1' },
        { key: 'b:2', value: 'B:2' },
      ]);
      const page2 = await store.list<string>(namespace, { prefix: 'b:', after: 'b:2', limit: 2 });
      expect(page2.map((entry) => entry.key)).toEqual(['b:3']);
      expect((await store.list(namespace)).length).toBe(5);
    });

    it('lists the empty key and keys with characters beyond U+FFFF', async () => {
      const namespace = ns();
      await store.set(namespace, '', 'empty');
      await store.set(namespace, 'p:\u{1F600}', 'astral');
      await store.set(namespace, 'p:\uFFFF', 'bmp-max');
      expect((await store.list(namespace)).map((entry) => entry.key)[0]).toBe('');
      const prefixed = await store.list<string>(namespace, { prefix: 'p:' });
      expect(prefixed.map((entry) => entry.value).sort()).toEqual(['astral', 'bmp-max']);
    });

    it('refuses a list limit that is not a positive integer', async () => {
      await expect(store.list(ns(), { limit: -1 })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    });

    it('clears a whole namespace', async () => {
      const namespace = ns();
      await store.set(namespace, 'x', 1);
      await store.set(namespace, 'y', 2);
      await store.clear(namespace);
      expect(await store.list(namespace)).toEqual([]);
    });

    it('handles many concurrent writes without losing any', async () => {
      const namespace = ns();
      await Promise.all(
        Array.from({ length: 200 }, (_, index) =>
          store.set(namespace, `k${String(index).padStart(3, '0')}`, index),
        ),
      );
      const entries = await store.list<number>(namespace, { limit: 1000 });
      expect(entries).toHaveLength(200);
      expect(entries[199]).toEqual({ key: 'k199', value: 199 });
    });

    it('grants a claim to one owner until it expires, renews it for that owner, frees it on delete', async () => {
      const namespace = ns();
      expect(await store.claim(namespace, 'run', 'owner-a', 60_000)).toBe(true);
      expect(await store.claim(namespace, 'run', 'owner-b', 60_000)).toBe(false);
      expect(await store.claim(namespace, 'run', 'owner-a', 60_000)).toBe(true);
      expect(await store.get(namespace, 'run')).toBe('owner-a');
      await store.delete(namespace, 'run');
      expect(await store.claim(namespace, 'run', 'owner-b', 1)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 20));
      // An expired claim is taken over.
      expect(await store.claim(namespace, 'run', 'owner-a', 60_000)).toBe(true);
      // A plain value that does not expire is never taken.
      await store.set(namespace, 'kept', 'owner-c');
      expect(await store.claim(namespace, 'kept', 'owner-a', 60_000)).toBe(false);
    });

    it('grants one of many concurrent claims of one key', async () => {
      const namespace = ns();
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          store.claim(namespace, 'due', `owner-${index}`, 60_000),
        ),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    if (options.reopen) {
      const reopen = options.reopen;
      it('keeps data across close and reopen', async () => {
        const namespace = ns();
        await store.set(namespace, 'durable', { ok: true });
        await store.close();
        store = await reopen();
        expect(await store.get(namespace, 'durable')).toEqual({ ok: true });
      });
    }

    if (options.shared) {
      it('shows one instance the writes of another on the same backend, and says so', async () => {
        const [first, second] = [await makeStore(), await makeStore()];
        try {
          expect(first.capabilities).toMatchObject({ persistent: true, shared: true });
          const namespace = ns();
          await first.set(namespace, 'job:1', { state: 'active' });
          expect(await second.get(namespace, 'job:1')).toEqual({ state: 'active' });
          await second.set(namespace, 'job:2', { state: 'queued' });
          const keys = (await first.list(namespace, { prefix: 'job:' })).map((entry) => entry.key);
          expect(keys).toEqual(['job:1', 'job:2']);
          expect(await second.delete(namespace, 'job:1')).toBe(true);
          expect(await first.get(namespace, 'job:1')).toBeUndefined();
          // Two processes racing for one claim: exactly one wins.
          const claims = await Promise.all([
            first.claim(namespace, 'due', 'first', 60_000),
            second.claim(namespace, 'due', 'second', 60_000),
          ]);
          expect(claims.filter(Boolean)).toHaveLength(1);
        } finally {
          await Promise.all([first.close(), second.close()]);
        }
      });
    }

    it('rejects calls after close with STORE_UNAVAILABLE', async () => {
      const closed = await makeStore();
      await closed.close();
      await expect(closed.get(ns(), 'k')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    });
  });
}
