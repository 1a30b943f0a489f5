/**
 * Monitors report what changed, as a user of a real `trawl serve` sees it:
 * a copyright-year edit is a change (judged not meaningful against a price goal, not hidden as
 * `same`); "$9 → $12 per month" is meaningful for a goal about prices with no LLM; a site without
 * a sitemap makes no page errors; an e-mail describes at most five changed pages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChangingSite, type ChangingSite } from '../fixture-site/changing-site.ts';
import { startSmtpReceiver, type SmtpReceiver } from '../fakes/smtp-receiver.ts';
import { startServe, type ServeProcess } from './serve-process.ts';

const key = 'fc-monitor-judging';

interface Check {
  id: string;
  status: string;
  error: string | null;
  summary: { totalPages: number; same: number; new: number; changed: number; error: number };
}
interface CheckPage {
  url: string;
  status: string;
  diff: { text?: string } | null;
  judgment: { meaningful: boolean; reason: string } | null;
}
interface CheckDetail extends Check {
  pages: CheckPage[];
}

let site: ChangingSite;
let bare: ChangingSite;
let smtp: SmtpReceiver;
let server: ServeProcess;

beforeAll(async () => {
  site = await startChangingSite();
  bare = await startChangingSite({ '/a': { title: 'A', text: 'Page A' } }, { sitemap: false });
  smtp = await startSmtpReceiver();
  server = await startServe({
    TRAWL_API_KEYS: key,
    TRAWL_ALLOW_PRIVATE_ADDRESSES: 'true',
    TRAWL_SMTP_URL: smtp.url,
  });
}, 90_000);
afterAll(async () => {
  await server.stop();
  await Promise.all([site.close(), bare.close(), smtp.close()]);
});

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000),
  });
  const answer = (await response.json()) as { data: T };
  expect(response.status, JSON.stringify(answer)).toBe(200);
  return answer.data;
}

/** Runs a check of the monitor and polls it (bounded) until it has finished. */
async function runCheck(monitorId: string): Promise<CheckDetail> {
  // A finished check may still hold the monitor while its digest e-mail goes out (409): retry.
  let started: Check | undefined;
  for (let attempt = 0; attempt < 400 && !started; attempt++) {
    const response = await fetch(`${server.url}/v2/monitor/${monitorId}/run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{}',
      signal: AbortSignal.timeout(30_000),
    });
    const answer = (await response.json()) as { data: Check };
    if (response.status === 200) started = answer.data;
    else if (response.status === 409) await new Promise((resolve) => setTimeout(resolve, 25));
    else throw new Error(`run answered ${response.status}: ${JSON.stringify(answer)}`);
  }
  if (!started) throw new Error(`monitor ${monitorId} stayed busy`);
  for (let attempt = 0; attempt < 1200; attempt++) {
    const check = await call<CheckDetail>(
      'GET',
      `/v2/monitor/${monitorId}/checks/${started.id}?limit=100`,
    );
    if (!['queued', 'running'].includes(check.status)) return check;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`check ${started.id} of ${monitorId} did not finish`);
}

const scrapeMonitor = (paths: string[], extra: Record<string, unknown> = {}) =>
  call<{ id: string }>('POST', '/v2/monitor', {
    name: 'Judging',
    schedule: { text: 'every day at 9am' },
    targets: [{ type: 'scrape', urls: paths.map((path) => `${site.url}${path}`) }],
    ...extra,
  });

describe('monitor judging on a real server', () => {
  it('reports a copyright-year edit as changed, judged not meaningful for a price goal', async () => {
    site.set('/about', { title: 'About', text: 'We sell tea.\nAcme Tea Ltd. © 2025' });
    const monitor = await scrapeMonitor(['/about'], { goal: 'price changes on the pricing page' });
    await runCheck(monitor.id);
    site.set('/about', { title: 'About', text: 'We sell tea.\nAcme Tea Ltd. © 2026' });
    const check = await runCheck(monitor.id);
    expect(check.summary).toMatchObject({ changed: 1, same: 0 });
    const [page] = check.pages;
    expect(page?.diff?.text).toContain('© 2026');
    expect(page?.judgment?.meaningful).toBe(false);
  });

  it("judges '$9 → $12 per month' meaningful for a goal about prices, without an LLM", async () => {
    site.set('/pricing', { title: 'Pricing', text: 'Basic plan\n$9 per month' });
    const monitor = await scrapeMonitor(['/pricing'], {
      goal: 'price changes on the pricing page',
    });
    await runCheck(monitor.id);
    site.set('/pricing', { title: 'Pricing', text: 'Basic plan\n$12 per month' });
    const check = await runCheck(monitor.id);
    expect(check.pages[0]).toMatchObject({ status: 'changed', judgment: { meaningful: true } });
  });

  it('counts no page error for the sitemap of a site that has none', async () => {
    const monitor = await call<{ id: string }>('POST', '/v2/monitor', {
      name: 'No sitemap',
      schedule: { text: 'every day at 9am' },
      targets: [{ type: 'crawl', url: `${bare.url}/`, crawlOptions: { limit: 20 } }],
    });
    const check = await runCheck(monitor.id);
    expect(bare.hits('/sitemap.xml')).toBeGreaterThan(0);
    expect(check).toMatchObject({ status: 'completed', summary: { error: 0, totalPages: 2 } });
  });

  it('mails at most five diffs and lists every changed page', async () => {
    const paths = Array.from({ length: 8 }, (_, index) => `/plan-${index}`);
    for (const [index, path] of paths.entries())
      site.set(path, { title: `Plan ${index}`, text: `Plan ${index} costs ${10 + index} EUR` });
    const monitor = await scrapeMonitor(paths, {
      notification: {
        email: { enabled: true, recipients: ['ops@example.com'], includeDiffs: true },
      },
    });
    await runCheck(monitor.id);
    for (const [index, path] of paths.entries())
      site.set(path, { title: `Plan ${index}`, text: `Plan ${index} costs ${20 + index} EUR` });
    const check = await runCheck(monitor.id);
    expect(check.summary.changed).toBe(8);
    // The first check's digest (eight new pages) may arrive too; take the one of the changes.
    const digest = async (): Promise<string> => {
      for (let attempt = 0; attempt < 800; attempt++) {
        const mail = smtp.messages.find((message) => /costs 2\d EUR/.test(message.text ?? ''));
        if (mail) return mail.text ?? '';
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error('no digest of the changed pages arrived');
    };
    const body = await digest();
    const diffs = body.match(/^\+Plan \d costs/gm) ?? [];
    expect(diffs.length).toBe(5);
    expect(body.match(/^CHANGED: /gm)).toHaveLength(8);
    expect(body).toMatch(/Diffs of the first 5 pages only/);
  });
});
