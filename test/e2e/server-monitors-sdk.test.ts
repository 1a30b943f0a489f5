/**
 * `/v2/monitor` driven by the official SDK's monitor methods, as users run them against
 * `trawl serve`: create, list with paging, get, update (pause/resume, a goal switching judging
 * on), run, checks and check detail with its pages (auto-paginated through `next`), delete; and
 * the errors the SDK surfaces (400 naming the field, 404, 409 with the running check's id).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Firecrawl from '@mendable/firecrawl-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveEngineConfig, SqliteStore } from '@trawl/core';
import { ApiKeys, buildServer } from '@trawl/http';
import { startChangingSite, type ChangingSite } from '../fixture-site/changing-site.ts';

const key = 'fc-monitor-team-a';
const otherKey = 'fc-monitor-team-b';

let site: ChangingSite;
let api: string;
let firecrawl: Firecrawl;
let other: Firecrawl;
let close: () => Promise<void>;

beforeAll(async () => {
  site = await startChangingSite({
    '/pricing': { title: 'Pricing', text: 'Basic: 10 EUR\nPro: 20 EUR' },
    '/jobs': { title: 'Jobs', text: 'Engineer, Berlin' },
  });
  const store = new SqliteStore({
    path: join(mkdtempSync(join(tmpdir(), 'trawl-monitor-sdk-')), 'trawl.db'),
  });
  const app = buildServer({
    store,
    config: resolveEngineConfig({ allowPrivateAddresses: true }),
    keys: ApiKeys.parse(`team-a:${key},team-b:${otherKey}`),
    logLevel: 'silent',
  });
  api = await app.listen({ port: 0, host: '127.0.0.1' });
  firecrawl = new Firecrawl({ apiKey: key, apiUrl: api });
  other = new Firecrawl({ apiKey: otherKey, apiUrl: api });
  close = async () => {
    await app.close();
    await store.close();
  };
});
afterAll(async () => {
  await close();
  await site.close();
});

/** Polls the SDK's check list until the check has ended. */
async function finished(monitorId: string, checkId: string) {
  for (let attempt = 0; attempt < 200; attempt++) {
    const [latest] = await firecrawl.listMonitorChecks(monitorId, { limit: 1 });
    if (latest?.id === checkId && !['queued', 'running'].includes(latest.status)) return latest;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`check ${checkId} did not end`);
}

