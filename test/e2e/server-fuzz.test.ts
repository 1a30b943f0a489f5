/**
 * Fuzz: thousands of random and malformed bodies across the /v2 endpoints must each get a 4xx
 * JSON answer — never a 5xx, a hang or a crash — and the server must still answer afterwards.
 * The server refuses private targets here, so a body that happens to be valid cannot make it
 * fetch anything.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveEngineConfig, SqliteStore } from '@trawl/core';
import { ApiKeys, buildServer } from '@trawl/http';

let baseUrl: string;
let close: () => Promise<void>;
beforeAll(async () => {
  const store = new SqliteStore({
    path: join(mkdtempSync(join(tmpdir(), 'trawl-fuzz-')), 'trawl.db'),
  });
  const app = buildServer({
    store,
    config: resolveEngineConfig({ allowPrivateAddresses: false }),
    keys: ApiKeys.parse(undefined),
    logLevel: 'silent',
  });
  baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  close = async () => {
    await app.close();
    for (const job of app.jobs.running) await job.cancel();
    await store.close();
  };
});
afterAll(() => close());

const endpoints = ['/v2/scrape', '/v2/map', '/v2/crawl', '/v2/batch/scrape'];

/** Values near the real fields: right names with wrong or odd values, and junk. */
const fieldValue = fc.oneof(
  fc.anything(),
  fc.constantFrom('http://127.0.0.1:1/', 'ftp://x', '', 'not a url', '(', '[a-', '*'),
  fc.integer(),
  fc.double(),
  fc.array(fc.string()),
);
const fieldName = fc.oneof(
  fc.constantFrom(
    'url',
    'urls',
    'formats',
    'limit',
    'includePaths',
    'excludePaths',
    'timeout',
    'maxAge',
    'sitemap',
    'scrapeOptions',
    'webhook',
    'actions',
    'location',
    'maxConcurrency',
    'delay',
    'search',
    'origin',
    '__proto__',
    'constructor',
  ),
  fc.string(),
);
const nearBody = fc
  .dictionary(fieldName, fieldValue, { maxKeys: 6 })
  .map((body) => JSON.stringify(body));
const junkJson = fc.jsonValue().map((value) => JSON.stringify(value));
const brokenJson = fc
  .tuple(
    fc.jsonValue().map((value) => JSON.stringify(value)),
    fc.nat(),
    fc.string(),
  )
  .map(([text, cut, tail]) => text.slice(0, cut % (text.length + 1)) + tail)
  .filter((text) => {
    try {
      JSON.parse(text);
      return false;
    } catch {
      return true;
    }
  });

describe('the /v2 server under random bodies and hostile targets', () => {
  it('answers 5,000 random and malformed bodies with 4xx JSON and stays up', async () => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...endpoints),
        fc.oneof(nearBody, junkJson, brokenJson),
        async (endpoint, body) => {
          const response = await fetch(`${baseUrl}${endpoint}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body,
            signal: AbortSignal.timeout(10_000),
          });
          const answer = (await response.json()) as { success?: boolean; error?: unknown };
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          expect(response.status, `${endpoint} ${body}`).toBeGreaterThanOrEqual(400);
          expect(response.status, `${endpoint} ${body}`).toBeLessThan(500);
          expect(answer.success).toBe(false);
          expect(typeof answer.error).toBe('string');
        },
      ),
      { numRuns: 5000, seed: 20261123 },
    );
    expect([...statuses.values()].reduce((a, b) => a + b, 0)).toBe(5000);
    expect((await fetch(`${baseUrl}/health`)).status).toBe(200);
  }, 300_000);

  it('refuses private, loopback, link-local and metadata targets with 403 URL_BLOCKED', async () => {
    for (const url of [
      'http://127.0.0.1:8080/',
      'http://localhost/',
      'http://[::1]/',
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/',
      'http://192.168.1.1/admin',
    ]) {
      const response = await fetch(`${baseUrl}/v2/scrape`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url }),
      });
      expect(response.status, url).toBe(403);
      expect(await response.json()).toMatchObject({ success: false, code: 'URL_BLOCKED' });
    }
  });
});
