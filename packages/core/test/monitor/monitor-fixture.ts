/**
 * What the monitor tests run against: the changing site, a fresh SQLite file and a monitor
 * service over it, all stopped and closed when the file's tests end.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { MonitorService, resolveEngineConfig, SqliteStore, type EngineConfig } from '@trawl/core';
import {
  startChangingSite,
  type ChangingSite,
} from '../../../../test/fixture-site/changing-site.ts';

export interface MonitorFixture {
  site: ChangingSite;
  store: SqliteStore;
  service: MonitorService;
  config: EngineConfig;
}

/** `seed` fills the site and the store before the service starts, e.g. a crawl into the index. */
export async function openMonitorFixture(
  seed?: (fixture: Omit<MonitorFixture, 'service'>) => Promise<void>,
): Promise<MonitorFixture> {
  const config = resolveEngineConfig({ allowPrivateAddresses: true });
  const site = await startChangingSite();
  const store = new SqliteStore({
    path: join(mkdtempSync(join(tmpdir(), 'trawl-monitor-')), 'trawl.db'),
  });
  await seed?.({ site, store, config });
  const service = new MonitorService({ store, config });
  afterAll(async () => {
    await service.stop();
    await store.close();
    await site.close();
  });
  return { site, store, service, config };
}
