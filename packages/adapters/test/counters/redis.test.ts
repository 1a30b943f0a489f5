/**
 * RedisCounters against the real Redis on 127.0.0.1:6379: two instances (two processes' worth of
 * connections) share one count. Everything is written under a prefix of this run, unlinked after.
 */
import { randomUUID } from 'node:crypto';
import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisCounters } from '@trawl/adapters';

const url = 'redis://127.0.0.1:6379';
const prefix = `trawl_test_${randomUUID()}`;
const raw = createClient({ url });
const [one, two] = [new RedisCounters({ url, prefix }), new RedisCounters({ url, prefix })];
beforeAll(async () => {
  await raw.connect();
});
afterAll(async () => {
  await Promise.all([one.close(), two.close()]);
  for await (const keys of raw.scanIterator({ MATCH: `${prefix}:*`, COUNT: 1000 })) {
    if (keys.length > 0) await raw.unlink(keys);
  }
  raw.destroy();
});

describe('RedisCounters', () => {
  it('counts one window across instances: exactly `limit` concurrent hits pass, the key expires', async () => {
    const key = `rate:${randomUUID()}`;
    const hits = await Promise.all(
      Array.from({ length: 30 }, (_, index) => (index % 2 ? one : two).hit(key, 12, 60_000)),
    );
    expect(hits.filter((hit) => hit.allowed)).toHaveLength(12);
    const refused = hits.find((hit) => !hit.allowed);
    expect(refused?.count).toBe(12);
    expect(refused?.resetInMs).toBeGreaterThan(0);
    expect(refused?.resetInMs).toBeLessThanOrEqual(60_000);
    expect(await raw.pTTL(`${prefix}:limits:${key}`)).toBeGreaterThan(0);
  });

  it('starts a new window once the last one has passed', async () => {
    const key = `rate:${randomUUID()}`;
    expect((await one.hit(key, 1, 50)).allowed).toBe(true);
    expect((await two.hit(key, 1, 50)).allowed).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect((await two.hit(key, 1, 50)).allowed).toBe(true);
  });

  it('holds at most `limit` slots across instances, frees released and expired ones', async () => {
    const key = `slots:${randomUUID()}`;
    const slots = await Promise.all(
      Array.from({ length: 6 }, (_, index) => (index % 2 ? one : two).acquire(key, 2, 60_000)),
    );
    const taken = slots.filter((slot) => slot !== undefined);
    expect(taken).toHaveLength(2);
    expect(await one.held(key)).toBe(2);
    await two.release(key, taken[0] as string);
    expect(await one.held(key)).toBe(1);
    const short = await one.acquire(key, 2, 40);
    expect(short).toBeDefined();
    expect(await two.acquire(key, 2, 60_000)).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 80));
    // The short lease lapsed (its holder died): its slot is free again.
    expect(await two.renew(key, short as string, 60_000)).toBe(false);
    expect(await two.acquire(key, 2, 60_000)).toBeDefined();
    expect(await one.renew(key, taken[1] as string, 60_000)).toBe(true);
    expect(await raw.pTTL(`${prefix}:limits:${key}`)).toBeGreaterThan(0);
  });

  it('adds atomically from a seed, so concurrent writers lose no update', async () => {
    const key = `credits:${randomUUID()}`;
    expect(await one.read(key)).toBeUndefined();
    await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        (index % 2 ? one : two).add(
          key,
          { debited: 2 },
          { ttlMs: 60_000, seed: { debited: 100, refunded: 5 } },
        ),
      ),
    );
    expect(await two.read(key)).toEqual({ debited: 180, refunded: 5 });
    expect(await raw.pTTL(`${prefix}:limits:${key}`)).toBeGreaterThan(0);
  });
});
