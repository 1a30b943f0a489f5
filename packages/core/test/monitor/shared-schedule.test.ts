/**
 * Several schedulers on one store: each due time of a monitor is claimed in the store,
 * so however many `Monitors` run the schedule, one check runs per due time. The processes of the
 * end-to-end test (test/e2e/monitor-shared-store.test.ts) share PostgreSQL; here two instances
 * share one SQLite file, which has the same claim.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Monitors, resolveEngineConfig, SqliteStore } from '@trawl/core';
import {
  startChangingSite,
  type ChangingSite,
} from '../../../../test/fixture-site/changing-site.ts';

const config = resolveEngineConfig({ allowPrivateAddresses: true });

let site: ChangingSite;
beforeAll(async () => {
  site = await startChangingSite({ '/shared': { title: 'Shared', text: 'One page' } });
});
afterAll(() => site.close());

describe('monitors scheduled by several instances on one store', () => {
  it('runs a due monitor once, however many schedulers see it due', async () => {
    const store = new SqliteStore({
      path: join(mkdtempSync(join(tmpdir(), 'trawl-shared-schedule-')), 'trawl.db'),
    });
    const schedulers = [0, 1, 2].map(() => new Monitors({ store, config }));
    const [first] = schedulers as [Monitors];
    try {
      const monitor = await first.create({
        name: 'Shared',
        schedule: { text: 'every day at 9am' },
        targets: [{ type: 'scrape', urls: [`${site.url}/shared`] }],
      });
      // Due a minute ago, as if every process had been down at its time.
      const record = await store.get<{ nextRunAt: string }>('monitors', monitor.id);
      const due = new Date(Date.now() - 60_000).toISOString();
      await store.set('monitors', monitor.id, { ...record, nextRunAt: due });

      await Promise.all(schedulers.map((scheduler) => scheduler.start()));
      await Promise.all(schedulers.map((scheduler) => scheduler.idle()));

      const checks = await first.checks(monitor.id);
      expect(checks.map((check) => [check.trigger, check.scheduledFor])).toEqual([
        ['scheduled', due],
      ]);
      expect(site.hits('/shared')).toBe(1);
      // The winner moved the next run on; every instance now plans that one.
      expect(Date.parse((await first.get(monitor.id)).nextRunAt ?? '')).toBeGreaterThan(Date.now());
    } finally {
      await Promise.all(schedulers.map((scheduler) => scheduler.stop()));
      await store.close();
    }
  });
});
