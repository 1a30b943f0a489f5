/**
 * Monitors on the shared stores: the same MonitorService scenarios on Redis (127.0.0.1:6379) and
 * PostgreSQL (database `test`) as on SQLite — listing by team and page, checks that find new,
 * changed and removed pages, paging a check's pages by status, retention and delete — so that
 * monitors need nothing of a backend beyond the Store contract.
 */
import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import { createClient } from '@redis/client';
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MonitorService, resolveEngineConfig, type MonitorCheck, type Store } from '@trawl/core';
import { PostgresStore, RedisStore } from '@trawl/adapters';
import {
  startChangingSite,
  type ChangingSite,
} from '../../../../test/fixture-site/changing-site.ts';

const runId = randomUUID().replaceAll('-', '');
const redisPrefix = `trawl_monitor_${runId}`;
const pgTable = `trawl_monitor_${runId}`;
const config = resolveEngineConfig({ allowPrivateAddresses: true });

let site: ChangingSite;
beforeAll(async () => {
  site = await startChangingSite({
    '/a': { title: 'A', text: 'Alpha' },
    '/b': { title: 'B', text: 'Beta' },
  });
});
afterAll(async () => {
  await site.close();
  const redis = createClient({ url: 'redis://127.0.0.1:6379' });
  await redis.connect();
  for await (const keys of redis.scanIterator({ MATCH: `${redisPrefix}:*`, COUNT: 1000 })) {
    if (keys.length > 0) await redis.unlink(keys);
  }
  redis.destroy();
  const pool = new Pool({
    host: '127.0.0.1',
    port: 5432,
    database: 'test',
    user: process.env['PGUSER'] ?? userInfo().username,
    max: 1,
  });
  await pool.query(`DROP TABLE IF EXISTS public."${pgTable}"`);
  await pool.end();
});

const backends: [string, () => Store][] = [
  ['redis', () => new RedisStore({ url: 'redis://127.0.0.1:6379', prefix: redisPrefix })],
  [
    'postgres',
    () => new PostgresStore({ connectionString: 'postgres://127.0.0.1:5432/test', table: pgTable }),
  ],
];

describe.each(backends)('monitors on %s', (_name, makeStore) => {
  let store: Store;
  let service: MonitorService;
  beforeAll(() => {
    store = makeStore();
    service = new MonitorService({ store, config });
  });
  afterAll(async () => {
    await service.stop();
    await store.close();
  });

  async function check(monitorId: string): Promise<MonitorCheck> {
    const started = await service.run(monitorId);
    return service.waitForCheck(monitorId, started.id);
  }

  it('lists a team’s monitors newest first, page by page', async () => {
    const team = `team-${randomUUID()}`;
    for (const name of ['one', 'two', 'three'])
      await service.create(
        {
          name,
          schedule: { text: 'daily' },
          targets: [{ type: 'scrape', urls: [`${site.url}/a`] }],
        },
        { team },
      );
    const pages = [
      ...(await service.list({ limit: 2 }, { team })),
      ...(await service.list({ limit: 2, offset: 2 }, { team })),
    ];
    expect(pages.map((monitor) => monitor.name)).toEqual(['three', 'two', 'one']);
  });

  it('finds new, changed and removed pages of a crawled site, and pages through them by status', async () => {
    const crawlSite = await startChangingSite({
      '/x': { title: 'X', text: 'Ex' },
      '/y': { title: 'Y', text: 'Why' },
    });
    try {
      const monitor = await service.create({
        name: 'Crawled',
        schedule: { text: 'hourly' },
        targets: [{ type: 'crawl', url: `${crawlSite.url}/` }],
        retentionDays: 1,
      });
      const first = await check(monitor.id);
      expect(first.summary).toMatchObject({ totalPages: 3, new: 3 });
      crawlSite.set('/x', { title: 'X', text: 'Ex, changed' });
      crawlSite.remove('/y');
      const second = await check(monitor.id);
      expect(second.summary).toEqual({
        totalPages: 3,
        same: 0,
        changed: 2,
        new: 0,
        removed: 1,
        error: 0,
      });
      const changed = await service.check(monitor.id, second.id, { status: 'changed', limit: 1 });
      expect(changed.pages).toHaveLength(1);
      expect(changed.nextSkip).toBe(1);
      const rest = await service.check(monitor.id, second.id, { status: 'changed', skip: 1 });
      expect(rest.pages).toHaveLength(1);
      expect(rest.pages[0]?.url).not.toBe(changed.pages[0]?.url);
      const removed = await service.check(monitor.id, second.id, { status: 'removed' });
      expect(removed.pages.map((page) => new URL(page.url).pathname)).toEqual(['/y']);
      expect((await service.checks(monitor.id)).map((entry) => entry.id)).toEqual([
        second.id,
        first.id,
      ]);

      await service.purge(monitor.id, new Date(Date.now() + 2 * 24 * 60 * 60 * 1000));
      expect((await service.checks(monitor.id)).map((entry) => entry.id)).toEqual([second.id]);
      await service.delete(monitor.id);
      await expect(service.check(monitor.id, second.id)).rejects.toMatchObject({
        code: 'NOT_FOUND',
      });
    } finally {
      await crawlSite.close();
    }
  });

  it('carries monitors and baselines over to a new service on the same store (a restart)', async () => {
    const monitor = await service.create({
      name: 'Kept',
      schedule: { text: 'daily' },
      targets: [{ type: 'scrape', urls: [`${site.url}/a`, `${site.url}/b`] }],
    });
    await check(monitor.id);
    const reopened = makeStore();
    const again = new MonitorService({ store: reopened, config });
    try {
      expect((await again.get(monitor.id)).lastCheckSummary).toMatchObject({ new: 2 });
      const started = await again.run(monitor.id);
      const done = await again.waitForCheck(monitor.id, started.id);
      expect(done.summary).toMatchObject({ totalPages: 2, same: 2 });
    } finally {
      await again.stop();
      await reopened.close();
    }
  });

  it('leaves a check another live process runs alone when a second process starts', async () => {
    site.set('/slow', { title: 'Slow', text: 'Takes a while', delayMs: 1500 });
    const monitor = await service.create({
      name: 'Busy elsewhere',
      schedule: { text: 'every day at 9am' },
      targets: [{ type: 'scrape', urls: [`${site.url}/slow`] }],
    });
    const running = await service.run(monitor.id);
    // A second process on the same store starts while the first one's check runs.
    const otherStore = makeStore();
    const other = new MonitorService({ store: otherStore, config });
    try {
      await other.start();
      const [seen] = await other.checks(monitor.id);
      expect(seen?.id).toBe(running.id);
      expect(['queued', 'running']).toContain(seen?.status);
      const final = await service.waitForCheck(monitor.id, running.id);
      expect(final.status).toBe('completed');
    } finally {
      await other.stop();
      await otherStore.close();
    }
  });
});
