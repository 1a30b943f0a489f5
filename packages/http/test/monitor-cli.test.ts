/**
 * `trawl monitor` in-process against a site whose pages change: create, list, run (printing what
 * changed), checks and a check's pages, JSON output, and usage errors.
 */
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '@trawl/http';
import { startChangingSite, type ChangingSite } from '../../../test/fixture-site/changing-site.ts';

let site: ChangingSite;
const env = { TRAWL_DATA_DIR: mkdtempSync(join(tmpdir(), 'trawl-monitor-cli-')) };
beforeAll(async () => {
  site = await startChangingSite({ '/offers': { title: 'Offers', text: 'Ten percent off' } });
});
afterAll(() => site.close());

async function trawl(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['monitor', ...args], {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    env,
  });
  return { code, stdout, stderr };
}

describe('trawl monitor', () => {
  it('creates, lists, runs and reads checks of a monitor', async () => {
    const created = await trawl(
      'create',
      '--name',
      'Offers',
      '--schedule',
      'weekdays at 18:30',
      '--json',
      `${site.url}/offers`,
    );
    expect(created.code).toBe(0);
    const monitor = JSON.parse(created.stdout) as { id: string; schedule: { cron: string } };
    expect(monitor.schedule.cron).toBe('30 18 * * 1-5');

    const listed = await trawl('list');
    expect(listed.stdout).toContain(`${monitor.id}\tOffers\tactive\t30 18 * * 1-5 UTC`);

    const first = await trawl('run', monitor.id);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/completed: 1 pages — 0 changed, 1 new/);
    expect(first.stdout).toContain(`  new\t${site.url}/offers`);

    site.set('/offers', { title: 'Offers', text: 'Twenty percent off' });
    const second = await trawl('run', monitor.id);
    expect(second.stdout).toContain(`  changed\t${site.url}/offers`);
    // The text output shows what changed, not only that something did.
    expect(second.stdout).toMatch(/^ {4}\+Twenty percent off$/m);
    expect(second.stdout).toMatch(/^ {4}-Ten percent off$/m);
    const checkId = second.stdout.split('\t')[0] ?? '';

    const checks = await trawl('checks', monitor.id);
    expect(checks.stdout.split('\n').filter(Boolean)).toHaveLength(2);
    expect(checks.stdout.startsWith(checkId)).toBe(true);
    const pages = await trawl('checks', monitor.id, checkId, '--json');
    expect(JSON.parse(pages.stdout)).toMatchObject({
      id: checkId,
      pages: [
        {
          status: 'changed',
          diff: { text: expect.stringContaining('+Twenty percent off') as unknown },
        },
      ],
    });
  });

  it('watches a whole site with --crawl', async () => {
    const created = await trawl(
      'create',
      '--name',
      'Site',
      '--schedule',
      '0 6 * * *',
      '--crawl',
      '--limit',
      '20',
      '--json',
      `${site.url}/`,
    );
    const monitor = JSON.parse(created.stdout) as {
      id: string;
      targets: { type: string; crawlOptions: unknown }[];
    };
    expect(monitor.targets).toMatchObject([{ type: 'crawl', crawlOptions: { limit: 20 } }]);
    expect((await trawl('run', monitor.id)).stdout).toMatch(/2 pages — 0 changed, 2 new/);
  });

  it('sends the monitor’s webhook events for a check run from the command line', async () => {
    const events: string[] = [];
    const receiver = createServer((req, res) => {
      events.push(String(req.headers['x-firecrawl-event']));
      req.resume().on('end', () => res.writeHead(200).end());
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const created = await trawl(
        'create',
        '--name',
        'Hooked',
        '--schedule',
        'daily',
        '--webhook',
        hook,
        '--json',
        `${site.url}/offers`,
      );
      const monitor = JSON.parse(created.stdout) as { id: string };
      expect((await trawl('run', monitor.id)).code).toBe(0);
      expect(events).toEqual(['monitor.page', 'monitor.check.completed']);
    } finally {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  it('pauses, resumes and deletes a monitor', async () => {
    const created = await trawl(
      'create',
      '--name',
      'Short',
      '--schedule',
      'daily',
      '--json',
      `${site.url}/offers`,
    );
    const { id } = JSON.parse(created.stdout) as { id: string };
    const paused = await trawl('pause', id);
    expect(paused.code).toBe(0);
    expect(paused.stdout).toContain(`${id}\tShort\tpaused`);
    expect((await trawl('run', id)).stderr).toMatch(/paused/);
    expect((await trawl('resume', id)).stdout).toContain(`${id}\tShort\tactive`);
    const deleted = await trawl('delete', id);
    expect(deleted).toMatchObject({ code: 0, stderr: `Monitor ${id} deleted.\n` });
    expect((await trawl('list')).stdout).not.toContain(id);
    expect((await trawl('delete', id)).stderr).toMatch(/Monitor not found/);
  });

  it('explains what is missing or wrong', async () => {
    expect((await trawl('create', '--schedule', 'daily', `${site.url}/x`)).stderr).toMatch(
      /--name/,
    );
    expect(
      (await trawl('create', '--name', 'x', '--schedule', 'every 7 minutes', `${site.url}/x`))
        .stderr,
    ).toMatch(/Try phrases like/);
    expect((await trawl('run', crypto.randomUUID())).stderr).toMatch(/Monitor not found/);
    expect((await trawl('frobnicate')).code).not.toBe(0);
  });
});
