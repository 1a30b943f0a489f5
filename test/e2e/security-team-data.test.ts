/**
 * Data belongs to a team, attacked as the second security pass did, against `trawl serve` as a
 * process with two teams' keys. Team A reads a private site of its own: a payroll page behind an
 * Authorization header, a members' page behind a user name and password in the URL, a share link
 * it later revokes, a public page. Team B then tries to get at any of it: through the built-in
 * search (plain, and with `scrapeOptions`), through its agent's search tool, through the page
 * cache (`lockdown`, `minAge`, `cacheState`), and by replaying A's signed webhooks to its own
 * receiver. A's own reads are the control: each attack fails for B while A still gets its data.
 */
import { execFile } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultsOf, use } from '../fakes/agent-model.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/openai-server.ts';
import { until } from '../fakes/webhook-receiver.ts';
import { startServe, type ServeProcess } from './serve-process.ts';

const keyA = 'fc-teamdata-team-a';
const keyB = 'fc-teamdata-team-b';
const webhookSecret = 'whsec-teamdata-server';
const payrollAuth = 'Bearer payroll-reader-7c1';
const memberPassword = 'hunter2-in-the-url';
const sharePath = '/share/9f8e7d6c5b4a';

/** What the private site was asked, and the deliveries its webhook receivers got. */
interface Delivery {
  path: string;
  event: string;
  signature: string;
  raw: string;
}

let shareRevoked = false;
const deliveries: Delivery[] = [];
let site: Server;
let siteUrl = '';
let fake: FakeOpenAi;
let server: ServeProcess;
/** Team A's own scrape answer of the members' page (the URL it sent held a password). */
let membersAnswer = '';

const page = (title: string, text: string) =>
  `<!doctype html><html lang="en"><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${text}</p><p>${text}</p></main></body></html>`;

function answer(request: IncomingMessage, status: number, html = ''): [number, string] {
  request.resume();
  return [status, html];
}

/** Team A's site: what each path serves, and to whom. */
function route(request: IncomingMessage): [number, string] {
  const path = request.url ?? '/';
  if (path === '/private/payroll') {
    return request.headers.authorization === payrollAuth
      ? answer(request, 200, page('Payroll', 'quartermaster salary ledger zebrafinch'))
      : answer(request, 401);
  }
  // Served to anyone: what matters is the password A put in the URL, wherever it is kept.
  if (path === '/members') return answer(request, 200, page('Members area', 'roster kingfisher'));
  if (path === sharePath) {
    return shareRevoked
      ? answer(request, 404, page('Gone', 'This link was revoked'))
      : answer(request, 200, page('Shared plan', 'confidential merger plan osprey'));
  }
  if (path === '/public/launch')
    return answer(request, 200, page('Launch notes', 'launch pelican'));
  return answer(request, 404);
}

function receive(request: IncomingMessage, done: () => void): void {
  let raw = '';
  request.setEncoding('utf8').on('data', (chunk: string) => (raw += chunk));
  request.on('end', () => {
    deliveries.push({
      path: request.url ?? '',
      event: String(request.headers['x-firecrawl-event']),
      signature: String(request.headers['x-firecrawl-signature'] ?? '').replace(/^sha256=/, ''),
      raw,
    });
    done();
  });
}

/** An answer's JSON, by the fields these tests read. */
interface Answer {
  code?: string;
  id?: string;
  status?: string;
  data: {
    id?: string;
    status?: string;
    markdown?: string;
    metadata: { statusCode?: number; cacheState?: string };
  };
}

