/**
 * Monitors' `search` targets over the built-in index of a real SQLite store: the site is crawled
 * into the store, a check reports the results of its queries as `new` pages judged by keywords,
 * and the next check reports only what was indexed since. Plus the target's validation.
 */
import { describe, expect, it } from 'vitest';
import {
  crawl,
  MemoryStore,
  MonitorService,
  scrape,
  SearxngProvider,
  type MonitorCheck,
  type MonitorCreateInput,
} from '@trawl/core';
import { Admission, CreditLedger } from '@trawl/core/server';
import { startFakeSearx } from '../../../../test/fakes/searxng-server.ts';
import { openMonitorFixture } from './monitor-fixture.ts';

const { site, store, service, config } = await openMonitorFixture(
  async ({ site, store, config }) => {
    site.set('/keepers', {
      title: 'Keepers',
      text: 'The lighthouse keepers raised the ticket prices for the tower climb.',
    });
    site.set('/harbour', {
      title: 'Harbour',
      text: 'Ferry timetables for the harbour in winter.',
    });
    const job = crawl(site.url, { limit: 10 }, { store, config });
    for await (const _document of job) {
      // Draining the crawl: every page it scrapes goes into the store's index.
    }
    await job.done;
  },
);

const searchMonitor = (extra: Partial<MonitorCreateInput> = {}): MonitorCreateInput => ({
  name: 'Lighthouse news',
  schedule: { text: 'every day at 9am' },
  targets: [{ type: 'search', queries: ['lighthouse ticket prices'] }],
  goal: 'lighthouse ticket prices',
  ...extra,
});

async function check(monitorId: string): Promise<MonitorCheck> {
  const started = await service.run(monitorId);
  return service.waitForCheck(monitorId, started.id);
}

async function newPaths(monitorId: string, checkId: string): Promise<string[]> {
  const detail = await service.check(monitorId, checkId, { limit: 100 });
  expect(detail.pages.every((page) => page.status === 'new')).toBe(true);
  return detail.pages.map((page) => new URL(page.url).pathname).sort();
}