describe('the official SDK’s monitor methods against trawl serve', () => {
  it('creates, reads, lists with paging, updates, runs, reads checks and deletes a monitor', async () => {
    const created = await firecrawl.createMonitor({
      name: 'Pricing watch',
      schedule: { text: 'every 15 minutes starting at :07' },
      targets: [{ type: 'scrape', urls: [`${site.url}/pricing`, `${site.url}/jobs`] }],
      notification: { email: { enabled: false } },
    });
    expect(created).toMatchObject({
      name: 'Pricing watch',
      status: 'active',
      schedule: { cron: '7-59/15 * * * *', timezone: 'UTC' },
      retentionDays: 30,
      judgeEnabled: false,
      notification: { email: { enabled: false, recipients: [], includeDiffs: false } },
    });
    expect(created.estimatedCreditsPerMonth).toBe(2 * 4 * 24 * 30);
    expect(await firecrawl.getMonitor(created.id)).toEqual(created);

    // Paging: newest first, limit and offset.
    const second = await firecrawl.createMonitor({
      name: 'Second',
      schedule: { cron: '0 * * * *' },
      targets: [{ type: 'scrape', urls: [`${site.url}/jobs`] }],
    });
    expect((await firecrawl.listMonitors({ limit: 1 })).map((monitor) => monitor.id)).toEqual([
      second.id,
    ]);
    expect(
      (await firecrawl.listMonitors({ limit: 1, offset: 1 })).map((monitor) => monitor.id),
    ).toEqual([created.id]);
    expect(await other.listMonitors()).toEqual([]);

    // Pause and resume; a goal switches judging on.
    const paused = await firecrawl.updateMonitor(created.id, { status: 'paused' });
    expect(paused).toMatchObject({ status: 'paused', nextRunAt: null });
    await expect(firecrawl.runMonitor(created.id)).rejects.toMatchObject({
      status: 409,
      message: 'Monitor is paused. Resume it before running a check.',
    });
    const resumed = await firecrawl.updateMonitor(created.id, {
      status: 'active',
      goal: 'the Basic price in EUR',
    });
    expect(resumed).toMatchObject({
      status: 'active',
      goal: 'the Basic price in EUR',
      judgeEnabled: true,
    });
    expect(resumed.nextRunAt).toBeTruthy();

    // Run now: answered at once, then the check goes on.
    const run = await firecrawl.runMonitor(created.id);
    expect(['queued', 'running']).toContain(run.status);
    expect(run).toMatchObject({ monitorId: created.id, trigger: 'manual' });
    const first = await finished(created.id, run.id);
    expect(first).toMatchObject({
      status: 'completed',
      summary: { totalPages: 2, new: 2, same: 0, changed: 0, removed: 0, error: 0 },
    });

    site.set('/pricing', { title: 'Pricing', text: 'Basic: 12 EUR\nPro: 20 EUR' });
    const again = await firecrawl.runMonitor(created.id);
    const changed = await finished(created.id, again.id);
    expect(changed.summary).toMatchObject({ totalPages: 2, changed: 1, same: 1 });

    // Check detail: pages, with the SDK following `next` page by page.
    const detail = await firecrawl.getMonitorCheck(created.id, again.id, { limit: 1 });
    expect(detail.pages).toHaveLength(2);
    expect(detail.next).toBeNull();
    const pricing = detail.pages.find((page) => page.url.endsWith('/pricing'));
    expect(pricing).toMatchObject({ status: 'changed', judgment: { meaningful: true } });
    expect(pricing?.diff?.text).toContain('+Basic: 12 EUR');
    const onlyFirst = await firecrawl.getMonitorCheck(created.id, again.id, {
      limit: 1,
      autoPaginate: false,
    });
    expect(onlyFirst.pages).toHaveLength(1);
    expect(onlyFirst.next).toMatch(
      new RegExp(`^${api}/v2/monitor/${created.id}/checks/${again.id}\\?.*skip=1`),
    );
    const changedOnly = await firecrawl.getMonitorCheck(created.id, again.id, {
      status: 'changed',
    });
    expect(changedOnly.pages.map((page) => page.status)).toEqual(['changed']);

    const checks = await firecrawl.listMonitorChecks(created.id);
    expect(checks.map((check) => check.id)).toEqual([again.id, run.id]);
    expect(await firecrawl.listMonitorChecks(created.id, { limit: 1, offset: 1 })).toHaveLength(1);
    expect((await firecrawl.getMonitor(created.id)).lastCheckSummary).toEqual(changed.summary);

    expect(await firecrawl.deleteMonitor(created.id)).toBe(true);
    await expect(firecrawl.getMonitor(created.id)).rejects.toMatchObject({
      status: 404,
      message: 'Monitor not found',
    });
    expect(await firecrawl.deleteMonitor(second.id)).toBe(true);
  });

  it('answers 409 with the running check’s id when a check is already running', async () => {
    site.set('/slow-one', { title: 'Slow', text: 'x' });
    const monitor = await firecrawl.createMonitor({
      name: 'Busy',
      schedule: { text: 'daily' },
      // Enough pages that the first check is still running when the second run is asked for.
      targets: [
        {
          type: 'scrape',
          urls: Array.from({ length: 30 }, (_, i) => `${site.url}/slow-one?i=${i}`),
        },
      ],
    });
    const running = await firecrawl.runMonitor(monitor.id);
    const refused = await fetch(`${api}/v2/monitor/${monitor.id}/run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({
      success: false,
      error: 'Monitor check is already running.',
      checkId: running.id,
    });
    await finished(monitor.id, running.id);
    await firecrawl.deleteMonitor(monitor.id);
  });

  it('creates a search-target monitor whose check reports scraped pages as new results, judged', async () => {
    // The server's scrape indexes the page into the store, which the monitor's search reads.
    site.set('/lighthouse', {
      title: 'Lighthouse',
      text: 'The lighthouse keepers raised the ticket prices for the tower climb.',
    });
    await firecrawl.scrape(`${site.url}/lighthouse`, { formats: ['markdown'] });
    await expect(
      firecrawl.createMonitor({
        name: 'No goal',
        schedule: { text: 'hourly' },
        targets: [{ type: 'search', queries: ['lighthouse'] }],
        judgeEnabled: true,
      }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringContaining('non-empty goal') });
    const monitor = await firecrawl.createMonitor({
      name: 'Lighthouse news',
      schedule: { text: 'hourly' },
      targets: [{ type: 'search', queries: ['lighthouse ticket prices'], searchWindow: '1h' }],
      goal: 'lighthouse ticket prices',
    });
    expect(monitor.targets[0]).toMatchObject({
      type: 'search',
      searchWindow: '1h',
      maxResults: 10,
    });
    const run = await firecrawl.runMonitor(monitor.id);
    const done = await finished(monitor.id, run.id);
    expect(done).toMatchObject({ status: 'completed', summary: { totalPages: 1, new: 1 } });
    expect(done.targetResults?.[0]).toMatchObject({
      type: 'search',
      searchCompleted: true,
      resultCount: 1,
      matches: 1,
    });
    const detail = await firecrawl.getMonitorCheck(monitor.id, run.id);
    expect(detail.pages).toMatchObject([
      {
        url: `${site.url}/lighthouse`,
        status: 'new',
        judgment: { meaningful: true, method: 'keywords' },
      },
    ]);
    expect(await firecrawl.deleteMonitor(monitor.id)).toBe(true);
  });

  it('refuses bad input with a 400 naming the field, and unknown or foreign ids with 404', async () => {
    const monitor = await firecrawl.createMonitor({
      name: 'Valid',
      schedule: { text: 'hourly' },
      targets: [{ type: 'scrape', urls: [`${site.url}/jobs`] }],
    });
    const cases: [unknown, string][] = [
      [{}, 'Update body cannot be empty'],
      [{ name: 'n'.repeat(257) }, 'name'],
      [{ targets: [] }, 'targets'],
      [
        {
          targets: Array.from({ length: 51 }, () => ({
            type: 'scrape',
            urls: [`${site.url}/jobs`],
          })),
        },
        'targets',
      ],
      [{ retentionDays: 0 }, 'retentionDays'],
      [{ retentionDays: 366 }, 'retentionDays'],
      [{ goal: 'g'.repeat(2001) }, 'goal'],
      [{ status: 'archived' }, 'status'],
      [{ schedule: { cron: '0 * * * *', text: 'hourly' } }, 'schedule'],
      [{ schedule: { text: 'every 3 minutes' } }, 'schedule'],
      [{ schedule: { text: 'when the moon is full' } }, 'schedule'],
    ];
    for (const [body, field] of cases) {
      const response = await fetch(`${api}/v2/monitor/${monitor.id}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...(body as object), origin: 'js-sdk@4.42.0' }),
      });
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      const answer = (await response.json()) as { success: boolean; error: string; code: string };
      expect(answer).toMatchObject({ success: false, code: 'BAD_REQUEST' });
      expect(answer.error).toContain(field);
    }
    await expect(
      firecrawl.updateMonitor(monitor.id, { schedule: { text: 'every 90 minutes' } }),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("Try phrases like 'every 30 minutes'") as unknown,
    });
    await expect(other.getMonitor(monitor.id)).rejects.toMatchObject({ status: 404 });
    await expect(firecrawl.getMonitor('not-a-uuid')).rejects.toMatchObject({ status: 404 });
    await expect(firecrawl.getMonitorCheck(monitor.id, crypto.randomUUID())).rejects.toMatchObject({
      status: 404,
      message: 'Check not found',
    });
    await expect(firecrawl.listMonitors({ limit: 101 })).rejects.toMatchObject({ status: 400 });
    await firecrawl.deleteMonitor(monitor.id);
  });
});

