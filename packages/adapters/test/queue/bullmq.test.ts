/**
 * BullmqQueue against the real Redis on 127.0.0.1:6379: the Queue contract, each test under its
 * own BullMQ prefix whose keys `afterAll` unlinks, and the lease after which a unit whose
 * consumer died runs elsewhere.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BullmqQueue } from '@trawl/adapters';
import { describeQueueContract } from '../../../../test/contracts/queue.contract.ts';

const url = 'redis://127.0.0.1:6379';
const hangingConsumer = join(import.meta.dirname, 'fixtures/hanging-consumer.ts');
const prefixes: string[] = [];
const freshPrefix = () => {
  const prefix = `trawl_test_${randomUUID()}`;
  prefixes.push(prefix);
  return prefix;
};

const raw = createClient({ url });
beforeAll(async () => {
  await raw.connect();
});
afterAll(async () => {
  for (const prefix of prefixes) {
    for await (const keys of raw.scanIterator({ MATCH: `${prefix}:*`, COUNT: 1000 })) {
      if (keys.length > 0) await raw.unlink(keys);
    }
  }
  raw.destroy();
});

describeQueueContract(
  'bullmq',
  () => {
    const prefix = freshPrefix();
    return Promise.resolve({ open: () => new BullmqQueue({ url, prefix }) });
  },
  { shared: true },
);

describe('BullmqQueue', () => {
  it('refuses a URL that is not redis:// with BAD_REQUEST', () => {
    expect(() => new BullmqQueue({ url: 'http://127.0.0.1:6379' })).toThrow(
      expect.objectContaining({ code: 'BAD_REQUEST' }),
    );
  });

  it(
    'runs a unit again elsewhere once the lease of a consumer killed with SIGKILL expires',
    { timeout: 30_000 },
    async () => {
      const prefix = freshPrefix();
      const leaseMs = 1000;
      const producer = new BullmqQueue({ url, prefix, leaseMs });
      const survivor = new BullmqQueue({ url, prefix, leaseMs });
      const child = spawn(
        process.execPath,
        ['--conditions=development', hangingConsumer, url, prefix, String(leaseMs)],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      const exited = new Promise((resolve) => child.once('exit', resolve));
      try {
        const lines = createInterface({ input: child.stdout });
        const waitFor = async (wanted: string) => {
          for await (const line of lines) if (line === wanted) return;
        };
        await waitFor('ready');
        const result = producer.run<string>({ kind: 'job', id: randomUUID(), data: 'x' });
        await waitFor('started');
        child.kill('SIGKILL');
        await exited;
        await survivor.consume('job', () => Promise.resolve('taken over'));
        // Bounded by the test timeout: with the default 30 s lease this would not finish.
        await expect(result).resolves.toBe('taken over');
      } finally {
        child.kill('SIGKILL');
        await Promise.allSettled([producer.close(), survivor.close()]);
      }
    },
  );
});
