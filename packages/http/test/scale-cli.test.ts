/**
 * The commands and settings of a split deployment: what `trawl worker` and
 * `trawl serve --role api` refuse, and the queue `TRAWL_QUEUE` chooses, on the real Redis.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import { afterAll, describe, expect, it } from 'vitest';
import { BullmqQueue } from '@trawl/adapters';
import { InProcessQueue } from '@trawl/core';
import { loadConfig, openQueue, runCli } from '@trawl/http';

const redisUrl = 'redis://127.0.0.1:6379';
const prefixes: string[] = [];

afterAll(async () => {
  const redis = createClient({ url: redisUrl });
  await redis.connect();
  for (const prefix of prefixes) {
    for await (const keys of redis.scanIterator({ MATCH: `${prefix}:*`, COUNT: 1000 }))
      if (keys.length > 0) await redis.unlink(keys);
  }
  redis.destroy();
});

async function run(args: string[], env: Record<string, string> = {}) {
  let stderr = '';
  const code = await runCli(args, {
    stdout: () => undefined,
    stderr: (text) => (stderr += text),
    env: { TRAWL_DATA_DIR: mkdtempSync(join(tmpdir(), 'trawl-scale-cli-')), ...env },
  });
  return { code, stderr };
}

describe('trawl worker', () => {
  it('refuses to start on the in-process queue, naming TRAWL_QUEUE=bullmq', async () => {
    const { code, stderr } = await run(['worker']);
    expect(code).not.toBe(0);
    expect(stderr).toContain('TRAWL_QUEUE=bullmq');
  });

  it('refuses a store other processes cannot share', async () => {
    const { code, stderr } = await run(['worker'], {
      TRAWL_QUEUE: 'bullmq',
      TRAWL_REDIS_URL: redisUrl,
    });
    expect(code).not.toBe(0);
    expect(stderr).toContain('TRAWL_STORE=postgres');
  });

  it('refuses a concurrency below 1', async () => {
    const { code, stderr } = await run(['worker', '--concurrency', '0']);
    expect(code).not.toBe(0);
    expect(stderr).toContain('--concurrency');
  });
});

describe('trawl serve --role', () => {
  it('refuses --role api on the in-process queue, where nothing would run its jobs', async () => {
    const { code, stderr } = await run(['serve', '--role', 'api', '--port', '0']);
    expect(code).not.toBe(0);
    expect(stderr).toContain('--role api needs TRAWL_QUEUE=bullmq');
  });

  it('refuses a role it does not know', async () => {
    const { code, stderr } = await run(['serve', '--role', 'everything', '--port', '0']);
    expect(code).not.toBe(0);
    expect(stderr).toContain('--role');
  });
});

describe('openQueue: the queue the configuration chooses', () => {
  it('is the in-process queue by default', async () => {
    const queue = openQueue(loadConfig({ role: 'cli', env: {} }));
    expect(queue).toBeInstanceOf(InProcessQueue);
    await queue.close();
  });

  it('needs TRAWL_REDIS_URL for TRAWL_QUEUE=bullmq', () => {
    expect(() => openQueue(loadConfig({ role: 'cli', env: { TRAWL_QUEUE: 'bullmq' } }))).toThrow(
      /TRAWL_REDIS_URL/,
    );
  });

  it('puts units under TRAWL_QUEUE_PREFIX, where a consumer with that prefix runs them', async () => {
    const prefix = `trawl_test_${randomUUID()}`;
    prefixes.push(prefix);
    const env = { TRAWL_QUEUE: 'bullmq', TRAWL_REDIS_URL: redisUrl, TRAWL_QUEUE_PREFIX: prefix };
    const producer = openQueue(loadConfig({ role: 'cli', env }));
    const consumer = new BullmqQueue({ url: redisUrl, prefix });
    try {
      await consumer.consume('page', () => Promise.resolve('under the prefix'));
      await expect(producer.run({ kind: 'page', id: randomUUID(), data: null })).resolves.toBe(
        'under the prefix',
      );
    } finally {
      await Promise.all([producer.close(), consumer.close()]);
    }
  });
});
