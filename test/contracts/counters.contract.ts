/**
 * The Counters contract as a test suite, run on every implementation against its real backend
 * (memory, Redis): `pair` gives two handles on one backend (two processes' worth for Redis, the
 * same object twice for memory), and each test uses keys of its own.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Counters } from '@trawl/core';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The ceiling of a credit balance: what was debited, less refunds, plus reservations. */
const balance = (max: number) => ({ weights: { debited: 1, refunded: -1 }, max });

export function describeCountersContract(name: string, pair: () => [Counters, Counters]): void {
  describe(`${name} counters contract`, () => {
    it('counts one window: exactly `limit` concurrent hits pass', async () => {
      const [one, two] = pair();
      const key = `rate:${randomUUID()}`;
      const hits = await Promise.all(
        Array.from({ length: 30 }, (_, index) => (index % 2 ? one : two).hit(key, 12, 60_000)),
      );
      expect(hits.filter((hit) => hit.allowed)).toHaveLength(12);
      const refused = hits.find((hit) => !hit.allowed);
      expect(refused?.count).toBe(12);
      expect(refused?.resetInMs).toBeGreaterThan(0);
      expect(refused?.resetInMs).toBeLessThanOrEqual(60_000);
    });

    it('starts a new window once the last one has passed', async () => {
      const [one, two] = pair();
      const key = `rate:${randomUUID()}`;
      expect((await one.hit(key, 1, 50)).allowed).toBe(true);
      expect((await two.hit(key, 1, 50)).allowed).toBe(false);
      await pause(80);
      expect((await two.hit(key, 1, 50)).allowed).toBe(true);
    });

    it('holds at most `limit` slots, frees released and expired ones', async () => {
      const [one, two] = pair();
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
      await pause(80);
      // The short lease lapsed (its holder died): its slot is free again.
      expect(await two.renew(key, short as string, 60_000)).toBe(false);
      expect(await two.acquire(key, 2, 60_000)).toBeDefined();
      expect(await one.renew(key, taken[1] as string, 60_000)).toBe(true);
    });

    it('adds atomically from a seed, so concurrent writers lose no update', async () => {
      const [one, two] = pair();
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
    });

    it('reserves within a ceiling: of concurrent reservations exactly what fits passes', async () => {
      const [one, two] = pair();
      const key = `credits:${randomUUID()}`;
      const options = { leaseMs: 60_000, ttlMs: 60_000, seed: { debited: 4, refunded: 1 } };
      // 10 - (4 - 1) = 7 left: three reservations of 2 fit, the fourth and the rest do not.
      const taken = await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          (index % 2 ? one : two).reserve(key, {
            id: `r${index}`,
            amount: 2,
            ceiling: balance(10),
            ...options,
          }),
        ),
      );
      expect(taken.filter(Boolean)).toHaveLength(3);
      expect(await one.reserved(key)).toBe(6);
      // Seeded, and the reservations are not fields.
      expect(await two.read(key)).toEqual({ debited: 4, refunded: 1 });
      // Reserving an id again replaces its amount: growing one by 1 fits, by 2 does not.
      const held = taken.findIndex(Boolean);
      expect(
        await one.reserve(key, { id: `r${held}`, amount: 3, ceiling: balance(10), ...options }),
      ).toBe(true);
      expect(
        await two.reserve(key, { id: `r${held}`, amount: 4, ceiling: balance(10), ...options }),
      ).toBe(false);
      expect(await two.reserved(key)).toBe(7);
    });

    it('settles a reservation in the add that charges it; unreserve frees one', async () => {
      const [one, two] = pair();
      const key = `credits:${randomUUID()}`;
      const options = { leaseMs: 60_000, ttlMs: 60_000 };
      expect(
        await one.reserve(key, { id: 'job', amount: 3, ceiling: balance(3), ...options }),
      ).toBe(true);
      expect(
        await two.reserve(key, { id: 'other', amount: 1, ceiling: balance(3), ...options }),
      ).toBe(false);
      // The job used 2 of its 3: charged and released at once, so 1 is left.
      expect(await two.add(key, { debited: 2 }, { ttlMs: 60_000, settles: 'job' })).toEqual({
        debited: 2,
      });
      expect(await one.reserved(key)).toBe(0);
      expect(
        await one.reserve(key, { id: 'other', amount: 2, ceiling: balance(3), ...options }),
      ).toBe(false);
      expect(
        await one.reserve(key, { id: 'other', amount: 1, ceiling: balance(3), ...options }),
      ).toBe(true);
      await two.unreserve(key, 'other');
      await two.unreserve(key, 'other');
      expect(await one.reserved(key)).toBe(0);
    });

    it('lets a reservation lapse at the end of its lease (its holder died)', async () => {
      const [one, two] = pair();
      const key = `credits:${randomUUID()}`;
      expect(
        await one.reserve(key, {
          id: 'dead',
          amount: 5,
          ceiling: balance(5),
          leaseMs: 40,
          ttlMs: 60_000,
        }),
      ).toBe(true);
      expect(
        await two.reserve(key, {
          id: 'live',
          amount: 1,
          ceiling: balance(5),
          leaseMs: 60_000,
          ttlMs: 60_000,
        }),
      ).toBe(false);
      await pause(80);
      expect(
        await two.reserve(key, {
          id: 'live',
          amount: 5,
          ceiling: balance(5),
          leaseMs: 60_000,
          ttlMs: 60_000,
        }),
      ).toBe(true);
      expect(await one.reserved(key)).toBe(5);
    });
  });
}
