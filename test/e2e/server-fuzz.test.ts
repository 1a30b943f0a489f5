/**
 * Fuzz: thousands of random and malformed bodies across the /v2 endpoints must each get a 4xx
 * JSON answer — never a 5xx, a hang or a crash — and the server must still answer afterwards.
 * The server refuses private targets here, so a body that happens to be valid cannot make it
 * fetch anything. On a server with keys, random spellings of every registered /v2 path
 * (%-encoded characters, doubled slashes, dot segments, case) with malformed Authorization
 * headers must each be refused too.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveEngineConfig, SqliteStore } from '@trawl/core';
import { ApiKeys, buildServer } from '@trawl/http';
import { concretePath, registeredRoutes, type Route } from './registered-routes.ts';
import { rawRequest } from './serve-process.ts';

/** Starts a server refusing private targets; `keys` as TRAWL_API_KEYS (none: keyless). */
async function startServer(keys: string | undefined) {
  const store = new SqliteStore({
    path: join(mkdtempSync(join(tmpdir(), 'trawl-fuzz-')), 'trawl.db'),
  });
  const app = buildServer({
    store,
    config: resolveEngineConfig({ allowPrivateAddresses: false }),
    keys: ApiKeys.parse(keys),
    logLevel: 'silent',
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const close = async () => {
    await app.close();
    for (const job of app.jobs.running) await job.cancel();
    await store.close();
  };
  return { url, port: Number(new URL(url).port), close };
}

const key = 'fc-fuzz-key';
let baseUrl: string;
let keyedPort: number;
let v2Routes: Route[];
let closeAll: () => Promise<void>;
beforeAll(async () => {
  const keyless = await startServer(undefined);
  const keyed = await startServer(`team-a:${key}`);
  baseUrl = keyless.url;
  keyedPort = keyed.port;
  v2Routes = (await registeredRoutes()).filter((route) => route.url.startsWith('/v2/'));
  closeAll = async () => {
    await keyless.close();
    await keyed.close();
  };
});
afterAll(() => closeAll());

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

/**
 * One random spelling of a route's path: which characters are %-encoded or upper-cased, what is
 * slipped in after each slash, and what trails.
 */
interface Spelling {
  route: number;
  encode: boolean[];
  upper: boolean[];
  inserts: string[];
  tail: string;
}
const spelling: fc.Arbitrary<Spelling> = fc.record({
  route: fc.nat(),
  encode: fc.array(fc.boolean(), { maxLength: 80 }),
  upper: fc.array(fc.boolean(), { maxLength: 80 }),
  inserts: fc.array(fc.constantFrom('', '', '', '/', './', '%2e/', 'x/../', '%2F'), {
    maxLength: 8,
  }),
  tail: fc.constantFrom('', '', '/', '//', '/.', '?a=1', ';a=1', '%2F', '%00'),
});

function spell(path: string, choice: Spelling): string {
  let segment = 0;
  let out = '';
  for (const [index, char] of [...path].entries()) {
    if (char === '/') {
      out += '/' + (index === 0 ? '' : (choice.inserts[segment++] ?? ''));
      continue;
    }
    if (choice.encode[index]) out += `%${char.charCodeAt(0).toString(16).toUpperCase()}`;
    else out += choice.upper[index] ? char.toUpperCase() : char;
  }
  return out + choice.tail;
}

/** Authorization headers that must never pass: the key mangled, or a scheme other than Bearer. */
const badAuthorization = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom(
    key,
    `BEARER${key}`,
    `Bearer${key}`,
    `Basic ${key}`,
    `Basic ${Buffer.from(`${key}:`).toString('base64')}`,
    `Bearer ${key} ${key}`,
    `Bearer ${key},Bearer ${key}`,
    `Bearer\t${key}`,
    `Bearer ${key.toUpperCase()}`,
    `Bearer ${key}x`,
    `Bearer`,
    '',
  ),
  fc
    .tuple(fc.constantFrom('Bearer ', 'bearer ', 'Token ', 'Bearer: ', ''), fc.string())
    .map(([scheme, token]) => `${scheme}${token.replace(/[^\x20-\x7e]/g, '')}`)
    .filter((header) => !header.toLowerCase().endsWith(key)),
);

describe('the /v2 server under random paths and Authorization headers', () => {
  it('refuses 3,000 random spellings of every /v2 route with bad keys as 401 or 404', async () => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(
        spelling,
        badAuthorization,
        fc.boolean(),
        async (choice, authorization, subprotocol) => {
          const route = v2Routes[choice.route % v2Routes.length] as Route;
          const path = spell(concretePath(route.url), choice);
          const hasBody = route.method === 'POST' || route.method === 'PATCH';
          const answer = await rawRequest(
            keyedPort,
            route.method === 'HEAD' ? 'GET' : route.method,
            path,
            {
              ...(authorization === undefined ? {} : { authorization }),
              // The key as a subprotocol on a plain HTTP call must not count either.
              ...(subprotocol ? { 'sec-websocket-protocol': key, upgrade: 'websocket' } : {}),
              ...(hasBody ? { 'content-type': 'application/json' } : {}),
            },
            hasBody ? '{"url":"http://127.0.0.1:1/"}' : undefined,
          );
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          const context = `${route.method} ${path} [${authorization}]: ${answer.body.slice(0, 100)}`;
          expect(answer.status, context).toBeGreaterThanOrEqual(400);
          expect(answer.status, context).toBeLessThan(500);
          expect([401, 404], context).toContain(answer.status);
        },
      ),
      { numRuns: 3000, seed: 20261125 },
    );
    // The walk reached routes, not only the not-found handler.
    expect(statuses.get(401) ?? 0).toBeGreaterThan(100);
  }, 300_000);
});