async function api(key: string, path: string, body?: unknown) {
  const response = await fetch(`${server.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Answer };
}

const scrape = (key: string, body: Record<string, unknown>) => api(key, '/v2/scrape', body);

/** The whole answer of a search of the built-in index, as text. */
async function searchText(key: string, query: string, more: Record<string, unknown> = {}) {
  const found = await api(key, '/v2/search', { query, sources: ['web'], limit: 10, ...more });
  expect(found.status).toBe(200);
  return JSON.stringify(found.body);
}

/** The key `trawl keys webhook-secret` gives a team's receivers, from the server's own CLI. */
async function receiverKeyOf(team: string): Promise<string> {
  const bin = join(import.meta.dirname, '../../packages/http/src/bin.ts');
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--conditions=development', bin, 'keys', 'webhook-secret', '--team', team],
    {
      env: { ...process.env, TRAWL_DATA_DIR: server.dataDir, TRAWL_WEBHOOK_SECRET: webhookSecret },
    },
  );
  return stdout.trim();
}

const signedBy = (key: string, delivery: Delivery) => {
  const expected = Buffer.from(createHmac('sha256', key).update(delivery.raw).digest('hex'), 'hex');
  const given = Buffer.from(delivery.signature, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
};

beforeAll(async () => {
  site = createServer((request, response) => {
    if (request.method === 'POST' && request.url?.startsWith('/hook/')) {
      receive(request, () => response.writeHead(200).end());
      return;
    }
    const [status, html] = route(request);
    response.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  fake = await startFakeOpenAi();
  server = await startServe({
    TRAWL_API_KEYS: `team-a:${keyA},team-b:${keyB}`,
    TRAWL_ALLOW_PRIVATE_ADDRESSES: 'true',
    TRAWL_WEBHOOK_SECRET: webhookSecret,
    TRAWL_LLM_BASE_URL: fake.baseUrl,
    TRAWL_LLM_MODEL: 'fake-agent',
  });

  // Team A's reads, each a success: the data exists, and the attacks below are after it.
  const payroll = await scrape(keyA, {
    url: `${siteUrl}/private/payroll`,
    headers: { Authorization: payrollAuth },
  });
  expect(payroll.body.data.markdown).toContain('zebrafinch');
  const members = await scrape(keyA, {
    url: siteUrl.replace('http://', `http://alice:${memberPassword}@`) + '/members',
  });
  expect(members.body.data.markdown).toContain('kingfisher');
  membersAnswer = JSON.stringify(members.body);
  const share = await scrape(keyA, { url: `${siteUrl}${sharePath}` });
  expect(share.body.data.markdown).toContain('osprey');
  const launch = await scrape(keyA, { url: `${siteUrl}/public/launch` });
  expect(launch.body.data.markdown).toContain('pelican');
  shareRevoked = true;
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await fake?.close();
  await new Promise<void>((resolve) => (site ? site.close(() => resolve()) : resolve()));
});

