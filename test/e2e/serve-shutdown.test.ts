/**
 * `trawl serve` as a process: its start-up line names the address it
 * really listens on, and SIGTERM ends it within seconds even while a webhook receiver keeps
 * failing; the deliveries it had not made stay in the store and go out at the next start.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SqliteStore } from '@trawl/core';
import { startWebhookReceiver, until, type WebhookReceiver } from '../fakes/webhook-receiver.ts';
import { startServe } from './serve-process.ts';

const site = inject('fixtureUrl');
/** A webhook receiver that answers its `status` and keeps the event names it was sent. */
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver(501);
});
afterAll(() => receiver.close());

/** Starts `trawl serve` on `dataDir` with `args`. */
function serve(dataDir: string, args: string[] = []) {
  return startServe(
    {
      TRAWL_ALLOW_PRIVATE_ADDRESSES: 'true',
      // 1 + 2 + 4 + … + 32 s of retries: the schedule that held a shutdown for a minute.
      TRAWL_WEBHOOK_RETRIES: '6',
    },
    { dataDir, args },
  );
}

/** Sends SIGTERM and resolves with the exit code, or rejects when it takes over `ms`. */
function terminate(child: ChildProcess, ms: number): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`still running ${ms} ms after SIGTERM`));
    }, ms);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
    child.kill('SIGTERM');
  });
}

async function pendingWebhooks(dataDir: string): Promise<number> {
  const store = new SqliteStore({ path: join(dataDir, 'trawl.db') });
  try {
    return (await store.list('webhook-outbox', { limit: 1000 })).length;
  } finally {
    await store.close();
  }
}

describe('trawl serve start-up', () => {
  it('names the address it listens on, and that a keyless one there is reachable from elsewhere', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'trawl-serve-line-'));
    const server = await serve(dataDir, ['--host', '0.0.0.0', '--allow-keyless-remote']);
    try {
      expect(server.line).toMatch(/^Trawl \/v2 server on http:\/\/0\.0\.0\.0:\d+ \(every IPv4/);
      expect(server.line).toContain('keyless');
      expect(server.line).toContain('reachable from other machines');
      expect(server.line).not.toContain('loopback only');
      const health = await fetch(`${server.url}/health`);
      expect(health.status).toBe(200);
    } finally {
      await terminate(server.child, 15_000);
    }
  });
});

describe('trawl serve shutdown', () => {
  it('stops within seconds while webhooks fail, and delivers them at the next start', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'trawl-serve-shutdown-'));
    receiver.status = 501;
    const first = await serve(dataDir);
    const answer = await fetch(`${first.url}/v2/crawl`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${site}/`, limit: 2, webhook: receiver.url }),
    });
    expect(answer.status).toBe(200);
    // The first attempt failed: the sender is now waiting to retry.
    await until(() => receiver.received.length > 0, 20_000, 'the first webhook attempt');

    // Before the fix, the pending retries held the process for about a minute.
    expect(await terminate(first.child, 8_000)).toBe(0);
    expect(await pendingWebhooks(dataDir)).toBeGreaterThan(0);
    expect(receiver.received.every((entry) => entry.status === 501)).toBe(true);

    receiver.status = 200;
    const second = await serve(dataDir);
    try {
      expect(second.line).toMatch(/pending webhook\(s\) queued again/);
      await until(
        () =>
          receiver.received.some(
            (entry) => entry.status === 200 && entry.event === 'crawl.completed',
          ),
        30_000,
        'the crawl.completed event at the next start',
      );
      const delivered = receiver.received
        .filter((entry) => entry.status === 200)
        .map((entry) => entry.event);
      // In order: started first, completed last, the pages between.
      expect(delivered[0]).toBe('crawl.started');
      expect(delivered.at(-1)).toBe('crawl.completed');
    } finally {
      await terminate(second.child, 8_000);
    }
    expect(await pendingWebhooks(dataDir)).toBe(0);
    // Two servers start and stop, and its waits are bounded at 20 s and 30 s: on a loaded machine
    // that is more than the default 30 s for the whole test.
  }, 90_000);
});
