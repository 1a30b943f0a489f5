/**
 * `POST /v2/search` on a real `trawl serve` process, driven by the official SDK: the built-in
 * index (pages scraped before are found again, scraped again with scrapeOptions), search
 * feedback on the search's id, and SearXNG through TRAWL_SEARXNG_URL — down, slow, answering
 * HTML — which must end in a 4xx or a warning, never a 500 or a hang.
 */
import Firecrawl from '@mendable/firecrawl-js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startFakeSearx, type FakeSearx } from '../fakes/searxng-server.ts';
import { startServe, type ServeProcess } from './serve-process.ts';

const site = inject('fixtureUrl');
const key = 'fc-search-key';
const env = { TRAWL_API_KEYS: `team-s:${key}`, TRAWL_ALLOW_PRIVATE_ADDRESSES: 'true' };

/** The parts of a search answer the tests read. */
interface SearchAnswer {
  success: boolean;
  id?: string;
  creditsUsed?: number;
  warning?: string;
  data: { web?: unknown[] };
}

/** POSTs a body as JSON with the key; the status and parsed answer. */
async function post(server: ServeProcess, path: string, body: unknown) {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  return { status: response.status, body: (await response.json()) as SearchAnswer };
}

describe('search on trawl serve with the built-in index', () => {
  let server: ServeProcess;
  let firecrawl: Firecrawl;
  beforeAll(async () => {
    server = await startServe(env);
    firecrawl = new Firecrawl({ apiKey: key, apiUrl: server.url });
    await firecrawl.scrape(`${site}/docs/configuration.html`);
    await firecrawl.scrape(`${site}/docs/install.html`);
  });
  afterAll(() => server.stop());

  it('finds scraped pages through the SDK, without scraping them again', async () => {
    const data = await firecrawl.search('environment variables', { limit: 5 });
    expect(data.web?.[0]).toMatchObject({
      url: `${site}/docs/configuration.html`,
      title: 'Configuration reference — Quiver documentation',
      position: 1,
      metadata: { source: 'local' },
    });
    expect(data.web?.[0]).not.toHaveProperty('markdown');
  });

  it('scrapes each result in the formats of scrapeOptions', async () => {
    const data = await firecrawl.search('binary', {
      scrapeOptions: { formats: ['markdown', 'links'] },
    });
    const first = data.web?.[0] as { markdown?: string; links?: string[]; url: string };
    expect(first.url).toBe(`${site}/docs/install.html`);
    expect(first.markdown).toMatch(/single binary/);
    expect(Array.isArray(first.links)).toBe(true);
  });

  it('answers with an id, creditsUsed and a job that searchFeedback accepts', async () => {
    const answer = await post(server, '/v2/search', { query: 'quiver', limit: 2 });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ success: true, creditsUsed: 1 });
    expect(answer.body.id).toMatch(/^[0-9a-f-]{36}$/);
    const feedback = await firecrawl.searchFeedback(answer.body.id ?? '', {
      rating: 'good',
      valuableSources: [{ url: `${site}/docs/install.html` }],
    });
    expect(feedback).toMatchObject({ success: true });
    const generic = await post(server, '/v2/feedback', {
      endpoint: 'search',
      jobId: answer.body.id,
      rating: 'bad',
      querySuggestions: 'quiver install',
    });
    expect(generic.status).toBe(200);
  });

  it('refuses bad input with a 400 that names it, and finds nothing in FTS syntax', async () => {
    for (const body of [
      { query: '' },
      { query: 'x'.repeat(10 * 1024) },
      { query: 'x', limit: 0 },
      { query: 'x', includeDomains: ['a.example'], excludeDomains: ['b.example'] },
      { query: 'x', unknownField: 1 },
    ]) {
      const answer = await post(server, '/v2/search', body);
      expect(answer.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(answer.body.success).toBe(false);
    }
    for (const query of ['"', 'NEAR(a b)', 'quiv*', '-quiver', '"unbalanced', 'a AND OR']) {
      const answer = await post(server, '/v2/search', { query });
      expect(answer.status, query).toBe(200);
    }
  });
});

describe('search on trawl serve with SearXNG', () => {
  let server: ServeProcess;
  let searx: FakeSearx;
  let firecrawl: Firecrawl;
  beforeAll(async () => {
    searx = await startFakeSearx();
    server = await startServe({ ...env, TRAWL_SEARXNG_URL: searx.url });
    firecrawl = new Firecrawl({ apiKey: key, apiUrl: server.url });
  });
  afterAll(async () => {
    await server.stop();
    await searx.close();
  });

  it('returns web, news and image results through the SDK, naming unresponsive engines', async () => {
    searx.mode = 'ok';
    searx.unresponsive = [['google', 'timeout']];
    const data = await firecrawl.search('lighthouse', {
      limit: 3,
      sources: ['web', 'news', { type: 'images' }],
    });
    searx.unresponsive = [];
    expect(data.web).toHaveLength(3);
    expect((data.web?.[0] as { url?: string } | undefined)?.url).toMatch(
      /^https:\/\/site\d\.example\/lighthouse\/\d+$/,
    );
    expect(data.news?.[0]).toMatchObject({ title: 'Lighthouse restored', position: 1 });
    expect(data.images?.[0]).toMatchObject({
      imageUrl: 'https://images.example/lighthouse.jpg',
      imageWidth: 1920,
      imageHeight: 1080,
    });
    expect(data.warning).toMatch(/google \(timeout\)/);
  });

  it('turns a SearXNG that answers HTML, is down, or is slow past timeout into a warning', async () => {
    for (const mode of ['html', 'forbidden', 'limited', 'hang'] as const) {
      searx.mode = mode;
      const answer = await post(server, '/v2/search', { query: 'lighthouse', timeout: 1500 });
      expect(answer.status, mode).toBe(200);
      expect(answer.body.data.web, mode).toEqual([]);
      expect(answer.body.warning, mode).toMatch(/searxng/i);
    }
    searx.mode = 'ok';
  });
});
