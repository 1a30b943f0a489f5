/**
 * What the official SDKs send and read that the JS SDK suite does not exercise, on a real
 * `trawl serve`: the keys firecrawl-py and the JS SDK put in every body (`fastMode`, `useMock`,
 * threat-protection and audit tags, the hosted tools catalogue), DELETE and GET with a JSON
 * content type and no body, `proxyUsed` inside the SDKs' types, the watcher of a finished crawl,
 * `sources: ["local"]`, and the hosted-only indexes.
 */
import Firecrawl from '@mendable/firecrawl-js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import WebSocket from 'ws';
import { startFakeSearx, type FakeSearx } from '../fakes/searxng-server.ts';
import { startServe, type ServeProcess } from './serve-process.ts';

const site = inject('fixtureUrl');
const key = 'fc-compat-key';

/** Every scrape-option key the official SDKs send that the engine has no use for. */
const sdkOnlyKeys = {
  fastMode: false,
  useMock: 'none',
  safeMode: false,
  domainTools: false,
  toolDetail: 'summary',
  threatProtection: { mode: 'off' },
  auditMetadata: { username: 'someone' },
};

let server: ServeProcess;
let searx: FakeSearx;
let firecrawl: Firecrawl;

/** The parts of the answers the tests read. */
interface Answer {
  success?: boolean;
  id: string;
  status?: string;
  code?: string;
  error?: string;
  data: { markdown: string; metadata: object; web: { url: string }[] };
}

/** A request as firecrawl-py sends it: always `Content-Type: application/json`. */
async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(60_000),
  });
  return { status: response.status, body: (await response.json()) as Answer };
}

beforeAll(async () => {
  searx = await startFakeSearx();
  server = await startServe({
    TRAWL_API_KEYS: `team-c:${key}`,
    TRAWL_ALLOW_PRIVATE_ADDRESSES: 'true',
    TRAWL_SEARXNG_URL: searx.url,
  });
  firecrawl = new Firecrawl({ apiKey: key, apiUrl: server.url });
}, 60_000);
afterAll(async () => {
  await server.stop();
  await searx.close();
});

describe('keys the official SDKs send', () => {
  it('scrape takes them, and answers proxyUsed inside the SDK types', async () => {
    const answer = await call('POST', '/v2/scrape', {
      url: `${site}/docs/configuration.html`,
      formats: ['markdown'],
      ...sdkOnlyKeys,
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data.markdown).toContain('Configuration reference');
    expect(answer.body.data.metadata).toMatchObject({ proxyUsed: 'basic', fetchedVia: 'direct' });
  });

  it('batch scrape, crawl scrapeOptions, map and parse take them', async () => {
    const batch = await call('POST', '/v2/batch/scrape', {
      urls: [`${site}/docs/install.html`],
      ...sdkOnlyKeys,
    });
    expect(batch.status).toBe(200);
    const crawl = await call('POST', '/v2/crawl', {
      url: `${site}/docs/install.html`,
      limit: 1,
      scrapeOptions: sdkOnlyKeys,
    });
    expect(crawl.status).toBe(200);
    const map = await call('POST', '/v2/map', {
      url: `${site}/`,
      threatProtection: { mode: 'off' },
      auditMetadata: { username: 'someone' },
    });
    expect(map.status).toBe(200);
    const form = new FormData();
    form.append('file', new Blob(['<h1>Parsed title</h1>'], { type: 'text/html' }), 'a.html');
    form.append('options', JSON.stringify({ formats: ['markdown'], ...sdkOnlyKeys }));
    const parsed = await fetch(`${server.url}/v2/parse`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    expect(parsed.status).toBe(200);
    expect(((await parsed.json()) as { data: { markdown: string } }).data.markdown).toContain(
      '# Parsed title',
    );
  });

  it('the OpenAPI document marks them as ignored', async () => {
    const document = (await call('GET', '/v2/openapi.json')).body;
    expect(JSON.stringify(document)).toMatch(/"fastMode":\{[^}]*"description":"[^"]*ignored/);
  });
});

describe('bodiless requests with a JSON content type', () => {
  it('cancels a crawl with DELETE and reads it with GET, neither with a body', async () => {
    const started = await call('POST', '/v2/crawl', { url: `${site}/`, limit: 50, delay: 1 });
    const read = await call('GET', `/v2/crawl/${started.body.id}`);
    expect(read.status).toBe(200);
    const cancelled = await call('DELETE', `/v2/crawl/${started.body.id}`);
    expect(cancelled).toEqual({ status: 200, body: { success: true, status: 'cancelled' } });
  });
});

describe('the watcher of a finished crawl', () => {
  it('carries the finished pages in the first catchup', async () => {
    const crawled = await firecrawl.crawl(`${site}/docs/`, { limit: 3, pollInterval: 1 });
    expect(crawled.status).toBe('completed');
    expect(crawled.data.length).toBeGreaterThan(1);
    const started = await call('POST', '/v2/crawl', { url: `${site}/docs/`, limit: 3 });
    await waitFinished(started.body.id);

    const socket = new WebSocket(
      `${server.url.replace('http', 'ws')}/v2/crawl/${started.body.id}`,
      {
        headers: { authorization: `Bearer ${key}` },
      },
    );
    const first = await new Promise<{ type: string; data: { status: string; data: unknown[] } }>(
      (resolve, reject) => {
        socket.once('message', (raw: Buffer) => resolve(JSON.parse(raw.toString('utf8')) as never));
        socket.once('error', reject);
      },
    );
    socket.close();
    expect(first.type).toBe('catchup');
    expect(first.data.status).toBe('completed');
    expect(first.data.data).toHaveLength(crawled.data.length);

    // The SDK's watcher stops at that catchup; it must have every page by then.
    const watcher = firecrawl.watcher(started.body.id, { kind: 'crawl', pollInterval: 1 });
    const urls: string[] = [];
    watcher.on('document', (doc: { metadata?: { sourceURL?: string } }) =>
      urls.push(doc.metadata?.sourceURL ?? ''),
    );
    const done = new Promise((resolve) => watcher.on('done', resolve));
    await watcher.start();
    await done;
    watcher.close();
    expect(new Set(urls).size).toBe(crawled.data.length);
  });
});

async function waitFinished(id: string): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    if ((await call('GET', `/v2/crawl/${id}`)).body.status !== 'scraping') return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`crawl ${id} did not finish`);
}

