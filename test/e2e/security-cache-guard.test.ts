/**
 * The page cache asks the private-address guard as a fetch does, written as the attack: the CLI
 * (which may fetch private addresses) crawls a site on loopback in a folder, then `trawl serve`
 * started in the same folder, at its default (private addresses refused), is asked for those
 * pages. It once answered them from the cache (`cacheState: hit`) and completed a crawl of them
 * without a request; they are refused with 403 `URL_BLOCKED` exactly as a fetch would be, and the
 * crawl's refused sitemap says `URL_BLOCKED` too.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startServe, type ServeProcess } from './serve-process.ts';

const bin = join(import.meta.dirname, '../../packages/http/src/bin.ts');
const guardVariables = {
  TRAWL_ALLOW_PRIVATE_ADDRESSES: undefined,
  TRAWL_ALLOW_PRIVATE_TARGETS: undefined,
};

/** The "internal" site: a home page, four pages, a sitemap; every request counted. */
let site: Server;
let origin: string;
let requests = 0;
const dataDir = mkdtempSync(join(tmpdir(), 'trawl-cache-guard-'));
let server: ServeProcess;

beforeAll(async () => {
  site = createServer((req, res) => {
    requests++;
    const path = req.url ?? '/';
    if (path === '/sitemap.xml') {
      const locs = [1, 2, 3, 4].map((n) => `<url><loc>${origin}/pages/${n}</loc></url>`);
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(`<?xml version="1.0"?><urlset>${locs.join('')}</urlset>`);
      return;
    }
    const page = path === '/' ? 0 : Number(/^\/pages\/(\d)$/.exec(path)?.[1] ?? -1);
    if (page < 0 || page > 4) {
      res.writeHead(404).end();
      return;
    }
    const links = [1, 2, 3, 4].map((n) => `<a href="/pages/${n}">page ${n}</a>`).join(' ');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><html><head><title>Payroll ${page}</title></head><body><h1>INTERNAL_PAYROLL ${page}</h1>${links}</body></html>`,
    );
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;

  // The CLI's crawl fills the folder's page cache with the private pages.
  const { stderr } = await promisify(execFile)(
    process.execPath,
    ['--conditions=development', bin, 'crawl', `${origin}/`, '--limit', '5'],
    { env: { ...process.env, ...guardVariables, TRAWL_DATA_DIR: dataDir }, timeout: 60_000 },
  );
  expect(stderr).toMatch(/5/);
  expect(requests).toBeGreaterThanOrEqual(5);

  server = await startServe({ ...guardVariables, TRAWL_API_KEYS: 'fc-cache-guard' }, { dataDir });
  requests = 0;
}, 120_000);

afterAll(async () => {
  await server?.stop();
  site.closeAllConnections();
  site.close();
});

const call = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: 'Bearer fc-cache-guard', 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

describe('trawl serve on the data folder of a CLI crawl of private pages', () => {
  it('refuses a scrape of a cached private page with 403 URL_BLOCKED', async () => {
    for (const url of [`${origin}/`, `${origin}/pages/2`]) {
      for (const options of [{}, { maxAge: 172_800_000 }, { lockdown: true }, { minAge: 1 }]) {
        const answer = await call('POST', '/v2/scrape', { url, ...options });
        expect(answer.status, `${url} ${JSON.stringify(options)}`).toBe(403);
        expect(answer.body).toMatchObject({ success: false, code: 'URL_BLOCKED' });
        expect(JSON.stringify(answer.body)).not.toContain('INTERNAL_PAYROLL');
      }
    }
    expect(requests).toBe(0);
  });

  it('refuses every page of a crawl of them, its sitemap with URL_BLOCKED too', async () => {
    const started = await call('POST', '/v2/crawl', { url: `${origin}/`, limit: 5 });
    const id = String(started.body['id']);
    const done = await vi.waitFor(
      async () => {
        const status = await call('GET', `/v2/crawl/${id}`);
        expect(status.body['status']).not.toBe('scraping');
        return status.body;
      },
      { timeout: 60_000, interval: 200 },
    );
    expect(done).toMatchObject({ status: 'completed', data: [] });
    expect(JSON.stringify(done)).not.toContain('INTERNAL_PAYROLL');
    const { body } = await call('GET', `/v2/crawl/${id}/errors`);
    const errors = body['errors'] as { url: string; code: string; error: string }[];
    expect(errors.find((error) => error.url === `${origin}/`)?.code).toBe('URL_BLOCKED');
    const sitemap = errors.find((error) => error.url === `${origin}/sitemap.xml`);
    expect(sitemap?.code).toBe('URL_BLOCKED');
    expect(errors.map((error) => error.code)).not.toContain('UNSUPPORTED_FILE_TYPE');
    expect(requests).toBe(0);
  }, 90_000);
});
