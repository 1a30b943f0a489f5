/**
 * RedisCounters against the real Redis on 127.0.0.1:6379: the Counters contract with two
 * instances (two processes' worth of connections) sharing one count. Everything is written under
 * a prefix of this run, unlinked after.
 */
import { randomUUID } from 'node:crypto';
import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisCounters } from '@trawl/adapters';
import { describeCountersContract } from '../../../../test/contracts/counters.contract.ts';

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

describeCountersContract('Redis', () => [one, two]);

describe('RedisCounters', () => {
  it('keeps every key it writes under the prefix, with an expiry', async () => {
    const key = `credits:${randomUUID()}`;
    await one.hit(`rate:${key}`, 1, 60_000);
    await one.acquire(`slots:${key}`, 1, 60_000);
    await one.reserve(key, {
      id: 'r',
      amount: 1,
      ceiling: { weights: {}, max: 1 },
      leaseMs: 60_000,
      ttlMs: 60_000,
    });
    await two.add(key, { debited: 1 }, { ttlMs: 60_000 });
    for (const name of [`rate:${key}`, `slots:${key}`, key, `${key}:reservations`])
      expect(await raw.pTTL(`${prefix}:limits:${name}`)).toBeGreaterThan(0);
  });
});
