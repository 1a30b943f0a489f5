/**
 * `trawl serve` as a process (issue 23, points 6 and 7): its start-up line names the address it
 * really listens on, and SIGTERM ends it within seconds even while a webhook receiver keeps
 * failing; the deliveries it had not made stay in the store and go out at the next start.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SqliteStore } from '@trawl/core';

const site = inject('fixtureUrl');
const bin = join(import.meta.dirname, '../../packages/http/src/bin.ts');

/** A webhook receiver that answers `status` and keeps the event names it was sent. */
let receiver: Server;
let receiverUrl: string;
let status = 501;
const received: { event: string; status: number }[] = [];
beforeAll(async () => {
  receiver = createServer((request, response) => {
    request.resume();
    received.push({ event: String(request.headers['x-firecrawl-event']), status });
    response.writeHead(status).end();
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

/** Polls `check` every 50 ms until it holds, for at most `ms`. */
async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  for (const end = Date.now() + ms; !check();) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Starts `trawl serve` with `args`; resolves with the process, its start-up line and port. */
async function serve(dataDir: string, args: string[] = []) {
  const child = spawn(process.execPath, ['--conditions=development', bin, 'serve', ...args], {
    env: {
      ...process.env,
      TRAWL_DATA_DIR: dataDir,
      PORT: '0',
      TRAWL_ALLOW_PRIVATE_ADDRESSES: 'true',
      // 1 + 2 + 4 + … + 32 s of retries: the schedule that held a shutdown for a minute.
      TRAWL_WEBHOOK_RETRIES: '6',
      TRAWL_LOG_LEVEL: 'silent',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const line = await new Promise<string>((resolve, reject) => {
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const found = /^Trawl \/v2 server on .*$/m.exec(stderr);
      if (found) resolve(found[0]);
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
  const port = Number(/:(\d+)[;\s(]/.exec(line)?.[1]);
  return { child, line, port };
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
      const health = await fetch(`http://127.0.0.1:${server.port}/health`);
      expect(health.status).toBe(200);
    } finally {
      await terminate(server.child, 15_000);
    }
  });
});

describe('trawl serve shutdown', () => {
  it('stops within seconds while webhooks fail, and delivers them at the next start', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'trawl-serve-shutdown-'));
    status = 501;
    const first = await serve(dataDir);
    const api = `http://127.0.0.1:${first.port}`;
    const answer = await fetch(`${api}/v2/crawl`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${site}/`, limit: 2, webhook: receiverUrl }),
    });
    expect(answer.status).toBe(200);
    // The first attempt failed: the sender is now waiting to retry.
    await until(() => received.length > 0, 20_000, 'the first webhook attempt');

    // Before the fix, the pending retries held the process for about a minute.
    expect(await terminate(first.child, 8_000)).toBe(0);
    expect(await pendingWebhooks(dataDir)).toBeGreaterThan(0);
    expect(received.every((entry) => entry.status === 501)).toBe(true);

    status = 200;
    const second = await serve(dataDir);
    try {
      expect(second.line).toMatch(/pending webhook\(s\) queued again/);
      await until(
        () => received.some((entry) => entry.status === 200 && entry.event === 'crawl.completed'),
        30_000,
        'the crawl.completed event at the next start',
      );
      const delivered = received
        .filter((entry) => entry.status === 200)
        .map((entry) => entry.event);
      // In order: started first, completed last, the pages between.
      expect(delivered[0]).toBe('crawl.started');
      expect(delivered.at(-1)).toBe('crawl.completed');
    } finally {
      await terminate(second.child, 8_000);
    }
    expect(await pendingWebhooks(dataDir)).toBe(0);
  });
});
