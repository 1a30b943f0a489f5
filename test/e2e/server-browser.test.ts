/**
 * The browser through trawl serve, as the official SDK and Playwright users drive it: sessions
 * created over HTTP and driven with connectOverCDP, code run in them, screenshots served by URL,
 * actions over /v2/scrape, and the clear error of a server whose machine has no browser.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Firecrawl from '@mendable/firecrawl-js';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  findChromium,
  resolveEngineConfig,
  SqliteStore,
  type EngineConfigInput,
} from '@trawl/core';
import { ApiKeys, buildServer } from '@trawl/http';

const fixture = inject('fixtureUrl');

/** Why this machine has no Chromium (the session tests are then skipped), or undefined. */
const chromiumMissing = (() => {
  try {
    findChromium();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
})();
const key = 'fc-browser-key-team-a';
const otherKey = 'fc-browser-key-team-b';

async function startServer(engine: EngineConfigInput = {}) {
  const store = new SqliteStore({
    path: join(mkdtempSync(join(tmpdir(), 'trawl-browser-')), 'trawl.db'),
  });
  const app = buildServer({
    store,
    // Tests fetch 127.0.0.1, which a served Trawl refuses unless allowed.
    config: resolveEngineConfig({
      allowPrivateAddresses: true,
      browserSessionsPerTeam: 2,
      ...engine,
    }),
    keys: ApiKeys.parse(`team-a:${key},team-b:${otherKey}`),
    logLevel: 'silent',
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url,
    close: async () => {
      await app.close();
      await store.close();
    },
  };
}

describe.skipIf(chromiumMissing)('browser sessions over HTTP', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let firecrawl: Firecrawl;
  beforeAll(async () => {
    // Code execution is off by default; these tests run code in sessions.
    server = await startServer({ browserExecute: 'node' });
    firecrawl = new Firecrawl({ apiKey: key, apiUrl: server.url });
  });
  afterAll(() => server.close());

  it('creates a session whose cdpUrl Playwright connects to, runs code in it, lists and deletes it', async () => {
    const session = await firecrawl.browser({ ttl: 120 });
    expect(session).toMatchObject({ success: true, id: expect.any(String) });
    expect(session.cdpUrl).toMatch(
      new RegExp(`^ws://127\\.0\\.0\\.1:\\d+/cdp/${session.id}\\?token=`),
    );
    expect(Date.parse(session.expiresAt!) - Date.now()).toBeGreaterThan(100_000);

    const browser = await chromium.connectOverCDP(session.cdpUrl!);
    const page = browser.contexts()[0]!.pages()[0]!;
    await page.goto(`${fixture}/articles/plain.html`);
    const title = await page.title();
    await browser.close();

    // The same browser, seen from code the session runs: the page Playwright left there.
    const run = await firecrawl.browserExecute(session.id!, {
      code: 'console.log(await page.title())',
      language: 'node',
    });
    expect(run).toMatchObject({ success: true, result: title, exitCode: 0 });

    const listed = await firecrawl.listBrowsers();
    expect(listed.sessions?.map((entry) => entry.id)).toContain(session.id);
    const other = new Firecrawl({ apiKey: otherKey, apiUrl: server.url });
    expect((await other.listBrowsers()).sessions).toEqual([]);
    await expect(other.deleteBrowser(session.id!)).rejects.toMatchObject({ status: 404 });

    const deleted = await firecrawl.deleteBrowser(session.id!);
    expect(deleted).toMatchObject({ success: true, status: 'destroyed' });
    expect(deleted.sessionDurationMs).toBeGreaterThan(0);
    expect((await firecrawl.listBrowsers({ status: 'destroyed' })).sessions?.[0]?.id).toBe(
      session.id,
    );
    await expect(chromium.connectOverCDP(session.cdpUrl!, { timeout: 5000 })).rejects.toThrow();
  });

  it('guards the CDP socket: a wrong token is refused', async () => {
    const session = await firecrawl.browser();
    try {
      const forged = session.cdpUrl!.replace(/token=.*/, 'token=not-the-token');
      await expect(chromium.connectOverCDP(forged, { timeout: 5000 })).rejects.toThrow();
    } finally {
      await firecrawl.deleteBrowser(session.id!);
    }
  });

  it('refuses sessions without the key, and past the team’s cap', async () => {
    const anonymous = await fetch(`${server.url}/v2/browser`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(anonymous.status).toBe(401);
    const first = await firecrawl.browser();
    const second = await firecrawl.browser();
    try {
      await expect(firecrawl.browser()).rejects.toMatchObject({ status: 429 });
    } finally {
      await firecrawl.deleteBrowser(first.id!);
      await firecrawl.deleteBrowser(second.id!);
    }
  });

  it('says which language runs when asked for bash', async () => {
    const session = await firecrawl.browser();
    try {
      await expect(
        firecrawl.browserExecute(session.id!, { code: 'echo hi' }),
      ).rejects.toMatchObject({
        status: 501,
        code: 'CAPABILITY_UNAVAILABLE',
      });
    } finally {
      await firecrawl.deleteBrowser(session.id!);
    }
  });

  it('serves a scrape’s screenshot at a URL, and runs actions', async () => {
    const doc = await firecrawl.scrape(`${fixture}/browser/actions.html`, {
      formats: ['markdown', 'screenshot'],
      actions: [
        { type: 'click', selector: '#reveal' },
        { type: 'executeJavascript', script: 'document.title' },
      ],
    });
    expect(doc.markdown).toContain('CLICKED_OPENING_HOURS');
    expect(doc.actions?.javascriptReturns).toEqual([
      { type: 'string', value: 'Harbour booking form' },
    ]);
    expect(doc.screenshot).toMatch(new RegExp(`^${server.url}/media/[\\w-]+\\.png$`));
    const image = await fetch(doc.screenshot!);
    expect(image.headers.get('content-type')).toBe('image/png');
    const bytes = Buffer.from(await image.arrayBuffer());
    expect(bytes.readUInt32BE(16)).toBe(1920);
    expect(bytes.readUInt32BE(20)).toBe(1080);
  });

  it('answers a failing action with SCRAPE_ACTION_ERROR naming its index', async () => {
    await expect(
      firecrawl.scrape(`${fixture}/browser/actions.html`, {
        timeout: 4000,
        actions: [
          { type: 'wait', milliseconds: 10 },
          { type: 'click', selector: '#absent' },
        ],
      }),
    ).rejects.toMatchObject({
      status: 500,
      code: 'SCRAPE_ACTION_ERROR',
      message: expect.stringMatching(/^Action 1 \(click\) failed/),
    });
  });
});

describe('a server on a machine without a browser', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let firecrawl: Firecrawl;
  beforeAll(async () => {
    server = await startServer({ chromiumPath: '/nowhere/chromium' });
    firecrawl = new Firecrawl({ apiKey: key, apiUrl: server.url });
  });
  afterAll(() => server.close());

  it('answers browser features with 501 NOT_CONFIGURED naming TRAWL_CHROMIUM_PATH', async () => {
    for (const call of [
      () => firecrawl.scrape(`${fixture}/articles/plain.html`, { actions: [{ type: 'scrape' }] }),
      () => firecrawl.scrape(`${fixture}/articles/plain.html`, { formats: ['screenshot'] }),
      () => firecrawl.browser(),
    ]) {
      await expect(call()).rejects.toMatchObject({
        status: 501,
        code: 'NOT_CONFIGURED',
        message: expect.stringContaining('TRAWL_CHROMIUM_PATH'),
      });
    }
  });

  it('still scrapes everything else', async () => {
    const doc = await firecrawl.scrape(`${fixture}/articles/plain.html`);
    expect(doc.markdown?.length).toBeGreaterThan(100);
  });
});
