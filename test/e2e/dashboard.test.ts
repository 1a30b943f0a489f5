/**
 * The dashboard in a real Chromium against a real `trawl serve` (one server and one browser for
 * the file): sign in; create a monitor from the UI, change the page, run the check and read the
 * diff with the judge's verdict (the fake model judges); watch a crawl to its end and open a
 * document; scrape in the playground, and run the JS SDK code it copies; a scraped page full of
 * scripts runs nothing in the app; usage shows the credits spent. Each view passes axe-core with
 * no serious or critical violation, and is saved as a screenshot under test-results/dashboard/.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/openai-server.ts';
import { startChangingSite, type ChangingSite } from '../fixture-site/changing-site.ts';
import { startHostileSite, type HostileSite } from '../fixture-site/hostile-site.ts';
import {
  artifactsDir,
  buildDashboardIfStale,
  chromiumPath,
  saveScreenshot,
  seriousViolations,
} from './dashboard-browser.ts';
import { startServe, type ServeProcess } from './serve-process.ts';

const fixture = inject('fixtureUrl');
const key = 'fc-dashboard-test';
const reason = 'The Basic plan went from $9 to $12 per month.';

let site: ChangingSite;
let hostile: HostileSite;
let model: FakeOpenAi;
let server: ServeProcess;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const pageErrors: string[] = [];

/**
 * What of a hostile page got into the app's live DOM (an event-handler attribute, a script, a
 * frame, a javascript: URL), and whether anything it carried ran. Sanitising must leave the
 * first empty; the Content-Security-Policy would still stop the second.
 */
const dangerInApp = () =>
  page.evaluate(() => {
    const found: string[] = [];
    for (const element of document.querySelectorAll('#app *')) {
      if (/^(?:script|iframe|object|embed)$/i.test(element.tagName)) found.push(element.tagName);
      for (const attribute of element.attributes)
        if (/^on/i.test(attribute.name) || /^\s*javascript:/i.test(attribute.value))
          found.push(`${element.tagName} ${attribute.name}`);
    }
    return { found, pwned: (window as unknown as { __pwned?: unknown }).__pwned };
  });

/** A poll of the page, bounded at 15 s (expect.poll's own second is short on a busy machine). */
const eventually = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 15_000 });

/** Checks the view with axe-core and saves its screenshot. */
async function checkView(name: string) {
  await saveScreenshot(page, name);
  expect(await seriousViolations(page), `accessibility of ${name}`).toEqual([]);
}

