/**
 * Every error answer of the /v2 server, with its exact body, over real HTTP: what the official
 * SDK turns into its SdkError (status, `error`, `code`, `details`).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { resolveEngineConfig, SqliteStore } from '@trawl/core';
import { ApiKeys, buildServer } from '@trawl/http';
import { registeredRoutes } from './registered-routes.ts';

const fixture = inject('fixtureUrl');
const key = 'fc-error-tests';
let baseUrl: string;
let close: () => Promise<void>;

beforeAll(async () => {
  const store = new SqliteStore({
    path: join(mkdtempSync(join(tmpdir(), 'trawl-server-errors-')), 'trawl.db'),
  });
  const app = buildServer({
    store,
    config: resolveEngineConfig({ allowPrivateAddresses: true }),
    keys: ApiKeys.parse(`team-a:${key}`),
    logLevel: 'silent',
  });
  baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  close = async () => {
    await app.close();
    await store.close();
  };
});
afterAll(() => close());

async function call(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = { authorization: `Bearer ${key}` },
) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('error answers of the /v2 server', () => {
  it('400: a validation error names each bad field and why', async () => {
    const answer = await call('POST', '/v2/crawl', { url: `${fixture}/`, limit: 0, bogus: 1 });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      success: false,
      code: 'BAD_REQUEST',
      error: expect.stringMatching(/^Invalid crawl request at '(limit|)'/),
      details: expect.arrayContaining([
        expect.objectContaining({ path: ['limit'], message: expect.any(String) }),
        expect.objectContaining({ code: 'unrecognized_keys' }),
      ]),
    });
  });

  it('400: a bad URL, a bad regex and a missing url each say so', async () => {
    const badUrl = await call('POST', '/v2/scrape', { url: 'ftp://example.com/file' });
    expect(badUrl).toMatchObject({ status: 400, body: { success: false, code: 'INVALID_URL' } });
    const badRegex = await call('POST', '/v2/crawl', { url: `${fixture}/`, excludePaths: ['('] });
    expect(badRegex).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST' } });
    expect(String(badRegex.body['error'])).toContain('excludePaths');
    const missing = await call('POST', '/v2/map', {});
    expect(missing).toMatchObject({
      status: 400,
      body: { code: 'BAD_REQUEST', details: [expect.objectContaining({ path: ['url'] })] },
    });
  });

  it('400: malformed JSON', async () => {
    const answer = await call('POST', '/v2/scrape', '{"url": ');
    expect(answer).toEqual({
      status: 400,
      body: {
        success: false,
        code: 'BAD_REQUEST_INVALID_JSON',
        error: 'Bad request, malformed JSON',
      },
    });
  });

  it('accepts the origin and integration fields the SDK adds to every body', async () => {
    const answer = await call('POST', '/v2/scrape', {
      url: `${fixture}/articles/plain.html`,
      origin: 'js-sdk@4.42.0',
      integration: 'tests',
    });
    expect(answer.status).toBe(200);
    expect(answer.body['success']).toBe(true);
  });

  it('401: no header, an empty Bearer, an unknown key', async () => {
    expect(await call('GET', '/v2/crawl/active', undefined, {})).toEqual({
      status: 401,
      body: {
        success: false,
        code: 'UNAUTHORIZED',
        error:
          "Unauthorized: this server has API keys (TRAWL_API_KEYS or 'trawl keys create'); send 'Authorization: Bearer <key>'",
      },
    });
    expect(await call('GET', '/v2/crawl/active', undefined, { authorization: 'Bearer ' })).toEqual({
      status: 401,
      body: { success: false, code: 'UNAUTHORIZED', error: 'Unauthorized: Token missing' },
    });
    expect(
      await call('GET', '/v2/crawl/active', undefined, { authorization: 'Bearer nope' }),
    ).toEqual({
      status: 401,
      body: { success: false, code: 'UNAUTHORIZED', error: 'Unauthorized: Invalid token' },
    });
  });

  it('404: unknown jobs, malformed job ids and unknown routes', async () => {
    const unknown = crypto.randomUUID();
    for (const path of [
      `/v2/crawl/${unknown}`,
      `/v2/crawl/${unknown}/errors`,
      `/v2/batch/scrape/${unknown}`,
      '/v2/crawl/not-a-uuid',
    ]) {
      expect(await call('GET', path)).toEqual({
        status: 404,
        body: { success: false, error: 'Job not found' },
      });
    }
    expect(await call('DELETE', `/v2/crawl/${unknown}`)).toEqual({
      status: 404,
      body: { success: false, error: 'Job not found' },
    });
    expect(await call('GET', '/v2/nothing-here')).toEqual({
      status: 404,
      body: {
        success: false,
        code: 'NOT_FOUND',
        error: 'Not found: GET /v2/nothing-here (GET /v2/openapi.json lists the routes)',
      },
    });
  });

  it('408: a scrape that runs out of time', async () => {
    const answer = await call('POST', '/v2/scrape', {
      url: `${fixture}/slow?ms=3000`,
      timeout: 1000,
    });
    expect(answer.status).toBe(408);
    expect(answer.body).toMatchObject({ success: false, code: 'SCRAPE_TIMEOUT' });
    expect(answer.body['error']).toEqual(expect.any(String));
  });

  it('409: cancelling a crawl that already completed', async () => {
    const started = await call('POST', '/v2/crawl', {
      url: `${fixture}/articles/plain.html`,
      limit: 1,
    });
    const id = String(started.body['id']);
    for (let i = 0; i < 100; i++) {
      if ((await call('GET', `/v2/crawl/${id}`)).body['status'] === 'completed') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await call('DELETE', `/v2/crawl/${id}`)).toEqual({
      status: 409,
      body: { success: false, error: 'Crawl is already completed' },
    });
  });

  it('409: a second crawl with the same x-idempotency-key', async () => {
    const headers = { authorization: `Bearer ${key}`, 'x-idempotency-key': crypto.randomUUID() };
    const body = { url: `${fixture}/articles/plain.html`, limit: 1 };
    expect((await call('POST', '/v2/crawl', body, headers)).status).toBe(200);
    expect(await call('POST', '/v2/crawl', body, headers)).toEqual({
      status: 409,
      body: { success: false, error: 'Idempotency key already used' },
    });
  });

  it('400 for a webhook URL with credentials or of another scheme', async () => {
    const credentials = await call('POST', '/v2/crawl', {
      url: `${fixture}/`,
      webhook: 'http://user:secret@127.0.0.1:9/hook',
    });
    expect(credentials).toMatchObject({
      status: 400,
      body: {
        success: false,
        code: 'BAD_REQUEST',
        details: [{ path: ['webhook', 'url'], message: 'credentials in the URL are not allowed' }],
      },
    });
    const scheme = await call('POST', '/v2/batch/scrape', {
      urls: [`${fixture}/`],
      webhook: { url: 'ftp://127.0.0.1/hook' },
    });
    expect(scheme).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST' } });
  });

  it('a fetch failure answers 500 with its code', async () => {
    const answer = await call('POST', '/v2/scrape', { url: 'http://127.0.0.1:1/' });
    expect(answer).toMatchObject({
      status: 500,
      body: { success: false, code: 'SCRAPE_CONNECTION_REFUSED' },
    });
  });
});

describe('GET /v2/openapi.json', () => {
  it('describes every endpoint with the request schemas the server validates with', async () => {
    const answer = await call('GET', '/v2/openapi.json');
    expect(answer.status).toBe(200);
    const doc = answer.body as {
      openapi: string;
      paths: Record<
        string,
        Record<
          string,
          {
            requestBody?: {
              content: Record<
                string,
                {
                  schema: {
                    properties: Record<string, unknown>;
                    additionalProperties?: boolean;
                    required?: string[];
                  };
                }
              >;
            };
          }
        >
      >;
    };
    expect(doc.openapi).toBe('3.1.0');
    // Every route Fastify registers, with each of its methods, read from its route tree.
    const documented = Object.entries(doc.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const registered = (await registeredRoutes())
      .filter((route) => route.method !== 'HEAD')
      .map((route) => `${route.method} ${route.url.replace(/:(\w+)/g, '{$1}')}`);
    expect(registered.length).toBeGreaterThan(60);
    expect(documented.sort()).toEqual([...new Set(registered)].sort());
    const crawl =
      doc.paths['/v2/crawl']?.['post']?.requestBody?.content['application/json']?.schema;
    expect(crawl?.required).toContain('url');
    expect(crawl?.additionalProperties).toBe(false);
    expect(Object.keys(crawl?.properties ?? {})).toEqual(
      expect.arrayContaining([
        'limit',
        'includePaths',
        'sitemap',
        'scrapeOptions',
        'webhook',
        'origin',
      ]),
    );
  });
});

describe('GET /health', () => {
  it('answers up without a key while the store works, and counts jobs only for a key', async () => {
    expect(await call('GET', '/health', undefined, {})).toEqual({
      status: 200,
      body: { status: 'ok' },
    });
    expect(await call('GET', '/health')).toEqual({
      status: 200,
      body: { status: 'ok', jobsRunning: expect.any(Number) },
    });
  });
});