describe('search targets', () => {
  it('reports the results of the queries as new pages, judged, then only results indexed since', async () => {
    const monitor = await service.create(searchMonitor());
    expect(monitor.targets[0]).toMatchObject({
      type: 'search',
      queries: ['lighthouse ticket prices'],
      searchWindow: '24h',
      maxResults: 10,
    });

    const first = await check(monitor.id);
    expect(first.status).toBe('completed');
    expect(await newPaths(monitor.id, first.id)).toEqual(['/keepers']);
    const [page] = (await service.check(monitor.id, first.id)).pages;
    expect(page?.judgment).toMatchObject({ meaningful: true, method: 'keywords' });
    expect(page?.metadata?.title).toBe('Keepers');
    expect(first.summary).toMatchObject({ totalPages: 1, new: 1 });
    expect(first.targetResults[0]).toMatchObject({
      type: 'search',
      searchCompleted: true,
      resultCount: 1,
      matches: 1,
      resultsJudged: 1,
      judgeDegraded: true,
      searchCredits: 1,
    });

    // A page indexed after the first check is the only new result of the second.
    site.set('/museum', {
      title: 'Museum',
      text: 'The lighthouse museum lists its new ticket prices for families.',
    });
    await scrape(`${site.url}/museum`, {}, { store, config });
    const second = await check(monitor.id);
    expect(second.status).toBe('completed');
    expect(await newPaths(monitor.id, second.id)).toEqual(['/museum']);
    expect(second.targetResults[0]).toMatchObject({ resultCount: 2, matches: 1 });

    // Nothing new: a check with no pages.
    const third = await check(monitor.id);
    expect(third.summary.totalPages).toBe(0);
    expect(third.targetResults[0]).toMatchObject({ resultCount: 2, matches: 0 });
  });

  it('counts every new result as a match, unjudged, when judging is off', async () => {
    const monitor = await service.create(
      searchMonitor({ goal: null, judgeEnabled: false, name: 'unjudged' }),
    );
    const first = await check(monitor.id);
    const detail = await service.check(monitor.id, first.id);
    expect(detail.pages.map((page) => page.judgment)).toEqual([null, null]);
    expect(first.targetResults[0]).toMatchObject({
      resultCount: 2,
      matches: 2,
      judgeDegraded: false,
    });
  });

  it.each([
    [{ goal: null }, 'A search target requires a non-empty goal'],
    [{ goal: '   ' }, 'A search target requires a non-empty goal'],
    [{ targets: [{ type: 'search', queries: [] }] }, 'at least one query'],
    [{ targets: [{ type: 'search', queries: Array(13).fill('q') }] }, 'at most 12'],
    [{ targets: [{ type: 'search', queries: ['x'.repeat(257)] }] }, ''],
    [{ targets: [{ type: 'search', queries: ['q'], searchWindow: '2h' }] }, ''],
    [{ targets: [{ type: 'search', queries: ['q'], maxResults: 51 }] }, ''],
    [
      {
        targets: [
          { type: 'search', queries: ['q'], includeDomains: ['a.com'], excludeDomains: ['b.com'] },
        ],
      },
      'not both',
    ],
  ])('refuses %j with a 400', async (extra, words) => {
    const attempt = service.create(searchMonitor(extra as Partial<MonitorCreateInput>));
    await expect(attempt).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    if (words) await expect(attempt).rejects.toThrow(words);
  });

  it('refuses to drop the goal of a monitor with a search target', async () => {
    const monitor = await service.create(searchMonitor({ name: 'goal kept' }));
    await expect(service.update(monitor.id, { goal: null })).rejects.toThrow(
      'A search target requires a non-empty goal',
    );
    // Switching judging off at the same time is allowed.
    const updated = await service.update(monitor.id, { goal: null, judgeEnabled: false });
    expect(updated.goal).toBeNull();
  });

  it('refuses search targets when nothing can be searched (no index, no web provider)', async () => {
    const bare = new MonitorService({ store: new MemoryStore(), config });
    await expect(bare.create(searchMonitor())).rejects.toMatchObject({ code: 'NOT_CONFIGURED' });
    await bare.stop();
  });

  it('searches the web providers it is given, with the target’s filters, and warns of failing engines', async () => {
    const searx = await startFakeSearx();
    searx.unresponsive = [['wikipedia', 'timeout']];
    const web = new MonitorService({
      store: new MemoryStore(),
      config,
      searchProviders: [new SearxngProvider({ url: searx.url })],
    });
    try {
      const monitor = await web.create(
        searchMonitor({
          targets: [
            {
              type: 'search',
              queries: ['lighthouse'],
              maxResults: 3,
              includeDomains: ['site1.example'],
            },
          ],
          goal: 'lighthouse',
        }),
      );
      const started = await web.run(monitor.id);
      const done = await web.waitForCheck(monitor.id, started.id);
      expect(done.status).toBe('completed');
      const { pages } = await web.check(monitor.id, done.id);
      expect(pages).toHaveLength(3);
      expect(pages.every((page) => new URL(page.url).hostname === 'site1.example')).toBe(true);
      expect(searx.requests[0]?.get('q')).toContain('lighthouse');
      expect(done.warning).toMatch(/wikipedia/);
      expect(done.targetResults[0]).toMatchObject({ searchCompleted: true, resultCount: 3 });
    } finally {
      await web.stop();
      await searx.close();
    }
  });

  it('runs only the queries the team can pay for, each reserved before it runs', async () => {
    const ledger = new CreditLedger(new MemoryStore(), { perTeam: 2 });
    const paid = new MonitorService({ store, config, credits: new Admission(ledger) });
    try {
      const monitor = await paid.create(
        searchMonitor({
          name: 'four queries, two credits',
          targets: [
            {
              type: 'search',
              queries: ['lighthouse', 'ticket prices', 'harbour', 'ferry timetables'],
            },
          ],
        }),
      );
      const started = await paid.run(monitor.id);
      const done = await paid.waitForCheck(monitor.id, started.id);
      expect(done).toMatchObject({ status: 'partial', actualCredits: 2 });
      expect(done.error).toMatch(/Insufficient credits: the query was not run/);
      expect(done.targetResults[0]).toMatchObject({ searchCompleted: false, searchCredits: 2 });
      expect(await ledger.usage('default')).toMatchObject({ debited: 2, remaining: 0 });
    } finally {
      await paid.stop();
    }
  });
});
