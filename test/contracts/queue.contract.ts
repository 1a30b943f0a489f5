/**
 * The Queue contract as a test suite: the in-process queue and BullMQ on the real Redis run it.
 * Each test opens its own queues (a fresh prefix for shared backends) and closes them after.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Queue, QueueUnit } from '@trawl/core';

/** Options for backends whose features differ. */
export interface QueueContractOptions {
  /** Two queues from one `open()` share units: one adds, the other consumes (BullMQ). */
  shared?: boolean;
}

const waitBound = { timeout: 10_000, interval: 20 };

/** Registers the contract tests for one Queue implementation. */
export function describeQueueContract(
  name: string,
  open: () => Promise<{ open(): Queue }>,
  options: QueueContractOptions = {},
): void {
  describe(`${name} queue contract`, () => {
    const opened: Queue[] = [];
    const backendFor = async () => {
      const backend = await open();
      return () => {
        const queue = backend.open();
        opened.push(queue);
        return queue;
      };
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((queue) => queue.close()));
    });
    const unit = (data: unknown = {}, kind = 'page'): QueueUnit => ({
      kind,
      id: `u_${randomUUID()}`,
      data,
    });

    it('resolves run() with what the handler returned for the unit', async () => {
      const queue = (await backendFor())();
      await queue.consume('page', (work) =>
        Promise.resolve({ doubled: (work.data as number) * 2 }),
      );
      await expect(queue.run(unit(21))).resolves.toEqual({ doubled: 42 });
    });

    it('keeps a unit added before any consumer until one consumes it', async () => {
      const queue = (await backendFor())();
      const seen: unknown[] = [];
      await queue.add(unit('early'));
      await queue.consume('page', (work) => {
        seen.push(work.data);
        return Promise.resolve(null);
      });
      await vi.waitFor(() => expect(seen).toEqual(['early']), waitBound);
    });

    it('runs a unit once when it is added again while it waits or runs', async () => {
      const queue = (await backendFor())();
      const release = Promise.withResolvers<void>();
      let calls = 0;
      await queue.consume('page', async () => {
        calls += 1;
        await release.promise;
        return calls;
      });
      const work = unit();
      const first = queue.run(work);
      await vi.waitFor(() => expect(calls).toBe(1), waitBound);
      await queue.add(work);
      release.resolve();
      await expect(first).resolves.toBe(1);
      expect(calls).toBe(1);
    });

    it('rejects run() with the code of the error the handler threw', async () => {
      const queue = (await backendFor())();
      const { NotFoundError } = await import('@trawl/core');
      await queue.consume('page', () => Promise.reject(new NotFoundError('no such page')));
      await expect(queue.run(unit())).rejects.toMatchObject({
        code: 'NOT_FOUND',
        message: expect.stringContaining('no such page') as unknown,
      });
    });

    it('runs at most `concurrency` units of a kind at once, and counts them', async () => {
      const queue = (await backendFor())();
      const release = Promise.withResolvers<void>();
      let running = 0;
      let most = 0;
      await queue.consume(
        'page',
        async () => {
          running += 1;
          most = Math.max(most, running);
          await release.promise;
          running -= 1;
          return null;
        },
        { concurrency: 2 },
      );
      const runs = [unit(), unit(), unit(), unit(), unit()].map((work) => queue.run(work));
      await vi.waitFor(() => expect(running).toBe(2), waitBound);
      await vi.waitFor(
        async () => expect(await queue.counts('page')).toEqual({ active: 2, waiting: 3 }),
        waitBound,
      );
      release.resolve();
      await Promise.all(runs);
      expect(most).toBe(2);
      await vi.waitFor(
        async () => expect(await queue.counts('page')).toEqual({ active: 0, waiting: 0 }),
        waitBound,
      );
    });

    it('keeps kinds apart: a unit goes to the consumer of its kind only', async () => {
      const queue = (await backendFor())();
      await queue.consume('page', () => Promise.resolve('page'));
      await queue.consume('check', () => Promise.resolve('check'));
      await expect(queue.run(unit({}, 'check'))).resolves.toBe('check');
      await expect(queue.run(unit({}, 'page'))).resolves.toBe('page');
    });

    it('aborts the signal of a running handler when the queue closes', async () => {
      const open = await backendFor();
      const queue = open();
      const aborted = Promise.withResolvers<void>();
      const started = Promise.withResolvers<void>();
      await queue.consume('page', (_work, signal) => {
        started.resolve();
        signal.addEventListener('abort', () => aborted.resolve(), { once: true });
        return aborted.promise.then(() => null);
      });
      await queue.add(unit());
      await started.promise;
      await Promise.all([queue.close(), aborted.promise]);
    });

    if (options.shared) {
      it('hands a unit added in one process to a consumer in another', async () => {
        const open = await backendFor();
        const [producer, consumer] = [open(), open()];
        await consumer.consume('page', (work) => Promise.resolve(`ran ${String(work.data)}`));
        await expect(producer.run(unit('there'))).resolves.toBe('ran there');
        expect(await producer.counts('page')).toEqual({ active: 0, waiting: 0 });
      });
    }
  });
}
