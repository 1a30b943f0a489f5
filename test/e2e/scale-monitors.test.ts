/**
 * Monitors on two `trawl serve` processes sharing one PostgreSQL store: both
 * plan the same monitor for the same minute, and its scheduled check runs once — one check
 * record for that due time, one fetch of its page — because each due time is claimed in the
 * store before it runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChangingSite, type ChangingSite } from '../fixture-site/changing-site.ts';
import { serveProcess, type KeyedServeProcess } from './serve-process.ts';
import { freshDatabase, type FreshDatabase } from './shared-services.ts';

interface Check {
  id: string;
  status: string;
  trigger: string;
  scheduledFor: string | null;
}

let database: FreshDatabase;
let site: ChangingSite;
const started: KeyedServeProcess[] = [];

beforeAll(async () => {
  database = await freshDatabase('monitors');
  site = await startChangingSite({ '/watched': { title: 'Watched', text: 'Checked once' } });
});
afterAll(async () => {
  await Promise.all(started.splice(0).map((server) => server.stop()));
  await site.close();
  await database.drop();
});

async function serve(): Promise<KeyedServeProcess> {
  const server = await serveProcess({
    TRAWL_STORE: 'postgres',
    TRAWL_DATABASE_URL: database.url,
    // Every minute: a scheduled run comes within the test's time.
    TRAWL_MONITOR_MIN_INTERVAL_MINUTES: '1',
  });
  started.push(server);
  return server;
}

async function data<T>(answer: Promise<{ status: number; body: Record<string, unknown> }>) {
  const { status, body } = await answer;
  expect(status, JSON.stringify(body)).toBe(200);
  return body['data'] as T;
}

describe('a monitor scheduled by two API processes on one store', () => {
  it('runs each due check exactly once', async () => {
    const first = await serve();
    const monitor = await data<{ id: string; nextRunAt: string }>(
      first.call('POST', '/v2/monitor', {
        name: 'Shared schedule',
        schedule: { cron: '* * * * *' },
        targets: [{ type: 'scrape', urls: [`${site.url}/watched`] }],
      }),
    );
    // Started after the monitor exists: it plans the same due time at start.
    const second = await serve();
    const due = monitor.nextRunAt;

    let done: Check | undefined;
    for (let attempt = 0; attempt < 400 && !done; attempt++) {
      const checks = await data<Check[]>(
        second.call('GET', `/v2/monitor/${monitor.id}/checks?limit=100`),
      );
      const forDue = checks.filter((check) => check.scheduledFor === due);
      if (forDue.some((check) => !['queued', 'running'].includes(check.status))) done = forDue[0];
      else await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(done).toMatchObject({ trigger: 'scheduled', status: 'completed' });
    // Time for a second runner, were there one, to have started and recorded its check.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const checks = await data<Check[]>(
      first.call('GET', `/v2/monitor/${monitor.id}/checks?limit=100`),
    );
    expect(checks.filter((check) => check.scheduledFor === due)).toHaveLength(1);
    expect(site.hits('/watched')).toBe(1);
    const after = await data<{ nextRunAt: string }>(
      second.call('GET', `/v2/monitor/${monitor.id}`),
    );
    expect(Date.parse(after.nextRunAt)).toBeGreaterThan(Date.parse(due));
  }, 150_000);
});