describe('the official SDK’s monitor methods against a keyless trawl serve', () => {
  it('creates, runs and reads a monitor without an Authorization header', async () => {
    const store = new SqliteStore({
      path: join(mkdtempSync(join(tmpdir(), 'trawl-monitor-keyless-')), 'trawl.db'),
    });
    const app = buildServer({
      store,
      config: resolveEngineConfig({ allowPrivateAddresses: true }),
      keys: ApiKeys.parse(undefined),
      logLevel: 'silent',
    });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      // With no key the SDK sends no Authorization header at all.
      const keyless = new Firecrawl({ apiKey: '', apiUrl: url });
      const monitor = await keyless.createMonitor({
        name: 'Keyless',
        schedule: { text: 'hourly' },
        targets: [{ type: 'scrape', urls: [`${site.url}/jobs`] }],
      });
      const run = await keyless.runMonitor(monitor.id);
      let status = run.status;
      for (let attempt = 0; attempt < 200 && ['queued', 'running'].includes(status); attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        status = (await keyless.getMonitorCheck(monitor.id, run.id)).status;
      }
      expect(status).toBe('completed');
      expect((await keyless.listMonitors()).map((entry) => entry.id)).toEqual([monitor.id]);
      expect(await keyless.deleteMonitor(monitor.id)).toBe(true);
    } finally {
      await app.close();
      await store.close();
    }
  });
});
