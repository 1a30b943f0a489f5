/**
 * Monitor checks and credits on a server with TRAWL_TEAM_CREDITS: each check is debited the pages
 * it scraped (in the credits ledger, as `GET /v2/team/credit-usage` shows), and once the team has
 * nothing left, creating, changing and running monitors answer 402.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveEngineConfig, SqliteStore } from '@trawl/core';
import { ApiKeys, buildServer } from '@trawl/http';
import { startChangingSite, type ChangingSite } from '../fixture-site/changing-site.ts';

let site: ChangingSite;
let api: string;
let close: () => Promise<void>;

beforeAll(async () => {
  site = await startChangingSite({
    '/one': { title: 'One', text: 'First' },
    '/two': { title: 'Two', text: 'Second' },
  });
  const store = new SqliteStore({
    path: join(mkdtempSync(join(tmpdir(), 'trawl-monitor-credits-')), 'trawl.db'),
  });
  const app = buildServer({
    store,
    config: resolveEngineConfig({ allowPrivateAddresses: true }),
    keys: ApiKeys.parse(undefined),
    logLevel: 'silent',
    limits: { teamCredits: 5 },
  });
  api = await app.listen({ port: 0, host: '127.0.0.1' });
  close = async () => {
    await app.close();
    await store.close();
  };
});
afterAll(async () => {
  await close();
  await site.close();
});

interface Answer {
  id?: string;
  success?: boolean;
  code?: string;
  data: Record<string, unknown> & {
    id: string;
    status: string;
    billingStatus: string;
    remainingCredits: number;
    estimatedCreditsPerMonth: number;
  };
}

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`${api}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Answer };
}

async function runAndWait(monitorId: string) {
  const started = await call('POST', `/v2/monitor/${monitorId}/run`, {});
  expect(started.status).toBe(200);
  for (let attempt = 0; attempt < 200; attempt++) {
    const check = await call('GET', `/v2/monitor/${monitorId}/checks/${started.body['id']}`);
    if (
      !['queued', 'running'].includes(check.body['data']['status']) &&
      check.body['data']['billingStatus'] !== 'reserved'
    )
      return check.body['data'];
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the check did not end');
}

const remaining = async () =>
  (await call('GET', '/v2/team/credit-usage')).body['data']['remainingCredits'];

describe('monitor credits', () => {
  it('debits each check its pages, and refuses monitor calls once the credits are spent', async () => {
    const created = await call('POST', '/v2/monitor', {
      name: 'Paid',
      schedule: { text: 'daily' },
      targets: [{ type: 'scrape', urls: [`${site.url}/one`, `${site.url}/two`] }],
    });
    expect(created.status).toBe(200);
    const id = created.body['data']['id'];
    expect(created.body['data']['estimatedCreditsPerMonth']).toBe(60);

    const first = await runAndWait(id);
    expect(first).toMatchObject({
      status: 'completed',
      actualCredits: 2,
      billingStatus: 'confirmed',
    });
    expect(await remaining()).toBe(3);
    await runAndWait(id);
    expect(await remaining()).toBe(1);
    await runAndWait(id);
    expect(await remaining()).toBe(0);

    const run = await call('POST', `/v2/monitor/${id}/run`, {});
    expect(run).toMatchObject({ status: 402, body: { success: false, code: 'PAYMENT_REQUIRED' } });
    expect((await call('PATCH', `/v2/monitor/${id}`, { name: 'Renamed' })).status).toBe(402);
    expect(
      (
        await call('POST', '/v2/monitor', {
          name: 'Another',
          schedule: { text: 'daily' },
          targets: [{ type: 'scrape', urls: [`${site.url}/one`] }],
        })
      ).status,
    ).toBe(402);
    // Reading and deleting stay free.
    expect((await call('GET', `/v2/monitor/${id}/checks`)).body['data']).toHaveLength(3);
    expect((await call('DELETE', `/v2/monitor/${id}`)).status).toBe(200);
  });
});