describe("another team's search", () => {
  it("finds nothing of a page A fetched with its Authorization header (nor does A's: it is not indexed)", async () => {
    expect(await searchText(keyB, 'zebrafinch salary')).not.toMatch(/payroll|zebrafinch/i);
    expect(await searchText(keyA, 'zebrafinch salary')).not.toMatch(/payroll|zebrafinch/i);
  });

  it('never sees a URL A sent with a user name and password, nor the page behind it', async () => {
    expect(membersAnswer).toContain('kingfisher');
    expect(membersAnswer).not.toContain(memberPassword);
    const seenByB = await searchText(keyB, 'kingfisher members roster');
    expect(seenByB).not.toContain(memberPassword);
    expect(seenByB).not.toMatch(/members|kingfisher/i);
    expect(await searchText(keyA, 'kingfisher members roster')).not.toContain(memberPassword);
  });

  it("gets no text of A's revoked share link, not even by scraping the results", async () => {
    const scraped = await searchText(keyB, 'osprey merger plan', {
      scrapeOptions: { formats: ['markdown'] },
    });
    expect(scraped).not.toMatch(/osprey|merger/i);
    expect(scraped).not.toContain(sharePath);
    // Given the link some other way, B gets what the site answers now, not A's cached copy.
    const direct = await scrape(keyB, { url: `${siteUrl}${sharePath}` });
    expect(direct.body.data.metadata.statusCode).toBe(404);
    expect(direct.body.data.markdown).not.toMatch(/osprey/);
    // The control: A still finds its own page.
    expect(await searchText(keyA, 'osprey merger plan')).toContain(sharePath);
  });

  it("is its own in B's agent: the search tool shows B none of A's pages", async () => {
    const seen = async (key: string) => {
      fake.requests.length = 0;
      fake.respond = (request) => {
        const last = resultsOf(request).at(-1);
        if (!last) return use('search', { query: 'pelican launch notes' });
        return use('finish', { answer: { seen: last.content.slice(0, 200) } });
      };
      const started = await api(key, '/v2/agent', { prompt: 'What are the launch notes?' });
      expect(started.status).toBe(200);
      for (let polls = 0; polls < 300; polls++) {
        const run = await api(key, `/v2/agent/${String(started.body.id)}`);
        if (run.body.status !== 'processing') break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const searches = fake.requests.flatMap((request) =>
        resultsOf(request.body).filter((result) => result.tool === 'search'),
      );
      expect(searches.length).toBeGreaterThan(0);
      return searches.map((result) => result.content).join('\n');
    };
    expect(await seen(keyB)).not.toContain('/public/launch');
    expect(await seen(keyA)).toContain('/public/launch');
  });
});

describe("another team's search monitor", () => {
  it("finds none of A's pages; A's own monitor finds them", async () => {
    const found = async (key: string) => {
      const created = await api(key, '/v2/monitor', {
        name: 'Launch watch',
        schedule: { text: 'hourly' },
        targets: [{ type: 'search', queries: ['pelican launch'] }],
        goal: 'launch notes',
        judgeEnabled: false,
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const id = String(created.body.data.id);
      const run = await api(key, `/v2/monitor/${id}/run`, {});
      expect(run.status).toBe(200);
      for (let polls = 0; polls < 300; polls++) {
        const check = await api(key, `/v2/monitor/${id}/checks/${String(run.body.id)}`);
        if (!['queued', 'running'].includes(String(check.body.data.status)))
          return JSON.stringify(check.body.data);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error('the check did not end');
    };
    expect(await found(keyB)).not.toContain('/public/launch');
    expect(await found(keyA)).toContain('/public/launch');
  });
});

describe("another team's page cache", () => {
  it('does not tell B, by lockdown, minAge or cacheState, which URLs A scraped', async () => {
    const url = `${siteUrl}/public/launch`;
    const locked = await scrape(keyB, { url, lockdown: true });
    expect(locked.status).toBe(404);
    expect(locked.body.code).toBe('SCRAPE_LOCKDOWN_CACHE_MISS');
    const aged = await scrape(keyB, { url, minAge: 1 });
    expect(aged.status).toBe(404);
    expect(aged.body.code).toBe('SCRAPE_NO_CACHED_DATA');
    const fresh = await scrape(keyB, { url });
    expect(fresh.body.data.metadata.cacheState).toBe('miss');
    // The control: A's own lockdown is served from A's cache.
    const own = await scrape(keyA, { url, lockdown: true });
    expect(own.status).toBe(200);
    expect(own.body.data.metadata.cacheState).toBe('hit');
  });
});

describe('webhook signatures', () => {
  it("of A's events do not verify at B's receiver: a replay is refused", async () => {
    const crawlOf = async (key: string, hook: string) => {
      const started = await api(key, '/v2/crawl', {
        url: `${siteUrl}/public/launch`,
        limit: 1,
        webhook: { url: `${siteUrl}/hook/${hook}`, metadata: { chosenBy: hook }, events: ['page'] },
      });
      expect(started.status).toBe(200);
      await until(
        () => deliveries.some((delivery) => delivery.path === `/hook/${hook}`),
        60_000,
        `the crawl.page event of ${hook}`,
      );
      return deliveries.find((delivery) => delivery.path === `/hook/${hook}`)!;
    };
    const [ofA, ofB] = [await crawlOf(keyA, 'a'), await crawlOf(keyB, 'b')];
    // One key for every team was the attack: the server's secret verified any team's events.
    expect(ofA.signature).toMatch(/^[0-9a-f]{64}$/);
    expect(signedBy(webhookSecret, ofA)).toBe(false);
    const [keyOfA, keyOfB] = [await receiverKeyOf('team-a'), await receiverKeyOf('team-b')];
    // Each receiver verifies its own team's events with the key it was given...
    expect(signedBy(keyOfA, ofA)).toBe(true);
    expect(signedBy(keyOfB, ofB)).toBe(true);
    // ...and A's event, with A's chosen content, replayed to B's receiver, does not verify.
    expect(signedBy(keyOfB, ofA)).toBe(false);
  });
});
