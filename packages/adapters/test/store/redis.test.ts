/**
 * RedisStore against the real Redis on 127.0.0.1:6379. Every store of this run writes under its
 * own key prefix, and `afterAll` unlinks every key under it.
 */
import { randomUUID } from 'node:crypto';
import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RedisStore, type RedisStoreOptions } from '@trawl/adapters';
import { describeStoreContract, listedKeys } from '../../../../test/contracts/store.contract.ts';
import { closingOpener } from './closing-opener.ts';
import { relaysClosedAfterEach } from './tcp-relay.ts';

const url = 'redis://127.0.0.1:6379';
const prefix = `trawl_test_${randomUUID()}`;
const ns = () => `t_${randomUUID()}`;

const open = closingOpener(
  (options: RedisStoreOptions) => new RedisStore({ url, prefix, ...options }),
);

// A plain client to look at and clean what the stores wrote.
const raw = createClient({ url });
beforeAll(async () => {
  await raw.connect();
});
afterAll(async () => {
  for await (const keys of raw.scanIterator({ MATCH: `${prefix}:*`, COUNT: 1000 })) {
    if (keys.length > 0) await raw.unlink(keys);
  }
  raw.destroy();
});

describeStoreContract('redis', () => Promise.resolve(new RedisStore({ url, prefix })), {
  reopen: () => Promise.resolve(new RedisStore({ url, prefix })),
  shared: true,
});

