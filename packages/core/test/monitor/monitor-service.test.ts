/**
 * MonitorService over a real SQLite file and a site whose pages the tests change: the monitor
 * resource and every update rule, checks that classify pages as same / changed / new / removed /
 * error with their diffs and summary counts, judging by keywords, retention, and the scheduler's
 * start after a crash.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  MonitorService,
  resolveEngineConfig,
  SqliteStore,
  type MonitorCheck,
  type MonitorCheckPage,
  type MonitorCreateInput,
  type Notifier,
} from '@trawl/core';
import { Admission, CreditLedger } from '@trawl/core/server';
import { startChangingSite } from '../../../../test/fixture-site/changing-site.ts';
import { openMonitorFixture } from './monitor-fixture.ts';

const { site, store, service, config } = await openMonitorFixture();
afterEach(async () => {
  await service.idle();
});

let pathCounter = 0;
/** A fresh path on the site with the given text, so tests never share pages. */
function page(text: string, title = 'Pricing'): string {
  const path = `/p${++pathCounter}`;
  site.set(path, { title, text });
  return path;
}

const scrapeMonitor = (
  paths: string[],
  extra: Partial<MonitorCreateInput> = {},
): MonitorCreateInput => ({
  name: 'Pricing pages',
  schedule: { text: 'every day at 9am' },
  targets: [{ type: 'scrape', urls: paths.map((path) => `${site.url}${path}`) }],
  ...extra,
});

/** Runs a check now and waits for its end. */
async function check(monitorId: string): Promise<MonitorCheck> {
  const started = await service.run(monitorId);
  expect(['queued', 'running']).toContain(started.status);
  return service.waitForCheck(monitorId, started.id);
}

/** Every page of a check, by URL path. */
async function pagesOf(
  monitorId: string,
  checkId: string,
): Promise<Record<string, MonitorCheckPage>> {
  const detail = await service.check(monitorId, checkId, { limit: 100 });
  return Object.fromEntries(detail.pages.map((entry) => [new URL(entry.url).pathname, entry]));
}

