/**
 * Monitors never lose a change: `trawl serve` is killed with SIGKILL in the middle of
 * a check whose pages all changed — after it has recorded some of them `changed`, while the
 * others are still loading — and started again on the same data folder. The interrupted check
 * is closed as failed, and the next check reports every changed page `changed` exactly once;
 * the one after reports them all `same`. Before, the killed check had already moved the
 * baselines of the pages it saw, so the next check called them `same` and those changes were
 * never reported by any finished check.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChangingSite, type ChangingSite } from '../fixture-site/changing-site.ts';
import { startServe } from './serve-process.ts';

const key = 'fc-monitor-durability';
const paths = ['/p0', '/p1', '/p2', '/p3', '/p4', '/p5'];
/** Pages that answer at once during the check that gets killed; the others wait. */
const fast = new Set(['/p0', '/p1']);

let site: ChangingSite;
beforeAll(async () => {
  site = await startChangingSite();
});
afterAll(() => site.close());

/** Starts `trawl serve` on `dataDir` and resolves once it listens. */
async function serve(dataDir: string): Promise<{ child: ChildProcess; api: string }> {
  const server = await startServe({
    TRAWL_DATA_DIR: dataDir,
    TRAWL_API_KEYS: key,
    TRAWL_ALLOW_PRIVATE_ADDRESSES: 'true',
  });
  return { child: server.child, api: server.url };
}

interface Check {
  id: string;
  status: string;
  error: string | null;
  summary: { totalPages: number; same: number; new: number; changed: number; error: number };
}
interface CheckDetail extends Check {
  pages: { url: string; status: string }[];
}

describe('a monitor check killed with SIGKILL while its changed pages load', () => {
  it('reports every changed page changed exactly once after the restart', async () => {
    for (const [index, path] of paths.entries())
      site.set(path, { title: `Plan ${index}`, text: `Plan ${index} costs ${10 + index} EUR` });
    const dataDir = mkdtempSync(join(tmpdir(), 'trawl-monitor-durability-'));
    let server = await serve(dataDir);
    const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
      const response = await fetch(`${server.api}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const answer = (await response.json()) as { data: T };
      expect(response.status, JSON.stringify(answer)).toBe(200);
      return answer.data;
    };
    /** Polls a check (bounded) until `done` says so. */
    const waitFor = async (
      monitorId: string,
      checkId: string,
      done: (check: CheckDetail) => boolean,
    ): Promise<CheckDetail> => {
      let check: CheckDetail | undefined;
      for (let attempt = 0; attempt < 600; attempt++) {
        check = await call<CheckDetail>(
          'GET',
          `/v2/monitor/${monitorId}/checks/${checkId}?limit=100`,
        );
        if (done(check)) return check;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`check ${checkId} never got there: ${JSON.stringify(check)}`);
    };
    const finished = (check: Check) => !['queued', 'running'].includes(check.status);
    const runToEnd = async (monitorId: string) => {
      const started = await call<Check>('POST', `/v2/monitor/${monitorId}/run`, {});
      return waitFor(monitorId, started.id, finished);
    };
    try {
      const monitor = await call<{ id: string }>('POST', '/v2/monitor', {
        name: 'Durability',
        schedule: { text: 'every day at 9am' },
        targets: [{ type: 'scrape', urls: paths.map((path) => `${site.url}${path}`) }],
      });
      const first = await runToEnd(monitor.id);
      expect(first).toMatchObject({ status: 'completed', summary: { new: paths.length } });

      // Every price changes; only two pages answer before the kill, the others hang on.
      for (const [index, path] of paths.entries())
        site.set(path, {
          title: `Plan ${index}`,
          text: `Plan ${index} costs ${20 + index} EUR`,
          ...(fast.has(path) ? {} : { delayMs: 15_000 }),
        });
      const started = await call<Check>('POST', `/v2/monitor/${monitor.id}/run`, {});
      const seen = await waitFor(
        monitor.id,
        started.id,
        (check) => check.pages.filter((page) => page.status === 'changed').length >= fast.size,
      );
      expect(seen.status).toBe('running');
      const killed = new Promise((resolve) => server.child.once('exit', resolve));
      server.child.kill('SIGKILL');
      await killed;

      for (const [index, path] of paths.entries())
        site.set(path, { title: `Plan ${index}`, text: `Plan ${index} costs ${20 + index} EUR` });
      server = await serve(dataDir);
      const closed = await call<Check>('GET', `/v2/monitor/${monitor.id}/checks/${started.id}`);
      expect(closed.status).toBe('failed');
      expect(closed.error).toMatch(/interrupted/);

      const next = await runToEnd(monitor.id);
      expect(next).toMatchObject({
        status: 'completed',
        summary: { totalPages: paths.length, changed: paths.length, same: 0 },
      });
      const changedUrls = next.pages
        .filter((page) => page.status === 'changed')
        .map((page) => new URL(page.url).pathname);
      expect(changedUrls.sort()).toEqual(paths);

      const after = await runToEnd(monitor.id);
      expect(after.summary).toMatchObject({ same: paths.length, changed: 0 });

      // Across every check that finished, each page was reported changed exactly once.
      const checks = await call<Check[]>('GET', `/v2/monitor/${monitor.id}/checks?limit=100`);
      const reported = new Map<string, number>();
      for (const check of checks.filter((entry) => entry.status !== 'failed')) {
        const detail = await call<CheckDetail>(
          'GET',
          `/v2/monitor/${monitor.id}/checks/${check.id}?limit=100`,
        );
        for (const page of detail.pages.filter((entry) => entry.status === 'changed')) {
          const path = new URL(page.url).pathname;
          reported.set(path, (reported.get(path) ?? 0) + 1);
        }
      }
      expect(Object.fromEntries(reported)).toEqual(
        Object.fromEntries(paths.map((path) => [path, 1])),
      );
    } finally {
      server.child.kill('SIGTERM');
    }
  }, 120_000);
});
