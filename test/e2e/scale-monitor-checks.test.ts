/**
 * Monitor checks on workers: in a split deployment the API process plans and
 * starts checks but runs none; a `trawl worker` runs them. Driven through the official SDK's
 * monitor calls, as a user of the split deployment would.
 */
import Firecrawl from '@mendable/firecrawl-js';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { startChangingSite, type ChangingSite } from '../fixture-site/changing-site.ts';
import { servicesMissing, SplitDeployment } from './split-deployment.ts';

const fixture = inject('fixtureUrl');
const missing = await servicesMissing();
if (missing) console.warn(`split-deployment tests skipped: ${missing}`);

/** The check once it has completed (a worker ran it), read as the SDK reads it. */
function completed(firecrawl: Firecrawl, monitorId: string, checkId: string) {
  return vi.waitFor(
    async () => {
      const check = await firecrawl.getMonitorCheck(monitorId, checkId);
      expect(check.status).toBe('completed');
      return check;
    },
    { timeout: 60_000, interval: 250 },
  );
}

describe.skipIf(missing !== undefined)('monitor checks in a split deployment', () => {
  let site: ChangingSite;
  let deployment: SplitDeployment;
  beforeAll(async () => {
    site = await startChangingSite({ '/prices': { title: 'Prices', text: 'Tea costs 3 euros' } });
    deployment = await new SplitDeployment().open();
  });
  afterAll(async () => {
    await deployment.close();
    await site.close();
  });

  it('waits for a worker to run a check, which the worker then runs and the SDK reads', async () => {
    const api = await deployment.startApi();
    const firecrawl = new Firecrawl({ apiKey: deployment.apiKey, apiUrl: api.url });
    const monitor = await firecrawl.createMonitor({
      name: 'Prices',
      schedule: { text: 'every day at 9am' },
      targets: [{ type: 'scrape', urls: [`${site.url}/prices`] }],
    });
    const started = await firecrawl.runMonitor(monitor.id);
    // The API process runs no scrapes: with no worker the check waits in the queue.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(site.hits('/prices')).toBe(0);
    const waiting = await firecrawl.getMonitorCheck(monitor.id, started.id);
    expect(['queued', 'running']).toContain(waiting.status);

    await deployment.startWorker();
    const finished = await completed(firecrawl, monitor.id, started.id);
    expect(site.hits('/prices')).toBe(1);
    expect(finished.pages?.map((page) => page.url)).toEqual([`${site.url}/prices`]);
    expect(finished.summary).toMatchObject({ new: 1 });

    // The next check, run by the worker too, sees the change against the first one's baseline.
    site.set('/prices', { title: 'Prices', text: 'Tea costs 4 euros' });
    const second = await firecrawl.runMonitor(monitor.id);
    const changed = await completed(firecrawl, monitor.id, second.id);
    expect(changed.summary).toMatchObject({ changed: 1 });
    const listed = await firecrawl.listMonitorChecks(monitor.id);
    expect(listed.map((check) => check.id)).toEqual([second.id, started.id]);
  }, 180_000);

  it('stops a check running on a worker when its monitor is deleted', async () => {
    const api = deployment.api ?? (await deployment.startApi());
    if (deployment.workers.length === 0) await deployment.startWorker();
    const firecrawl = new Firecrawl({ apiKey: deployment.apiKey, apiUrl: api.url });
    // A page that answers after 30 s keeps the check running long enough to be stopped.
    const monitor = await firecrawl.createMonitor({
      name: 'Slow',
      schedule: { text: 'every day at 9am' },
      targets: [{ type: 'scrape', urls: [`${fixture}/slow?ms=30000`] }],
    });
    const started = await firecrawl.runMonitor(monitor.id);
    await vi.waitFor(
      async () => {
        const check = await firecrawl.getMonitorCheck(monitor.id, started.id);
        expect(check.status).toBe('running');
      },
      { timeout: 30_000, interval: 200 },
    );
    const begun = Date.now();
    expect(await firecrawl.deleteMonitor(monitor.id)).toBe(true);
    // Deleting waits for the check to end: the worker stopped it, it did not wait for the page.
    expect(Date.now() - begun).toBeLessThan(20_000);
    await expect(firecrawl.getMonitor(monitor.id)).rejects.toMatchObject({ status: 404 });
  }, 120_000);
});