describe('RedisStore', () => {
  it('keeps stores with different prefixes apart', async () => {
    const namespace = ns();
    await open().set(namespace, 'k', 1);
    expect(await open({ prefix: `${prefix}:other` }).get(namespace, 'k')).toBeUndefined();
  });

  it('keeps namespaces apart even when they contain separators and braces', async () => {
    const store = open();
    const base = ns();
    await store.set(base, 'a:v:b', 'in base');
    await store.set(`${base}}:v:a`, 'b', 'in braced');
    await store.set(`${base}:v:a`, 'b', 'in colon');
    expect(await store.list(base)).toEqual([{ key: 'a:v:b', value: 'in base' }]);
    expect(await store.get(`${base}}:v:a`, 'b')).toBe('in braced');
    await store.clear(`${base}:v:a`);
    expect(await store.get(base, 'a:v:b')).toBe('in base');
    expect(await store.get(`${base}}:v:a`, 'b')).toBe('in braced');
  });

  it('lists keys in code point order, the highest ones inside their prefix', async () => {
    const namespace = ns();
    const store = open();
    const inOrder = ['', 'a', 'ab', 'a\uffff', 'a\u{1F600}', 'b'];
    for (const key of [...inOrder].reverse()) await store.set(namespace, key, key);
    expect(await listedKeys(store, namespace, { prefix: 'a' })).toEqual(inOrder.slice(1, 5));
    expect(await listedKeys(store, namespace)).toEqual(inOrder);
    expect(await listedKeys(store, namespace, { after: '' })).toHaveLength(5);
  });

  it('fills a page past expired entries and drops their index members', async () => {
    const store = open();
    const namespace = ns();
    await store.set(namespace, 'b', 'live');
    await store.set(namespace, 'c', 'live');
    // Written last, and expiring after all of them are written, so that no write sweeps them.
    for (let index = 0; index < 5; index++) {
      await store.set(namespace, `a${index}`, index, { ttlMs: 50 });
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    const page = await store.list(namespace, { limit: 2 });
    expect(page.map((entry) => entry.key)).toEqual(['b', 'c']);
    const index = `${prefix}:{${namespace}}:keys`;
    expect(await raw.zRange(index, 0, -1)).toEqual(['b', 'c']);
  });

  it('drops expired index members on later writes, so a get-only cache stays small', async () => {
    const store = open();
    const namespace = ns();
    for (let index = 0; index < 10; index++) {
      await store.set(namespace, `page${index}`, index, { ttlMs: 1 });
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    await store.set(namespace, 'fresh', 'page', { ttlMs: 60_000 });
    expect(await raw.zRange(`${prefix}:{${namespace}}:keys`, 0, -1)).toEqual(['fresh']);
    expect(await raw.zRange(`${prefix}:{${namespace}}:expiry`, 0, -1)).toEqual(['fresh']);
  });

  it('drops the key expiry in Redis when an entry is set again without ttlMs', async () => {
    const store = open();
    const namespace = ns();
    await store.set(namespace, 'k', 'first', { ttlMs: 60_000 });
    await store.set(namespace, 'k', 'second');
    expect(await raw.pTTL(`${prefix}:{${namespace}}:v:k`)).toBe(-1);
  });

  it('refuses keys with lone surrogates and values with no JSON form as BAD_REQUEST', async () => {
    const store = open();
    const namespace = ns();
    await expect(store.set(namespace, 'bad\ud800', 1)).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    await expect(store.set(namespace, 'k', undefined)).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    await expect(store.set(namespace, 'k', { n: 1n })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
  });

  it('refuses a URL that is not redis:// with BAD_REQUEST', () => {
    expect(() => new RedisStore({ url: 'http://127.0.0.1:6379' })).toThrow(
      expect.objectContaining({ code: 'BAD_REQUEST' }),
    );
  });

  it(
    'fails with STORE_UNAVAILABLE when nothing listens, without hanging',
    { timeout: 5000 },
    async () => {
      const store = open({ url: 'redis://127.0.0.1:1', connectTimeoutMs: 1000 });
      await expect(store.get(ns(), 'k')).rejects.toMatchObject({
        code: 'STORE_UNAVAILABLE',
        retryable: true,
        message: expect.stringContaining('127.0.0.1:1') as unknown,
      });
      // A failed connect is not remembered: the next call tries again, and fails the same way.
      await expect(store.set(ns(), 'k', 1)).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    },
  );

  describe('behind a relay', () => {
    const startRelay = relaysClosedAfterEach();

    it('gives up on a server that accepts but never answers', { timeout: 5000 }, async () => {
      const relay = await startRelay();
      const store = open({ url: `redis://127.0.0.1:${relay.port}`, connectTimeoutMs: 200 });
      await expect(store.get(ns(), 'k')).rejects.toMatchObject({
        code: 'STORE_UNAVAILABLE',
        message: expect.stringContaining('connectTimeoutMs') as unknown,
      });
    });

    it(
      'fails a call whose reply does not come within commandTimeoutMs',
      { timeout: 5000 },
      async () => {
        const relay = await startRelay({ host: '127.0.0.1', port: 6379 });
        const store = open({
          url: `redis://127.0.0.1:${relay.port}`,
          connectTimeoutMs: 200,
          commandTimeoutMs: 200,
        });
        const namespace = ns();
        await store.set(namespace, 'k', 1);
        relay.mute();
        await expect(store.set(namespace, 'k', 2)).rejects.toMatchObject({
          code: 'STORE_UNAVAILABLE',
        });
        // The stuck connection was dropped; the new one gets no answer either.
        await expect(store.get(namespace, 'k')).rejects.toMatchObject({
          code: 'STORE_UNAVAILABLE',
        });
        relay.unmute();
        // The late write did reach Redis: a timeout means the outcome is unknown, not a failure.
        expect(await store.get(namespace, 'k')).toBe(2);
      },
    );

    it('reconnects after the connection is cut', { timeout: 10_000 }, async () => {
      const relay = await startRelay({ host: '127.0.0.1', port: 6379 });
      const store = open({ url: `redis://127.0.0.1:${relay.port}` });
      const namespace = ns();
      await store.set(namespace, 'k', 'before');
      relay.dropConnections();
      // Calls fail fast with STORE_UNAVAILABLE until the client has reconnected in the background.
      await vi.waitFor(() => store.set(namespace, 'k', 'after'), { timeout: 5000, interval: 50 });
      expect(await store.get(namespace, 'k')).toBe('after');
    });
  });
});