describe('search sources', () => {
  it('sources: ["local"] and [{ type: "local" }] search the built-in index, not the web', async () => {
    await call('POST', '/v2/scrape', { url: `${site}/docs/configuration.html` });
    const asked = searx.requests.length;
    for (const sources of [['local'], [{ type: 'local' }]]) {
      const answer = await call('POST', '/v2/search', {
        query: 'environment variables',
        sources,
        scrapeOptions: { formats: [], ...sdkOnlyKeys },
        domainTools: false,
        toolDetail: 'compact',
        threatProtection: { mode: 'off' },
      });
      expect(answer.status).toBe(200);
      expect(answer.body.data.web[0]).toMatchObject({
        url: `${site}/docs/configuration.html`,
        metadata: { source: 'local' },
      });
    }
    expect(searx.requests.length).toBe(asked);
    // Without local, the configured web provider answers.
    const web = await call('POST', '/v2/search', { query: 'lighthouse', limit: 2 });
    expect(web.body.data.web[0]?.url).toMatch(/lighthouse/);
  });

  it('the hosted provider catalogue firecrawl-mcp names beside the web is dropped, alone a 400', async () => {
    const mixed = await call('POST', '/v2/search', {
      query: 'lighthouse',
      limit: 2,
      sources: [{ type: 'web' }, { type: 'alexandria' }],
      domainTools: true,
      toolDetail: 'compact',
    });
    expect(mixed.status).toBe(200);
    expect(mixed.body.data.web[0]?.url).toMatch(/lighthouse/);
    const alone = await call('POST', '/v2/search', {
      query: 'lighthouse',
      sources: ['alexandria'],
    });
    expect(alone.status).toBe(400);
    expect(JSON.stringify(alone.body)).toMatch(/hosted provider catalogue/);
  });

  it('the hosted research and developer indexes answer 501 NOT_CONFIGURED', async () => {
    for (const [method, path] of [
      ['GET', '/v2/search/research/papers?query=x'],
      ['GET', '/v2/search/research/papers/1234/similar'],
      ['GET', '/v2/search/research/github?query=x'],
      ['POST', '/v2/search/developer'],
    ] as const) {
      const answer = await call(method, path, method === 'POST' ? { query: 'x' } : undefined);
      expect(answer.status).toBe(501);
      expect(answer.body).toMatchObject({ success: false, code: 'NOT_CONFIGURED' });
      expect(answer.body.error).toMatch(/hosted index/);
    }
  });
});