describe.skipIf(chromiumPath === undefined)('the dashboard', () => {
  beforeAll(async () => {
    await buildDashboardIfStale();
    site = await startChangingSite({
      '/pricing': { title: 'Pricing', text: 'Basic plan: $9 per month\nPro plan: $29 per month' },
    });
    hostile = await startHostileSite();
    model = await startFakeOpenAi();
    // The judge's answer: the price change is meaningful, a first sight is not.
    model.respond = (request) => {
      const asked = request.messages.map((message) => message.content ?? '').join('\n');
      const changed = asked.includes('$12');
      return {
        content: JSON.stringify({
          meaningful: changed,
          confidence: 'high',
          reason: changed ? reason : 'First sight of the page.',
          meaningfulChanges: changed
            ? [
                {
                  type: 'changed',
                  before: 'Basic plan: $9 per month',
                  after: 'Basic plan: $12 per month',
                  reason: 'price',
                },
              ]
            : [],
        }),
      };
    };
    server = await startServe({
      TRAWL_API_KEYS: key,
      TRAWL_ALLOW_PRIVATE_ADDRESSES: 'true',
      TRAWL_LLM_BASE_URL: model.baseUrl,
      TRAWL_LLM_MODEL: 'fake-judge',
    });
    browser = await chromium.launch({ executablePath: chromiumPath!, args: ['--no-sandbox'] });
    context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('dialog', (dialog) => void dialog.accept());
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await Promise.all([site?.close(), hostile?.close(), model?.close()]);
  });

  it('serves the app with a strict Content-Security-Policy and signs in with a key', async () => {
    const response = await page.goto(server.url);
    const csp = response?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await checkView('sign-in');

    // The whole app, as the page loads it, stays under 250 KB gzipped.
    const assets = await page.evaluate(() =>
      [
        ...document.querySelectorAll<HTMLScriptElement | HTMLLinkElement>(
          'script[src], link[rel=stylesheet]',
        ),
      ].map((element) => ('src' in element ? element.src : element.href)),
    );
    expect(assets.length).toBeGreaterThanOrEqual(2);
    let gzipped = 0;
    for (const asset of assets) {
      const answer = await fetch(asset);
      expect(answer.headers.get('content-security-policy')).toBe(csp);
      gzipped += gzipSync(Buffer.from(await answer.arrayBuffer())).length;
    }
    expect(gzipped).toBeLessThan(250 * 1024);

    await page.getByLabel('API key').fill('fc-not-a-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await eventually(() => page.getByRole('alert').textContent()).toContain('not a key');

    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Monitors' }).waitFor();
    // The key lives in this tab's session, and no cookie carries anything.
    expect(await page.evaluate(() => sessionStorage.getItem('trawl.apiKey'))).toBe(key);
    expect(await context.cookies()).toEqual([]);
  });

  it('creates a monitor, runs its checks and shows the changed page as a diff with the verdict', async () => {
    await page.getByRole('link', { name: 'New monitor' }).click();
    await page.getByLabel('Name').fill('Prices');
    await page.getByLabel('Pages to watch (one URL per line)').fill(`${site.url}/pricing`);
    await page.getByLabel('When to check').fill('every day at 9am');
    await page.getByLabel('Time zone').fill('UTC');
    await page.getByLabel('Goal: what change matters').fill('Tell me when a plan price changes');
    await checkView('monitor-form');
    await page.getByRole('button', { name: 'Create monitor' }).click();
    // The plain-language schedule comes back as its cron.
    await eventually(() => page.getByTestId('cron').textContent()).toBe('0 9 * * *');

    const checks = page.locator('ol.timeline li');
    const runCheck = async (count: number) => {
      // A check that just finished may hold the monitor a moment longer (409): ask again.
      await expect
        .poll(
          async () => {
            if ((await checks.count()) < count)
              await page
                .getByRole('button', { name: 'Run now' })
                .click({ timeout: 5000 })
                // Disabled while the previous check runs: the next round asks again.
                .catch(() => undefined);
            return checks.count();
          },
          { timeout: 20_000, interval: 1000 },
        )
        .toBe(count);
      await expect
        .poll(() => checks.first().textContent(), { timeout: 20_000 })
        .toMatch(/completed/);
    };
    await runCheck(1);
    await eventually(() => checks.first().textContent()).toContain('1 new');

    site.set('/pricing', {
      title: 'Pricing',
      text: 'Basic plan: $12 per month\nPro plan: $29 per month',
    });
    await runCheck(2);
    await checkView('monitor-detail');
    await checks.first().getByRole('link').click();

    const changed = page.getByTestId('check-page').filter({ hasText: 'changed' });
    await changed.waitFor();
    await eventually(() => changed.getByTestId('verdict').textContent()).toContain(
      'meaningful change',
    );
    expect(await changed.getByTestId('verdict-reason').textContent()).toBe(reason);
    const split = changed.getByTestId('diff-split');
    expect(await split.locator('del').first().textContent()).toContain('$9');
    expect(await split.locator('ins').first().textContent()).toContain('$12');
    await checkView('check-diff');
    await changed.getByRole('button', { name: 'Inline' }).click();
    const inline = changed.getByTestId('diff-inline');
    expect(await inline.locator('del').allTextContents()).toEqual([
      expect.stringContaining('Basic plan: $9 per month'),
    ]);
    expect(await inline.locator('ins').allTextContents()).toEqual([
      expect.stringContaining('Basic plan: $12 per month'),
    ]);

    // Readable on a 360 px phone: nothing wider than the screen.
    await page.setViewportSize({ width: 360, height: 800 });
    await changed.getByRole('button', { name: 'Side by side' }).click();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      360,
    );
    await checkView('check-diff-360');
    await page.setViewportSize({ width: 1100, height: 900 });
  });

  it('watches a crawl to its end and opens one of its documents', async () => {
    await page.getByRole('link', { name: 'Jobs' }).click();
    await page.getByLabel('Start URL').fill(`${fixture}/docs/`);
    await page.getByLabel('Most pages').fill('10');
    await page.getByRole('button', { name: 'Start crawl' }).click();
    await expect
      .poll(() => page.getByTestId('crawl-status').textContent(), { timeout: 30_000 })
      .toBe('completed');
    const count = (await page.getByTestId('crawl-count').textContent()) ?? '';
    const [, done, total] = /(\d+) of (\d+) pages/.exec(count) ?? [];
    expect(Number(done)).toBeGreaterThanOrEqual(2);
    expect(done).toBe(total);
    // Every document the crawl stored came over the watcher (pages it only counted, such as
    // images it skipped, are not documents).
    const id = decodeURIComponent(new URL(page.url()).hash.split('/').at(-1) ?? '');
    const status = await fetch(`${server.url}/v2/crawl/${id}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const { data } = (await status.json()) as { data: unknown[] };
    expect(data.length).toBeGreaterThanOrEqual(2);
    await eventually(() => page.locator('ol.documents li').count()).toBe(data.length);
    await page.locator('ol.documents li button').first().click();
    const document = page.getByTestId('document');
    await eventually(() => document.locator('.markdown').textContent()).not.toBe('');
    await checkView('crawl');

    // The documents as a zip of markdown files named after their URLs.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download markdown (zip)' }).click(),
    ]);
    const zip = join(artifactsDir, 'crawl.zip');
    await download.saveAs(zip);
    const bytes = readFileSync(zip);
    expect(bytes.subarray(0, 2).toString()).toBe('PK');
    // Names are stored as they are in a zip's directory.
    expect(bytes.includes('/docs/install.md')).toBe(true);
  });

  it('scrapes in the playground, and the JS SDK code it copies returns the same markdown', async () => {
    await page.getByRole('link', { name: 'Playground' }).click();
    await page.getByLabel('URL').fill(`${fixture}/docs/install.html`);
    await page.getByRole('button', { name: 'Scrape' }).click();
    await page.getByRole('heading', { name: 'Result' }).waitFor({ timeout: 20_000 });
    await page.getByRole('button', { name: 'Markdown', exact: true }).click();
    const markdown = (await page.getByTestId('raw-markdown').textContent()) ?? '';
    expect(markdown).toContain('Install');
    await page.getByRole('button', { name: 'JavaScript', exact: true }).click();
    await page.getByRole('button', { name: 'Copy JavaScript' }).click();
    await page.getByRole('status').filter({ hasText: 'copied' }).waitFor();
    const code = await page.evaluate(() => navigator.clipboard.readText());
    expect(code).toContain('@mendable/firecrawl-js');
    expect(code).not.toContain(key);
    await checkView('playground');

    // Inside the repository, so the SDK resolves from its node_modules.
    const file = join(artifactsDir, 'copied-sdk.mjs');
    writeFileSync(file, code);
    const { stdout } = await promisify(execFile)(process.execPath, [file], {
      env: { ...process.env, FIRECRAWL_API_KEY: key },
      timeout: 30_000,
    });
    expect(stdout.trim()).toBe(markdown.trim());
  });

  it('maps a site, searches the built-in index and parses an uploaded file in the playground', async () => {
    await page.getByRole('link', { name: 'Map', exact: true }).click();
    await page.getByLabel('Site URL').fill(`${fixture}/docs/`);
    await page.getByRole('button', { name: 'Map', exact: true }).click();
    await eventually(() => page.getByTestId('listed').textContent()).toContain(
      '/docs/install.html',
    );
    await checkView('playground-map');

    // The pages scraped so far are in the built-in index.
    await page.getByRole('link', { name: 'Search', exact: true }).click();
    await page.getByLabel('Query').fill('Installation');
    await page.getByLabel('Where').selectOption('local');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await eventually(() => page.getByTestId('listed').textContent()).toContain('install.html');

    await page.getByRole('link', { name: 'Parse', exact: true }).click();
    await page.getByLabel(/^File/).setInputFiles({
      name: 'notes.html',
      mimeType: 'text/html',
      buffer: Buffer.from(
        '<html><body><main><h1>Meeting notes</h1><p>Ship on Friday.</p></main></body></html>',
      ),
    });
    await page.getByRole('button', { name: 'Parse', exact: true }).click();
    await eventually(() => page.locator('.markdown').textContent()).toContain('Ship on Friday.');
    await checkView('playground-parse');
    await page.getByRole('link', { name: 'Scrape', exact: true }).click();
  });

  it('shows a scraped page full of scripts and event handlers without running any of it', async () => {
    await page.getByLabel('URL').fill(`${hostile.url}/script-injection`);
    await page.getByRole('button', { name: 'Scrape' }).click();
    await page
      .getByTestId('result-panel')
      .filter({ hasText: 'Plain text stays readable' })
      .waitFor({
        timeout: 20_000,
      });
    const seen: string[] = [];
    for (const view of ['Rendered', 'Markdown', 'HTML', 'Links', 'JSON']) {
      await page.getByRole('button', { name: view, exact: true }).click();
      const { found, pwned } = await dangerInApp();
      seen.push(...found, ...(pwned === undefined ? [] : [`ran: ${JSON.stringify(pwned)}`]));
    }

    // A markdown file keeps its raw HTML as it is: the rendered view is where it would run.
    await page.getByRole('link', { name: 'Parse', exact: true }).click();
    await page.getByLabel(/^File/).setInputFiles({
      name: 'hostile.md',
      mimeType: 'text/markdown',
      buffer: Buffer.from(
        '# Hostile notes\n\nStill readable.\n\n<img src="/nothing.png" onerror="window.__pwned = \'markdown onerror\'">\n\n<script>window.__pwned = \'markdown script\'</script>\n\n[a link](javascript:window.__pwned=1)\n',
      ),
    });
    await page.getByRole('button', { name: 'Parse', exact: true }).click();
    await eventually(() => page.locator('.markdown').textContent()).toContain('Still readable.');
    await page.getByRole('button', { name: 'Markdown', exact: true }).click();
    // The raw HTML is really there, in the markdown the rendered view gets.
    expect(await page.locator('pre.raw').textContent()).toContain('onerror');
    await page.getByRole('button', { name: 'Rendered', exact: true }).click();
    // Let a broken image's onerror fire, were it there.
    await page.waitForLoadState('networkidle');
    const { found, pwned } = await dangerInApp();
    seen.push(...found, ...(pwned === undefined ? [] : [`ran: ${JSON.stringify(pwned)}`]));
    expect(seen).toEqual([]);
    await page.getByRole('link', { name: 'Scrape', exact: true }).click();
    expect(pageErrors).toEqual([]);
  });

  it('shows the credits just spent on the usage view', async () => {
    const answer = await fetch(`${server.url}/v2/team/credit-usage`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const { data } = (await answer.json()) as { data: { creditsUsed: number } };
    // Two checks, a crawl of several pages, and three scrapes at least.
    expect(data.creditsUsed).toBeGreaterThanOrEqual(6);
    await page.getByRole('link', { name: 'Usage' }).click();
    await eventually(() => page.getByTestId('credits-used').textContent()).toBe(
      String(data.creditsUsed),
    );
    expect(await page.locator('.chart rect.bar').count()).toBeGreaterThan(0);
    await checkView('usage');
    await page.getByRole('link', { name: 'Monitors' }).click();
    await page.getByRole('cell', { name: 'Prices' }).waitFor();
    await checkView('monitors');
  });

  it('pauses, resumes and deletes a monitor from its page', async () => {
    await page.getByRole('link', { name: 'Prices' }).click();
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByRole('button', { name: 'Resume' }).waitFor();
    await eventually(() => page.locator('h1 + .badge').textContent()).toBe('paused');
    expect(await page.getByRole('button', { name: 'Run now' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Resume' }).click();
    await eventually(() => page.locator('h1 + .badge').textContent()).toBe('active');
    // The confirm() dialog is accepted by the page's dialog handler.
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No monitor yet.').waitFor();
  });
});
