/**
 * `trawl serve` killed with SIGKILL in the middle of a monitor check and started again on the
 * same data folder: the check is not left running forever, no page baseline is doubled and the
 * killed check commits none (the next check sees every page once, each `new`: baselines move only
 * when a check finishes), and the next scheduled run happens — once — for the time it was planned.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChangingSite, type ChangingSite } from '../fixture-site/changing-site.ts';
import { startServe, type ServeProcess } from './serve-process.ts';

const key = 'fc-monitor-restart';
const paths = ['/p0', '/p1', '/p2', '/p3', '/p4', '/p5'];

let site: ChangingSite;
beforeAll(async () => {
  site = await startChangingSite();
});
afterAll(() => site.close());

/** Starts `trawl serve` on `dataDir` and `port` (0: any free one). */
function serve(dataDir: string, port: number): Promise<ServeProcess> {
  return startServe(
    {
      TRAWL_API_KEYS: key,
      TRAWL_ALLOW_PRIVATE_ADDRESSES: 'true',
      // Every minute: the test sees a scheduled run without waiting long.
      TRAWL_MONITOR_MIN_INTERVAL_MINUTES: '1',
    },
    { dataDir, port },
  );
}

interface Check {
  id: string;
  status: string;
  trigger: string;
  scheduledFor: string | null;
  error: string | null;
  summary: { totalPages: number; same: number; new: number; changed: number };
}

describe('a monitor across a SIGKILL of trawl serve', () => {
  it('closes the interrupted check, keeps every baseline once, and runs the next scheduled check', async () => {
    for (const [index, path] of paths.entries())
      site.set(path, { title: `Page ${index}`, text: `Text of page ${index}`, delayMs: 1500 });
    const dataDir = mkdtempSync(join(tmpdir(), 'trawl-monitor-restart-'));
    let server = await serve(dataDir, 0);
    const api = `http://127.0.0.1:${server.port}`;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
      const response = await fetch(`${api}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const answer = (await response.json()) as { data: T };
      expect(response.status, JSON.stringify(answer)).toBe(200);
      return answer.data;
    };
    try {
      const monitor = await call<{ id: string }>('POST', '/v2/monitor', {
        name: 'Restart',
        schedule: { cron: '* * * * *' },
        // Two pages at a time: the check lasts several seconds.
        targets: [{ type: 'scrape', urls: paths.map((path) => `${site.url}${path}`) }],
      });
      // /p0 answers at once: the check records it (and stages its snapshot) before the kill.
      site.set('/p0', { title: 'Page 0', text: 'Text of page 0' });
      const interrupted = await call<Check>('POST', `/v2/monitor/${monitor.id}/run`, {});
      for (let attempt = 0; attempt < 200; attempt++) {
        const check = await call<Check & { summary: { totalPages: number } }>(
          'GET',
          `/v2/monitor/${monitor.id}/checks/${interrupted.id}`,
        );
        if (check.status === 'running' && check.summary.totalPages >= 1) break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      const planned = (await call<{ nextRunAt: string }>('GET', `/v2/monitor/${monitor.id}`))
        .nextRunAt;
      const killed = new Promise((resolve) => server.child.once('exit', resolve));
      server.child.kill('SIGKILL');
      await killed;
      for (const [index, path] of paths.entries())
        site.set(path, { title: `Page ${index}`, text: `Text of page ${index}` });

      server = await serve(dataDir, server.port);
      const closed = await call<Check>('GET', `/v2/monitor/${monitor.id}/checks/${interrupted.id}`);
      expect(closed.status).toBe('failed');
      expect(closed.error).toMatch(/interrupted/);

      // The run planned before the kill happens once, for its planned time.
      let scheduled: Check | undefined;
      for (let attempt = 0; attempt < 400 && !scheduled; attempt++) {
        const checks = await call<Check[]>('GET', `/v2/monitor/${monitor.id}/checks?limit=100`);
        const forPlanned = checks.filter((check) => check.scheduledFor === planned);
        expect(forPlanned.length).toBeLessThanOrEqual(1);
        if (forPlanned[0] && !['queued', 'running'].includes(forPlanned[0].status))
          scheduled = forPlanned[0];
        else await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(scheduled).toMatchObject({ trigger: 'scheduled', status: 'completed' });
      // Every page once, each `new`: the killed check's snapshots were never committed.
      expect(scheduled?.summary.totalPages).toBe(paths.length);
      expect(scheduled?.summary.new).toBe(paths.length);
      const detail = await call<{ pages: { url: string }[] }>(
        'GET',
        `/v2/monitor/${monitor.id}/checks/${scheduled?.id}?limit=100`,
      );
      expect(new Set(detail.pages.map((page) => page.url)).size).toBe(paths.length);
      const after = await call<{ nextRunAt: string; lastRunAt: string }>(
        'GET',
        `/v2/monitor/${monitor.id}`,
      );
      expect(Date.parse(after.nextRunAt)).toBeGreaterThan(Date.parse(planned));
    } finally {
      server.child.kill('SIGTERM');
    }
  }, 120_000);
});
