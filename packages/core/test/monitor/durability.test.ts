/**
 * Baselines move only when a check runs to its end (baselines.ts): a check cut short — the
 * process dying mid-check, here a second MonitorService taking over the same SQLite file while
 * the first one's check hangs — leaves the last finished check's baselines, so the next check
 * reports every change, and the one after reports none again.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MonitorService, resolveEngineConfig, SqliteStore, type MonitorCheck } from '@trawl/core';
import {
  startChangingSite,
  type ChangingSite,
} from '../../../../test/fixture-site/changing-site.ts';

const config = resolveEngineConfig({ allowPrivateAddresses: true });
const paths = ['/d1', '/d2', '/d3'];

let site: ChangingSite;
beforeAll(async () => {
  site = await startChangingSite();
});
afterAll(() => site.close());

const freshStore = () =>
  new SqliteStore({ path: join(mkdtempSync(join(tmpdir(), 'trawl-durable-')), 'trawl.db') });

async function checkNow(service: MonitorService, monitorId: string): Promise<MonitorCheck> {
  const started = await service.run(monitorId);
  return service.waitForCheck(monitorId, started.id);
}

async function statuses(service: MonitorService, monitorId: string, checkId: string) {
  const { pages } = await service.check(monitorId, checkId, { limit: 100 });
  return Object.fromEntries(pages.map((page) => [new URL(page.url).pathname, page.status]));
}

describe('a check cut short', () => {
  it('leaves the last finished baselines: the next check reports every change it saw, once', async () => {
    const store = freshStore();
    const crashed = new MonitorService({ store, config });
    const restarted = new MonitorService({ store, config });
    try {
      for (const path of paths) site.set(path, { title: path, text: `Old text of ${path}` });
      const monitor = await crashed.create({
        name: 'Durable',
        schedule: { text: 'every day at 9am' },
        targets: [{ type: 'scrape', urls: paths.map((path) => `${site.url}${path}`) }],
      });
      expect((await checkNow(crashed, monitor.id)).summary.new).toBe(3);

      // Every page changes; the last one answers only after the "crash".
      for (const path of paths) site.set(path, { title: path, text: `New text of ${path}` });
      site.set('/d3', { title: '/d3', text: 'New text of /d3', delayMs: 20_000 });
      const cut = await crashed.run(monitor.id);
      let seen: Record<string, string> = {};
      for (let attempt = 0; attempt < 400 && Object.keys(seen).length < 2; attempt++) {
        seen = await statuses(crashed, monitor.id, cut.id);
        if (Object.keys(seen).length < 2) await new Promise((resolve) => setTimeout(resolve, 25));
      }
      // The cut-short check saw two changes before it died.
      expect(seen).toEqual({ '/d1': 'changed', '/d2': 'changed' });

      // A new process on the same store: the open check is closed, what it saw is dropped.
      site.set('/d3', { title: '/d3', text: 'New text of /d3' });
      await restarted.start();
      const closed = (await restarted.checks(monitor.id)).find((entry) => entry.id === cut.id);
      expect(closed).toMatchObject({ status: 'failed' });
      expect(closed?.error).toMatch(/interrupted/);

      const next = await checkNow(restarted, monitor.id);
      expect(next).toMatchObject({ status: 'completed', summary: { changed: 3, same: 0 } });
      expect(await statuses(restarted, monitor.id, next.id)).toEqual({
        '/d1': 'changed',
        '/d2': 'changed',
        '/d3': 'changed',
      });
      // Committed now: nothing is reported twice.
      const after = await checkNow(restarted, monitor.id);
      expect(after.summary).toMatchObject({ same: 3, changed: 0 });
    } finally {
      await crashed.stop();
      await restarted.stop();
      await store.close();
    }
  });

  it('commits the snapshots of a finished check whose commit a crash cut short', async () => {
    const store = freshStore();
    const service = new MonitorService({ store, config });
    try {
      site.set('/c1', { title: 'C1', text: 'Version one' });
      const url = `${site.url}/c1`;
      const monitor = await service.create({
        name: 'Half-committed',
        schedule: { text: 'every day at 9am' },
        targets: [{ type: 'scrape', urls: [url] }],
      });
      const targetId = monitor.targets[0]?.id ?? '';
      const key = `${monitor.id}/${targetId}/${encodeURIComponent(url)}`;
      await checkNow(service, monitor.id);
      const old = await store.get<Record<string, unknown>>('monitor-snapshots', key);
      site.set('/c1', { title: 'C1', text: 'Version two' });
      const finished = await checkNow(service, monitor.id);
      expect(finished.summary.changed).toBe(1);
      const fresh = await store.get<Record<string, unknown>>('monitor-snapshots', key);
      expect(fresh?.content).toMatch(/Version two/);
      // What a crash between saving the finished check and promoting its snapshots leaves: the
      // old baseline, and the new snapshot still staged under the (completed) check.
      await store.set('monitor-staged', key.replace('/', `/${finished.id}/`), fresh);
      await store.set('monitor-snapshots', key, old);
      // The next check finishes the commit before comparing: the change is not reported again.
      const next = await checkNow(service, monitor.id);
      expect(next.summary).toMatchObject({ same: 1, changed: 0 });
    } finally {
      await service.stop();
      await store.close();
    }
  });
});