describe('the monitor resource', () => {
  it('creates a monitor with the defaults of the reference and the cron of its phrase', async () => {
    const monitor = await service.create(scrapeMonitor([page('Basic plan: 10 EUR')]));
    expect(monitor).toMatchObject({
      name: 'Pricing pages',
      status: 'active',
      schedule: { cron: '0 9 * * *', timezone: 'UTC' },
      lastRunAt: null,
      currentCheckId: null,
      webhook: null,
      notification: {},
      retentionDays: 30,
      lastCheckSummary: null,
      goal: null,
      judgeEnabled: false,
    });
    expect(monitor.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(monitor.targets[0]?.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(monitor.nextRunAt ?? '')).toBeGreaterThan(Date.now());
    expect(new Date(monitor.nextRunAt ?? '').getUTCHours()).toBe(9);
    // A daily check of one page: about 30 credits a month.
    expect(monitor.estimatedCreditsPerMonth).toBeGreaterThanOrEqual(30);
    expect(monitor.estimatedCreditsPerMonth).toBeLessThanOrEqual(31);
    expect(await service.get(monitor.id)).toEqual(monitor);
  });

  it('reads a lone url as urls, switches judging on with a goal, and keeps the webhook object form', async () => {
    const monitor = await service.create({
      name: 'With goal',
      schedule: { cron: '*/30 * * * *', timezone: 'Europe/Paris' },
      targets: [{ type: 'scrape', url: `${site.url}${page('x')}` }],
      goal: 'price changes of the basic plan',
      webhook: 'http://127.0.0.1:9/hook',
    });
    expect(monitor.targets[0]).toMatchObject({
      type: 'scrape',
      urls: [expect.stringContaining('/p')],
    });
    expect(monitor.judgeEnabled).toBe(true);
    expect(monitor.webhook).toEqual({ url: 'http://127.0.0.1:9/hook' });
    expect(monitor.schedule).toEqual({ cron: '*/30 * * * *', timezone: 'Europe/Paris' });
    // 48 runs a day for 30 days.
    expect(monitor.estimatedCreditsPerMonth).toBe(1440);
  });

  it('lists a team’s monitors newest first with limit and offset, and hides other teams’ monitors', async () => {
    const team = `team-${crypto.randomUUID()}`;
    const ids: string[] = [];
    for (let index = 0; index < 5; index++) {
      ids.push(
        (await service.create({ ...scrapeMonitor([page('a')]), name: `m${index}` }, { team })).id,
      );
    }
    const first = await service.list({ limit: 2 }, { team });
    const second = await service.list({ limit: 2, offset: 2 }, { team });
    const last = await service.list({ limit: 2, offset: 4 }, { team });
    expect([...first, ...second, ...last].map((monitor) => monitor.name)).toEqual([
      'm4',
      'm3',
      'm2',
      'm1',
      'm0',
    ]);
    expect(await service.list({}, { team: `${team}-other` })).toEqual([]);
    await expect(service.get(ids[0] ?? '', { team: 'someone-else' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'Monitor not found',
    });
    await expect(service.list({ limit: 0 })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(service.list({ limit: 101 })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(service.list({ offset: -1 })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('updates fields partially: pause clears nextRunAt, resume sets it, a new schedule moves it', async () => {
    const monitor = await service.create(scrapeMonitor([page('a')]));
    const paused = await service.update(monitor.id, { status: 'paused' });
    expect(paused).toMatchObject({ status: 'paused', nextRunAt: null, name: monitor.name });
    const resumed = await service.update(monitor.id, { status: 'active', name: 'Renamed' });
    expect(resumed).toMatchObject({ status: 'active', name: 'Renamed' });
    expect(Date.parse(resumed.nextRunAt ?? '')).toBeGreaterThan(Date.now());
    const moved = await service.update(monitor.id, { schedule: { text: 'hourly' } });
    expect(moved.schedule).toEqual({ cron: '0 * * * *', timezone: 'UTC' });
    expect(new Date(moved.nextRunAt ?? '').getUTCMinutes()).toBe(0);
    expect(moved.estimatedCreditsPerMonth).toBe(720);
    // Omitted fields stay as they were.
    expect(moved.retentionDays).toBe(30);
    expect(moved.targets).toEqual(monitor.targets);
    expect(Date.parse(moved.updatedAt)).toBeGreaterThanOrEqual(Date.parse(monitor.updatedAt));
  });

  it('switches judging on when a goal is supplied without judgeEnabled, and clears with null', async () => {
    const monitor = await service.create(scrapeMonitor([page('a')]));
    expect((await service.update(monitor.id, { goal: 'new jobs in Berlin' })).judgeEnabled).toBe(
      true,
    );
    const off = await service.update(monitor.id, { goal: 'salaries', judgeEnabled: false });
    expect(off).toMatchObject({ goal: 'salaries', judgeEnabled: false });
    const cleared = await service.update(monitor.id, {
      goal: null,
      webhook: null,
      notification: null,
    });
    expect(cleared).toMatchObject({ goal: null, webhook: null, notification: {} });
  });

  it.each([
    [{}, '', 'Update body cannot be empty'],
    [{ name: 'x'.repeat(257) }, 'name', ''],
    [{ targets: [] }, 'targets', 'at least one target'],
    [
      {
        targets: Array.from({ length: 51 }, () => ({
          type: 'scrape',
          urls: ['http://127.0.0.1/'],
        })),
      },
      'targets',
      'at most 50',
    ],
    [{ retentionDays: 0 }, 'retentionDays', ''],
    [{ retentionDays: 366 }, 'retentionDays', ''],
    [{ goal: 'g'.repeat(2001) }, 'goal', ''],
    [{ status: 'deleted' }, 'status', ''],
    [{ schedule: { cron: '0 9 * * *', text: 'daily' } }, 'schedule', ''],
    [{ schedule: { text: 'every 2 minutes' } }, 'schedule', 'every 5 minutes'],
    [{ webhook: { url: 'http://127.0.0.1/h', events: ['crawl.page'] } }, 'webhook', ''],
    [
      { webhook: { url: 'http://127.0.0.1/h', headers: { 'X-Firecrawl-Event': 'x' } } },
      'webhook',
      '',
    ],
    [
      { notification: { email: { enabled: true, recipients: ['not-an-address'] } } },
      'notification',
      '',
    ],
    [{ targets: [{ type: 'search', queries: [] }] }, 'targets', 'at least one query'],
    [{ unknownField: 1 }, '', 'unknownField'],
  ])('refuses the update %j with a 400 naming %j', async (body, field, words) => {
    const monitor = await service.create(scrapeMonitor([page('a')]));
    const attempt = service.update(monitor.id, body as never);
    await expect(attempt).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    const error = (await attempt.catch((caught: unknown) => caught)) as {
      message: string;
      details: { path: (string | number)[] }[];
    };
    if (field) expect(error.details[0]?.path[0]).toBe(field);
    if (words) expect(error.message).toContain(words);
    // Nothing changed.
    expect(await service.get(monitor.id)).toEqual(monitor);
  });

  it('refuses an invalid target URL and a crawl option it does not know', async () => {
    await expect(
      service.create({ ...scrapeMonitor([]), targets: [{ type: 'scrape', urls: ['ftp://x'] }] }),
    ).rejects.toMatchObject({ code: 'INVALID_URL' });
    await expect(
      service.create({
        ...scrapeMonitor([]),
        targets: [{ type: 'crawl', url: site.url, crawlOptions: { maxDepth: 2 } as never }],
      }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('refuses target scrapeOptions the scrape would refuse, naming the target', async () => {
    const attempt = (scrapeOptions: Record<string, unknown>) =>
      service.create({
        ...scrapeMonitor([]),
        targets: [{ type: 'scrape', urls: [`${site.url}/x`], scrapeOptions: scrapeOptions }],
      });
    await expect(attempt({ onlyMainContnet: true })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      details: [{ path: ['targets', 0, 'scrapeOptions'] }],
    });
    await expect(attempt({ waitFor: 40_000, timeout: 60_000 })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringContaining('targets.0.scrapeOptions') as unknown,
    });
    await expect(
      service.create({
        ...scrapeMonitor([]),
        targets: [
          { type: 'crawl', url: site.url, scrapeOptions: { profile: { name: 'p' } } as never },
        ],
      }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('runs at most monitorConcurrency checks at once; the others wait as queued', async () => {
    const narrow = new MonitorService({
      store,
      config: resolveEngineConfig({ allowPrivateAddresses: true, monitorConcurrency: 1 }),
    });
    const path = `/slow${++pathCounter}`;
    site.set(path, { title: 'Slow', text: 'slow', delayMs: 800 });
    const first = await narrow.create(scrapeMonitor([path]));
    const second = await narrow.create(scrapeMonitor([page('quick')]));
    const running = await narrow.run(first.id);
    const waiting = await narrow.run(second.id);
    expect(waiting.status).toBe('queued');
    expect((await narrow.checks(second.id))[0]?.status).toBe('queued');
    await narrow.waitForCheck(first.id, running.id);
    expect((await narrow.waitForCheck(second.id, waiting.id)).status).toBe('completed');
    await narrow.stop();
  });

  it('refuses a JSON target without an LLM provider', async () => {
    await expect(
      service.create({
        ...scrapeMonitor([]),
        targets: [
          {
            type: 'scrape',
            urls: [`${site.url}/x`],
            scrapeOptions: { formats: [{ type: 'json', prompt: 'the price' }] },
          },
        ],
      }),
    ).rejects.toMatchObject({ code: 'NOT_CONFIGURED' });
  });

  it('deletes a monitor with its checks; then it is not found', async () => {
    const monitor = await service.create(scrapeMonitor([page('a')]));
    const done = await check(monitor.id);
    await service.delete(monitor.id);
    await expect(service.get(monitor.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.check(monitor.id, done.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.delete(monitor.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('checks', () => {
  it('marks every page new at the first check and same when nothing changed', async () => {
    const paths = [page('Basic: 10 EUR'), page('Pro: 20 EUR')];
    const monitor = await service.create(scrapeMonitor(paths));
    const first = await check(monitor.id);
    expect(first).toMatchObject({
      status: 'completed',
      trigger: 'manual',
      summary: { totalPages: 2, new: 2, same: 0, changed: 0, removed: 0, error: 0 },
      actualCredits: 2,
      billingStatus: 'not_applicable',
    });
    const second = await check(monitor.id);
    expect(second.summary).toEqual({
      totalPages: 2,
      same: 2,
      changed: 0,
      new: 0,
      removed: 0,
      error: 0,
    });
    const pages = await pagesOf(monitor.id, second.id);
    // The scrape target lists this check's scrapes.
    expect(second.targetResults).toEqual([
      {
        targetId: monitor.targets[0]?.id,
        type: 'scrape',
        expectedJobs: expect.arrayContaining(
          paths.map((path) => pages[path]?.currentScrapeId),
        ) as unknown,
      },
    ]);
    const firstPages = await pagesOf(monitor.id, first.id);
    for (const path of paths) {
      expect(pages[path]).toMatchObject({
        status: 'same',
        diff: null,
        error: null,
        statusCode: 200,
      });
      expect(pages[path]?.previousScrapeId).toBe(firstPages[path]?.currentScrapeId);
    }
    const after = await service.get(monitor.id);
    expect(after).toMatchObject({ currentCheckId: second.id, lastCheckSummary: second.summary });
    expect(Date.parse(after.lastRunAt ?? '')).toBeGreaterThanOrEqual(
      Date.parse(second.startedAt ?? ''),
    );
  });

  it('marks a page whose text changed as changed, with a git diff and its parsed form', async () => {
    const path = page('Basic plan: 10 EUR per month\nPro plan: 20 EUR per month');
    const monitor = await service.create(scrapeMonitor([path]));
    await check(monitor.id);
    site.set(path, {
      title: 'Pricing',
      text: 'Basic plan: 12 EUR per month\nPro plan: 20 EUR per month',
    });
    const changed = await check(monitor.id);
    expect(changed.summary).toMatchObject({ totalPages: 1, changed: 1 });
    const entry = (await pagesOf(monitor.id, changed.id))[path];
    expect(entry?.status).toBe('changed');
    expect(entry?.diff?.text).toContain('-Basic plan: 10 EUR per month');
    expect(entry?.diff?.text).toContain('+Basic plan: 12 EUR per month');
    expect(entry?.diff?.text).toMatch(/^--- a\//m);
    const files = (
      entry?.diff?.json as {
        files: { chunks: { changes: { type: string; content: string }[] }[] }[];
      }
    ).files;
    const changes = files[0]?.chunks[0]?.changes ?? [];
    expect(changes).toContainEqual(
      expect.objectContaining({ type: 'del', content: '-Basic plan: 10 EUR per month' }),
    );
    expect(changes).toContainEqual(
      expect.objectContaining({ type: 'add', content: '+Basic plan: 12 EUR per month' }),
    );
    // The new text is the baseline now.
    expect((await check(monitor.id)).summary.same).toBe(1);
  });

  it('reports a page whose only change is a timestamp, a copyright year or a tracking parameter as changed, judged not meaningful', async () => {
    const path = page(
      'Prices as of 2026-03-02T09:00:00Z\nUpdated 5 minutes ago\nAcme Inc. © 2025, all rights reserved\nSee https://shop.example/item?id=7&utm_source=mail',
    );
    const monitor = await service.create(
      scrapeMonitor([path], { goal: 'price changes on the pricing page' }),
    );
    await check(monitor.id);
    site.set(path, {
      title: 'Pricing',
      text: 'Prices as of 2026-03-03T17:45:12Z\nUpdated 2 minutes ago\nAcme Inc. © 2026, all rights reserved\nSee https://shop.example/item?id=7&utm_source=rss',
    });
    const result = await check(monitor.id);
    expect(result.summary).toMatchObject({ same: 0, changed: 1 });
    const changedPage = (await pagesOf(monitor.id, result.id))[path];
    expect(changedPage?.diff?.text).toContain('+Acme Inc. © 2026, all rights reserved');
    expect(changedPage?.judgment).toMatchObject({ meaningful: false, meaningfulChanges: [] });
    expect(changedPage?.judgment?.reason).toMatch(/Only volatile text changed/);
    // The new text is the baseline: the next check is same.
    expect((await check(monitor.id)).summary).toMatchObject({ same: 1, changed: 0 });
  });

  it("judges '$9 → $12 per month' meaningful for a goal about prices", async () => {
    const path = page('Basic plan\n$9 per month');
    const monitor = await service.create(
      scrapeMonitor([path], { goal: 'price changes on the pricing page' }),
    );
    await check(monitor.id);
    site.set(path, { title: 'Pricing', text: 'Basic plan\n$12 per month' });
    const result = await check(monitor.id);
    const judged = (await pagesOf(monitor.id, result.id))[path];
    expect(judged).toMatchObject({ status: 'changed', judgment: { meaningful: true } });
  });

  it('counts no sitemap.xml of a site without a sitemap as a page error', async () => {
    const bare = await startChangingSite(
      { '/a': { title: 'A', text: 'Page A' } },
      { sitemap: false },
    );
    try {
      const monitor = await service.create({
        name: 'No sitemap',
        schedule: { text: 'daily' },
        targets: [{ type: 'crawl', url: `${bare.url}/`, crawlOptions: { limit: 50 } }],
      });
      const result = await check(monitor.id);
      expect(bare.hits('/sitemap.xml')).toBeGreaterThan(0);
      expect(result).toMatchObject({ status: 'completed', error: null });
      expect(result.summary).toMatchObject({ totalPages: 2, new: 2, error: 0 });
      const urls = Object.keys(await pagesOf(monitor.id, result.id));
      expect(urls.sort()).toEqual(['/', '/a']);
    } finally {
      await bare.close();
    }
  });

  it('marks a failing page error without losing its baseline, and same when it recovers unchanged', async () => {
    const steady = page('Always here');
    const flaky = page('Opening hours: 9 to 5');
    const monitor = await service.create(scrapeMonitor([steady, flaky]));
    const first = await check(monitor.id);
    site.set(flaky, { title: 'Pricing', text: 'Opening hours: 9 to 5', status: 503 });
    const failing = await check(monitor.id);
    expect(failing).toMatchObject({
      status: 'partial',
      summary: { totalPages: 2, same: 1, error: 1 },
    });
    const errorPage = (await pagesOf(monitor.id, failing.id))[flaky];
    expect(errorPage).toMatchObject({ status: 'error', statusCode: 503, currentScrapeId: null });
    expect(errorPage?.error).toContain('503');
    expect(errorPage?.previousScrapeId).toBe(
      (await pagesOf(monitor.id, first.id))[flaky]?.currentScrapeId,
    );
    site.set(flaky, { title: 'Pricing', text: 'Opening hours: 9 to 5' });
    const recovered = await check(monitor.id);
    expect(recovered).toMatchObject({
      status: 'completed',
      summary: { same: 2, error: 0, new: 0 },
    });
  });

  it('fails a check whose every page fails, and says why', async () => {
    const monitor = await service.create({
      ...scrapeMonitor([]),
      targets: [{ type: 'scrape', urls: ['http://127.0.0.1:1/refused'] }],
    });
    const result = await check(monitor.id);
    expect(result).toMatchObject({ status: 'failed', summary: { totalPages: 1, error: 1 } });
    expect(result.error).toBeTruthy();
  });

  it('finds pages added to and removed from a crawled site', async () => {
    const crawlSite = await startChangingSite({
      '/a': { title: 'A', text: 'Page A' },
      '/b': { title: 'B', text: 'Page B' },
    });
    try {
      const monitor = await service.create({
        name: 'Site',
        schedule: { text: 'daily' },
        targets: [{ type: 'crawl', url: `${crawlSite.url}/`, crawlOptions: { limit: 50 } }],
      });
      const first = await check(monitor.id);
      expect(first.summary).toEqual({
        totalPages: 3,
        new: 3,
        same: 0,
        changed: 0,
        removed: 0,
        error: 0,
      });
      crawlSite.remove('/b');
      crawlSite.set('/c', { title: 'C', text: 'Page C' });
      const second = await check(monitor.id);
      const pages = await pagesOf(monitor.id, second.id);
      // The home page lists the pages, so it changed too.
      expect(second.summary).toEqual({
        totalPages: 4,
        same: 1,
        changed: 1,
        new: 1,
        removed: 1,
        error: 0,
      });
      expect(pages['/a']?.status).toBe('same');
      expect(pages['/c']?.status).toBe('new');
      expect(pages['/b']).toMatchObject({ status: 'removed', currentScrapeId: null });
      expect(second.targetResults[0]).toMatchObject({
        type: 'crawl',
        crawlStatus: 'completed',
        truncated: false,
      });
      // A page that comes back after being removed is new again.
      crawlSite.set('/b', { title: 'B', text: 'Page B' });
      const third = await check(monitor.id);
      expect((await pagesOf(monitor.id, third.id))['/b']?.status).toBe('new');
      expect((await service.get(monitor.id)).estimatedCreditsPerMonth).toBe(30 * 4);
    } finally {
      await crawlSite.close();
    }
  });

  it('marks nothing removed when the crawl stopped at its limit, and warns', async () => {
    const crawlSite = await startChangingSite(
      Object.fromEntries(
        Array.from({ length: 6 }, (_, index) => [
          `/n${index}`,
          { title: `N${index}`, text: `Page ${index}` },
        ]),
      ),
    );
    try {
      const monitor = await service.create({
        name: 'Big site',
        schedule: { text: 'daily' },
        targets: [{ type: 'crawl', url: `${crawlSite.url}/`, crawlOptions: { limit: 10 } }],
      });
      const full = await check(monitor.id);
      expect(full.summary.new).toBe(7);
      const [target] = (await service.get(monitor.id)).targets;
      // The same target id: its baselines carry over to the smaller crawl.
      await service.update(monitor.id, {
        targets: [
          { id: target?.id, type: 'crawl', url: `${crawlSite.url}/`, crawlOptions: { limit: 3 } },
        ],
      });
      const cut = await check(monitor.id);
      expect(cut.summary).toMatchObject({ totalPages: 3, removed: 0 });
      expect(cut.warning).toMatch(/stopped at its limit of 3 pages/);
      expect(cut.targetResults[0]).toMatchObject({ truncated: true });
    } finally {
      await crawlSite.close();
    }
  });

  it('pages through a check’s pages with skip and limit, optionally by status', async () => {
    const paths = Array.from({ length: 7 }, (_, index) => page(`Item ${index}`));
    const monitor = await service.create(scrapeMonitor(paths));
    await check(monitor.id);
    site.set(paths[0] ?? '', { title: 'Pricing', text: 'Item 0 changed' });
    site.set(paths[3] ?? '', { title: 'Pricing', text: 'Item 3 changed' });
    const second = await check(monitor.id);
    const one = await service.check(monitor.id, second.id, { limit: 3 });
    expect(one.pages).toHaveLength(3);
    expect(one.nextSkip).toBe(3);
    const two = await service.check(monitor.id, second.id, { limit: 3, skip: 3 });
    const three = await service.check(monitor.id, second.id, { limit: 3, skip: 6 });
    expect(three.nextSkip).toBeUndefined();
    const urls = [...one.pages, ...two.pages, ...three.pages].map((entry) => entry.url);
    expect(new Set(urls).size).toBe(7);
    const changed = await service.check(monitor.id, second.id, { status: 'changed', limit: 1 });
    expect(changed.pages.map((entry) => entry.status)).toEqual(['changed']);
    expect(changed.nextSkip).toBe(1);
    const changedRest = await service.check(monitor.id, second.id, { status: 'changed', skip: 1 });
    expect(changedRest.pages).toHaveLength(1);
    expect(changedRest.nextSkip).toBeUndefined();
    await expect(service.check(monitor.id, crypto.randomUUID())).rejects.toMatchObject({
      message: 'Check not found',
    });
  });

  it('lists a monitor’s checks newest first, by status too', async () => {
    const monitor = await service.create(scrapeMonitor([page('a')]));
    const first = await check(monitor.id);
    const second = await check(monitor.id);
    expect((await service.checks(monitor.id)).map((entry) => entry.id)).toEqual([
      second.id,
      first.id,
    ]);
    expect(
      (await service.checks(monitor.id, { limit: 1, offset: 1 })).map((entry) => entry.id),
    ).toEqual([first.id]);
    expect(await service.checks(monitor.id, { status: 'failed' })).toEqual([]);
  });

  it('refuses to run a paused monitor, or one whose check is running, with CONFLICT', async () => {
    const slow = page('slow');
    const monitor = await service.create(scrapeMonitor([slow]));
    const running = await service.run(monitor.id);
    await expect(service.run(monitor.id)).rejects.toMatchObject({
      code: 'CONFLICT',
      message: 'Monitor check is already running.',
      details: { checkId: running.id },
    });
    await service.waitForCheck(monitor.id, running.id);
    await service.update(monitor.id, { status: 'paused' });
    await expect(service.run(monitor.id)).rejects.toMatchObject({
      code: 'CONFLICT',
      message: 'Monitor is paused. Resume it before running a check.',
    });
  });

  it('judges changed and new pages against the goal with keywords when no LLM is configured', async () => {
    const path = page('Senior engineer, Berlin\nOffice hours 9 to 5', 'Jobs');
    const monitor = await service.create(
      scrapeMonitor([path], { goal: 'Tell me about new engineering jobs in Berlin' }),
    );
    const first = await check(monitor.id);
    const newPage = (await pagesOf(monitor.id, first.id))[path];
    expect(newPage?.judgment).toMatchObject({ meaningful: true, method: 'keywords' });
    site.set(path, { title: 'Jobs', text: 'Senior engineer, Berlin\nOffice hours 10 to 6' });
    const hours = (await pagesOf(monitor.id, (await check(monitor.id)).id))[path];
    expect(hours?.status).toBe('changed');
    expect(hours?.judgment).toMatchObject({ meaningful: false, confidence: 'low' });
    site.set(path, {
      title: 'Jobs',
      text: 'Senior engineer, Berlin\nStaff engineer, Berlin\nOffice hours 10 to 6',
    });
    const jobs = (await pagesOf(monitor.id, (await check(monitor.id)).id))[path];
    expect(jobs?.judgment).toMatchObject({ meaningful: true, method: 'keywords' });
    expect(jobs?.judgment?.meaningfulChanges).toContainEqual(
      expect.objectContaining({ type: 'added', after: 'Staff engineer, Berlin' }),
    );
    expect(jobs?.judgment?.reason).toMatch(/berlin/);
  });

  it('tells notifiers about every page and the end of every check', async () => {
    const seen: string[] = [];
    const notifier: Notifier = {
      name: 'recorder',
      page: ({ page: entry }) => {
        seen.push(`page:${entry.status}`);
        return Promise.resolve();
      },
      checkCompleted: ({ check: done, changes }) => {
        seen.push(`check:${done.status}:${changes.length}`);
        return Promise.resolve({ attempted: true, success: true });
      },
    };
    const notified = new MonitorService({ store, config, notifiers: [notifier] });
    const monitor = await notified.create(scrapeMonitor([page('x'), page('y')]));
    const started = await notified.run(monitor.id);
    const done = await notified.waitForCheck(monitor.id, started.id);
    expect(seen).toEqual(['page:new', 'page:new', 'check:completed:2']);
    expect(done.notificationStatus).toEqual({ recorder: { attempted: true, success: true } });
  });

  it('runs the next check once the last one reads as ended, while its notifiers still work', async () => {
    // The final record is saved before the notifiers hear of it: from then on the check reads
    // `completed`, and a run asked for must not be refused as "already running" (a restart
    // test saw 409 there on a loaded machine, the tail of the last check still going).
    const notifying = Promise.withResolvers<void>();
    let calls = 0;
    const notifier: Notifier = {
      name: 'slow',
      checkCompleted: async () => {
        if (++calls === 1) await notifying.promise;
        return { attempted: true, success: true };
      },
    };
    const notified = new MonitorService({ store, config, notifiers: [notifier] });
    const monitor = await notified.create(scrapeMonitor([page('tail')]));
    const first = await notified.run(monitor.id);
    try {
      for (let attempt = 0; attempt < 500 && calls === 0; attempt++)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect((await notified.check(monitor.id, first.id)).status).toBe('completed');
      const second = await notified.run(monitor.id);
      expect(second.id).not.toBe(first.id);
      notifying.resolve();
      expect((await notified.waitForCheck(monitor.id, second.id)).status).toBe('completed');
    } finally {
      notifying.resolve();
      await notified.idle();
    }
  });

  it('stops a running crawl check when the service stops, and records it failed', async () => {
    const slowSite = await startChangingSite(
      Object.fromEntries(
        Array.from({ length: 4 }, (_, index) => [
          `/s${index}`,
          { title: `S${index}`, text: `Slow ${index}`, delayMs: 3000 },
        ]),
      ),
    );
    const stopping = new MonitorService({ store, config });
    try {
      const monitor = await stopping.create({
        name: 'Slow site',
        schedule: { text: 'daily' },
        targets: [{ type: 'crawl', url: `${slowSite.url}/` }],
      });
      const started = await stopping.run(monitor.id);
      // The home page answers at once; the crawl is then waiting on the slow pages.
      for (let attempt = 0; attempt < 200; attempt++) {
        const [current] = await stopping.checks(monitor.id);
        if (current?.summary.totalPages) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await stopping.stop();
      const stopped = await stopping.waitForCheck(monitor.id, started.id);
      expect(stopped.status).toBe('failed');
      expect(stopped.error).toMatch(/stopped before it finished/);
      expect(stopped.summary.totalPages).toBe(1);
    } finally {
      await slowSite.close();
    }
  });

  it('purges paused monitors too when every monitor is swept', async () => {
    const monitor = await service.create(scrapeMonitor([page('swept')], { retentionDays: 2 }));
    const old = await check(monitor.id);
    const latest = await check(monitor.id);
    await service.update(monitor.id, { status: 'paused' });
    expect(await service.purgeAll(new Date(Date.now() + 3 * 24 * 60 * 60 * 1000))).toBeGreaterThan(
      0,
    );
    const kept = (await service.checks(monitor.id)).map((entry) => entry.id);
    expect(kept).toEqual([latest.id]);
    expect(kept).not.toContain(old.id);
  });

  it('purges checks and baselines older than retentionDays', async () => {
    const path = page('kept?');
    const monitor = await service.create(scrapeMonitor([path], { retentionDays: 1 }));
    const old = await check(monitor.id);
    const latest = await check(monitor.id);
    // Two days on, only the current check is kept.
    await service.purge(monitor.id, new Date(Date.now() + 2 * 24 * 60 * 60 * 1000));
    expect((await service.checks(monitor.id)).map((entry) => entry.id)).toEqual([latest.id]);
    await expect(service.check(monitor.id, old.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // The baseline went too: the page is new again.
    expect((await check(monitor.id)).summary.new).toBe(1);
  });
});

describe('the scheduler', () => {
  it('runs a monitor due while the process was down once at start, closes a crashed check, and never runs paused ones', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-monitor-sched-'));
    const first = new SqliteStore({ path: join(dir, 'trawl.db') });
    const before = new MonitorService({ store: first, config });
    const due = await before.create(
      scrapeMonitor([page('due')], { schedule: { text: 'every 5 minutes' } }),
    );
    const paused = await before.create(
      scrapeMonitor([page('paused')], { schedule: { text: 'every 5 minutes' } }),
    );
    await before.update(paused.id, { status: 'paused' });
    const crashed = await before.create(scrapeMonitor([page('crashed')]));
    // What a crash leaves: a run that fell due while down, and a check stuck in `running`.
    const record = await first.get<Record<string, unknown>>('monitors', due.id);
    await first.set('monitors', due.id, { ...record, nextRunAt: '2020-01-01T00:00:00.000Z' });
    const stuck = await before.run(crashed.id);
    await before.idle();
    const checkRecord = await first.get<Record<string, unknown>>(
      'monitor-checks',
      `${crashed.id}/${stuck.id}`,
    );
    await first.set('monitor-checks', `${crashed.id}/${stuck.id}`, {
      ...checkRecord,
      status: 'running',
    });
    await first.close();

    const second = new SqliteStore({ path: join(dir, 'trawl.db') });
    const after = new MonitorService({ store: second, config });
    try {
      await after.start();
      await after.idle();
      const dueChecks = await after.checks(due.id);
      expect(dueChecks).toHaveLength(1);
      expect(dueChecks[0]).toMatchObject({
        trigger: 'scheduled',
        status: 'completed',
        scheduledFor: '2020-01-01T00:00:00.000Z',
      });
      expect(Date.parse((await after.get(due.id)).nextRunAt ?? '')).toBeGreaterThan(Date.now());
      expect(await after.checks(paused.id)).toEqual([]);
      expect((await after.get(paused.id)).nextRunAt).toBeNull();
      const closed = await after.checks(crashed.id);
      expect(closed[0]).toMatchObject({ id: stuck.id, status: 'failed' });
      expect(closed[0]?.error).toMatch(/interrupted/);
    } finally {
      await after.stop();
      await second.close();
    }
  });

  /** Moves a monitor's stored nextRunAt into the past, as a run missed while down. */
  async function makeDue(target: SqliteStore, id: string): Promise<void> {
    const record = await target.get<Record<string, unknown>>('monitors', id);
    await target.set('monitors', id, { ...record, nextRunAt: '2020-01-01T00:00:00.000Z' });
  }

  it('records a scheduled run as skipped_overlap while the previous check is still running', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-monitor-overlap-'));
    const own = new SqliteStore({ path: join(dir, 'trawl.db') });
    const scheduler = new MonitorService({ store: own, config });
    try {
      const path = `/slow${++pathCounter}`;
      site.set(path, { title: 'Slow', text: 'slow page', delayMs: 1000 });
      const monitor = await scheduler.create(
        scrapeMonitor([path], { schedule: { text: 'hourly' } }),
      );
      const running = await scheduler.run(monitor.id);
      await makeDue(own, monitor.id);
      await scheduler.start();
      const checks = await scheduler.checks(monitor.id);
      expect(checks.map((entry) => entry.status)).toContain('skipped_overlap');
      expect(checks.find((entry) => entry.status === 'skipped_overlap')).toMatchObject({
        trigger: 'scheduled',
        scheduledFor: '2020-01-01T00:00:00.000Z',
        error: `Skipped: check ${running.id} was still running.`,
      });
      await scheduler.idle();
    } finally {
      await scheduler.stop();
      await own.close();
    }
  });

  it('charges each check its pages in the credits ledger, and skips scheduled runs without credits', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-monitor-credits-'));
    const own = new SqliteStore({ path: join(dir, 'trawl.db') });
    const ledger = new CreditLedger(own, { perTeam: 2, prices: { monitor: 1 } });
    const paid = new MonitorService({ store: own, config, credits: new Admission(ledger) });
    try {
      const monitor = await paid.create(scrapeMonitor([page('p1'), page('p2')]));
      const started = await paid.run(monitor.id);
      const done = await paid.waitForCheck(monitor.id, started.id);
      expect(done).toMatchObject({ actualCredits: 2, billingStatus: 'confirmed' });
      expect(await ledger.usage('default')).toMatchObject({ debited: 2, remaining: 0 });
      expect(await ledger.jobCharges('default', done.id)).toEqual({ debited: 2, refunded: 0 });
      await expect(paid.run(monitor.id)).rejects.toMatchObject({ code: 'PAYMENT_REQUIRED' });
      await makeDue(own, monitor.id);
      await paid.start();
      const [skipped] = await paid.checks(monitor.id);
      expect(skipped).toMatchObject({
        status: 'skipped_no_credits',
        trigger: 'scheduled',
        error: 'Monitor check skipped: insufficient credits.',
      });
    } finally {
      await paid.stop();
      await own.close();
    }
  });
});
