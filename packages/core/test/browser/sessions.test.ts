import { setTimeout as sleep } from 'node:timers/promises';
import { chromium } from 'playwright-core';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { BrowserSessions, MemoryStore, type TrawlError } from '@trawl/core';
import { chromiumMissing } from './chromium.ts';

const site = inject('fixtureUrl');
const store = new MemoryStore();
const sessions = new BrowserSessions({ store, perTeam: 2, sweepMs: 100, execute: 'node' });
afterAll(() => sessions.close());

describe.skipIf(chromiumMissing)('browser sessions', () => {
  it('runs node code with page in scope, keeping state between runs', async () => {
    const session = await sessions.create('harbour');
    try {
      const first = await sessions.execute('harbour', session.id, {
        code: `await page.goto(${JSON.stringify(`${site}/articles/plain.html`)});\nconsole.log(await page.title());`,
      });
      expect(first).toMatchObject({ success: true, exitCode: 0, killed: false });
      expect(first.result).toBe('How timetables are planned');
      const second = await sessions.execute('harbour', session.id, { code: 'return page.url()' });
      expect(second.result).toBe(`${site}/articles/plain.html`);
    } finally {
      await sessions.destroy('harbour', session.id);
    }
  });

  it('reports a throwing script as a failed run, and stops code past its timeout', async () => {
    const session = await sessions.create('harbour');
    try {
      const thrown = await sessions.execute('harbour', session.id, {
        code: 'throw new Error("reef ahead")',
      });
      expect(thrown.exitCode).toBe(1);
      expect(thrown.error).toContain('reef ahead');
      const endless = await sessions.execute('harbour', session.id, {
        code: 'await new Promise(() => {})',
        timeout: 2,
      });
      expect(endless).toMatchObject({ killed: true });
    } finally {
      await sessions.destroy('harbour', session.id);
    }
  });

  it('keeps the code away from the server’s files (Node permission model)', async () => {
    const session = await sessions.create('harbour');
    try {
      const run = await sessions.execute('harbour', session.id, {
        code: "const fs = await import('node:fs'); return fs.readFileSync('/etc/hostname', 'utf8');",
      });
      expect(run.exitCode).toBe(1);
      expect(run.stderr).toMatch(/ERR_ACCESS_DENIED|permission/i);
    } finally {
      await sessions.destroy('harbour', session.id);
    }
  });

  it('runs actions in the session page', async () => {
    const session = await sessions.create('harbour');
    try {
      await sessions.execute('harbour', session.id, {
        code: `await page.goto(${JSON.stringify(`${site}/browser/actions.html`)})`,
      });
      const run = await sessions.execute('harbour', session.id, {
        actions: [
          { type: 'click', selector: '#reveal' },
          { type: 'executeJavascript', script: "document.getElementById('hours').textContent" },
        ],
      });
      expect(JSON.parse(run.result).javascriptReturns[0].value).toContain('CLICKED_OPENING_HOURS');
    } finally {
      await sessions.destroy('harbour', session.id);
    }
  });

  it('refuses code unless execute is node, and still runs actions then', async () => {
    const guarded = new BrowserSessions({ store });
    const session = await guarded.create('harbour');
    try {
      await expect(
        guarded.execute('harbour', session.id, { code: 'return 1' }),
      ).rejects.toMatchObject({
        code: 'NOT_CONFIGURED',
        message: expect.stringContaining('browserExecute set to node'),
      });
      const run = await guarded.execute('harbour', session.id, {
        actions: [{ type: 'executeJavascript', script: '6 * 7' }],
      });
      expect(JSON.parse(run.result).javascriptReturns[0].value).toBe(42);
    } finally {
      await guarded.close();
    }
  });

  it('refuses python and bash with a clear error', async () => {
    const session = await sessions.create('harbour');
    try {
      await expect(
        sessions.execute('harbour', session.id, { code: 'print(1)', language: 'python' }),
      ).rejects.toMatchObject({ code: 'CAPABILITY_UNAVAILABLE' });
    } finally {
      await sessions.destroy('harbour', session.id);
    }
  });

  it('caps the sessions a team has open, lists them, and keeps teams apart', async () => {
    const a = await sessions.create('fleet');
    const b = await sessions.create('fleet');
    try {
      const third = await sessions.create('fleet').catch((error: unknown) => error as TrawlError);
      expect(third).toMatchObject({ code: 'RATE_LIMITED' });
      expect(
        sessions
          .list('fleet')
          .map((session) => session.id)
          .sort(),
      ).toEqual([a.id, b.id].sort());
      expect(sessions.list('other-team')).toEqual([]);
      expect(sessions.get('other-team', a.id)).toBeUndefined();
    } finally {
      await sessions.destroy('fleet', a.id);
      await sessions.destroy('fleet', b.id);
    }
    expect(sessions.list('fleet')).toEqual([]);
    expect(sessions.list('fleet', 'destroyed').map((session) => session.status)).toEqual([
      'destroyed',
      'destroyed',
    ]);
  });

  it('are turned off with perTeam 0', async () => {
    const none = new BrowserSessions({ perTeam: 0 });
    await expect(none.create('harbour')).rejects.toMatchObject({
      code: 'CAPABILITY_UNAVAILABLE',
      message: expect.stringContaining('browserSessionsPerTeam is 0'),
    });
    await none.close();
  });

  it('ends a session left idle for activityTtl', async () => {
    const session = await sessions.create('idle', { activityTtl: 10 });
    session.lastActivity = new Date(Date.now() - 11_000).toISOString();
    for (let waited = 0; sessions.get('idle', session.id) && waited < 5000; waited += 100)
      await sleep(100);
    expect(sessions.get('idle', session.id)).toBeUndefined();
    expect(sessions.list('idle', 'destroyed')[0]?.id).toBe(session.id);
  });

  it('is driven by playwright connectOverCDP, and saves its profile when it ends', async () => {
    const session = await sessions.create('harbour', { profile: { name: 'quay' } });
    const browser = await chromium.connectOverCDP(session.cdpEndpoint);
    const page = browser.contexts()[0]!.pages()[0]!;
    await page.goto(`${site}/set-cookie?name=quay_pass&value=42`);
    await browser.close();
    await sessions.destroy('harbour', session.id);
    const next = await sessions.create('harbour', {
      profile: { name: 'quay', saveChanges: false },
    });
    try {
      const run = await sessions.execute('harbour', next.id, {
        code: `await page.goto(${JSON.stringify(`${site}/echo.html`)}); return page.textContent('main')`,
      });
      expect(run.result).toContain('quay_pass=42');
    } finally {
      await sessions.destroy('harbour', next.id);
    }
  });
});
