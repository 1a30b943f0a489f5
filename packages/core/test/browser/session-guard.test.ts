/**
 * Sessions with an address guard: each session's Chromium is launched behind a
 * guard proxy of its own, which refuses private targets and lives exactly as long as the session,
 * however it ends (deleted, expired, crashed, registry closed).
 */
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium } from 'playwright-core';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { BrowserSessions, type BrowserSession } from '@trawl/core';
import { chromiumMissing } from './chromium.ts';
import { listProcesses } from './processes.ts';

const site = inject('fixtureUrl');
const guarded = new BrowserSessions({ addressGuard: {}, sweepMs: 100 });
afterAll(() => guarded.close());

/** The session's main Chromium process and the proxy it was launched with. */
function launchOf(session: BrowserSession): { pid: number; proxyPort: number } {
  const main = listProcesses().find(
    (info) =>
      info.command.includes(`--trawl-session=${session.id}`) && !info.command.includes('--type='),
  );
  const port = /--proxy-server=http:\/\/127\.0\.0\.1:(\d+)/.exec(main?.command ?? '')?.[1];
  expect(main?.command).toContain('--proxy-bypass-list=<-loopback>');
  expect(main?.command).toContain('--force-webrtc-ip-handling-policy=disable_non_proxied_udp');
  return { pid: main!.pid, proxyPort: Number(port) };
}

/** Whether something listens on the loopback port. */
function isListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Waits (5 s at most) until the port is closed; true when it is. */
async function closesSoon(port: number): Promise<boolean> {
  for (let waited = 0; waited < 5000; waited += 100) {
    if (!(await isListening(port))) return true;
    await sleep(100);
  }
  return false;
}

describe.skipIf(chromiumMissing)('browser sessions behind the address guard', () => {
  it('refuses private targets in every context of a session', async () => {
    const session = await guarded.create('harbour');
    const browser = await chromium.connectOverCDP(session.cdpEndpoint);
    try {
      for (const context of [browser.contexts()[0]!, await browser.newContext()]) {
        const page = context.pages()[0] ?? (await context.newPage());
        const response = await page.goto(`${site}/articles/plain.html`);
        expect(response?.status()).toBe(403);
        expect(response?.headers()['x-trawl-blocked']).toBe('1');
      }
    } finally {
      await browser.close();
      await guarded.destroy('harbour', session.id);
    }
  });

  it('passes the guard’s options on: an allowed address loads', async () => {
    const exempt = new BrowserSessions({ addressGuard: { allowedAddresses: ['127.0.0.1'] } });
    try {
      const session = await exempt.create('harbour');
      const browser = await chromium.connectOverCDP(session.cdpEndpoint);
      const response = await browser.contexts()[0]!.pages()[0]!.goto(`${site}/articles/plain.html`);
      expect(response?.status()).toBe(200);
      await browser.close();
    } finally {
      await exempt.close();
    }
  });

  it('closes a session’s proxy when the session is deleted, expires, crashes or the registry closes', async () => {
    const deleted = await guarded.create('harbour');
    const { proxyPort: deletedPort } = launchOf(deleted);
    expect(await isListening(deletedPort)).toBe(true);
    await guarded.destroy('harbour', deleted.id);
    expect(await closesSoon(deletedPort)).toBe(true);

    const idle = await guarded.create('harbour', { activityTtl: 10 });
    const { proxyPort: idlePort } = launchOf(idle);
    idle.lastActivity = new Date(Date.now() - 11_000).toISOString();
    expect(await closesSoon(idlePort)).toBe(true);
    expect(guarded.get('harbour', idle.id)).toBeUndefined();

    const crashed = await guarded.create('harbour');
    const { pid, proxyPort: crashedPort } = launchOf(crashed);
    process.kill(pid, 'SIGKILL');
    expect(await closesSoon(crashedPort)).toBe(true);

    const registry = new BrowserSessions({ addressGuard: {} });
    const open = await registry.create('harbour');
    const { proxyPort: openPort } = launchOf(open);
    await registry.close();
    expect(await closesSoon(openPort)).toBe(true);
  });
});
