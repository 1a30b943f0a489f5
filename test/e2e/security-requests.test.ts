/**
 * The lesser points of the first security pass against `trawl serve` as a process: a deeply nested body is the
 * client's error (400, not a 503 "retry"), a crawl limit of 1e12 is refused naming the maximum,
 * the multipart `options` of POST /v2/parse is refused as too large rather than "not valid JSON"
 * and accepted however it is typed, and TRAWL_ALLOW_PRIVATE_TARGETS does what the README says.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { crawl } from '@trawl/core';
import { rawRequest, startServe, type ServeProcess } from './serve-process.ts';

const fixture = inject('fixtureUrl');
const key = 'fc-security-requests-key';
const auth = { authorization: `Bearer ${key}` };
const json = { ...auth, 'content-type': 'application/json' };
let server: ServeProcess;
beforeAll(async () => {
  server = await startServe({
    TRAWL_API_KEYS: `team-a:${key}`,
    // The documented alias alone: the fixture site on 127.0.0.1 becomes reachable.
    TRAWL_ALLOW_PRIVATE_TARGETS: 'true',
    TRAWL_MAX_CRAWL_LIMIT: '1000',
  });
});
afterAll(() => server?.stop());

const post = async (path: string, body: string) => {
  const answer = await rawRequest(server.port, 'POST', path, json, body);
  return { status: answer.status, body: JSON.parse(answer.body) as Record<string, unknown> };
};

/** `levels` nested objects around `{}`, as text (JSON.stringify would overflow first). */
const nested = (levels: number) => '{"a":'.repeat(levels) + '{}' + '}'.repeat(levels);

describe('request bodies', () => {
  it('refuses a 10,000-level nested webhook.metadata with 400 BAD_REQUEST', async () => {
    const answer = await post(
      '/v2/crawl',
      `{"url":"${fixture}/","limit":1,"webhook":{"url":"${fixture}/hook","metadata":${nested(10_000)}}}`,
    );
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      success: false,
      code: 'BAD_REQUEST',
      error: expect.stringContaining('deeper than 100 levels'),
    });
  });

  it('refuses deep nesting in any JSON body, also inside an array', async () => {
    const answer = await post(
      '/v2/scrape',
      `{"url":"${fixture}/","actions":${'['.repeat(5000)}${']'.repeat(5000)}}`,
    );
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      code: 'BAD_REQUEST',
      error: expect.stringContaining('deeper than 100 levels'),
    });
  });

  it('still takes nesting of ordinary depth, and brackets inside strings do not count', async () => {
    const answer = await post(
      '/v2/crawl',
      `{"url":"${fixture}/","limit":1,"webhook":{"url":"${fixture}/hook","metadata":{"deep":${nested(50)},"text":"${'['.repeat(500)}"}}}`,
    );
    expect(answer.status).toBe(200);
    const id = String(answer.body['id']);
    await rawRequest(server.port, 'DELETE', `/v2/crawl/${id}`, auth);
  });
});

describe('crawl limit', () => {
  it('refuses a limit above TRAWL_MAX_CRAWL_LIMIT with 400 naming the maximum', async () => {
    for (const limit of [1001, 1e12]) {
      const answer = await post('/v2/crawl', JSON.stringify({ url: `${fixture}/`, limit }));
      expect(answer.status, String(limit)).toBe(400);
      expect(answer.body).toMatchObject({
        code: 'BAD_REQUEST',
        error: expect.stringContaining('at most 1000 pages'),
      });
    }
  });

  it('caps crawls at 1,000,000 pages by default, in the library too', () => {
    expect(() => crawl(`${fixture}/`, { limit: 1e12 })).toThrow(/at most 1000000 pages/);
  });
});

/** A multipart body built by hand, so each part's headers are exactly what a client sends. */
function multipart(parts: Array<{ headers: string; body: string }>) {
  const boundary = `----trawl-${crypto.randomUUID()}`;
  const body =
    parts.map((part) => `--${boundary}\r\n${part.headers}\r\n\r\n${part.body}\r\n`).join('') +
    `--${boundary}--\r\n`;
  return { boundary, body };
}

const htmlFile = {
  headers:
    'Content-Disposition: form-data; name="file"; filename="page.html"\r\nContent-Type: text/html',
  body: '<html><body><h1>Parsed</h1><p>Some text.</p></body></html>',
};

async function parseWith(options: { headers: string; body: string }) {
  const { boundary, body } = multipart([options, htmlFile]);
  const answer = await rawRequest(
    server.port,
    'POST',
    '/v2/parse',
    { ...auth, 'content-type': `multipart/form-data; boundary=${boundary}` },
    body,
  );
  return { status: answer.status, body: JSON.parse(answer.body) as Record<string, unknown> };
}

describe('POST /v2/parse options part', () => {
  const options = JSON.stringify({ formats: ['html'] });

  it.each([
    ['a text field', 'Content-Disposition: form-data; name="options"'],
    [
      'a field typed application/json',
      'Content-Disposition: form-data; name="options"\r\nContent-Type: application/json',
    ],
    [
      'a file',
      'Content-Disposition: form-data; name="options"; filename="options.json"\r\nContent-Type: application/json',
    ],
  ])('takes the options sent as %s', async (_, headers) => {
    const answer = await parseWith({ headers, body: options });
    expect(answer.status).toBe(200);
    const data = answer.body['data'] as Record<string, unknown>;
    expect(data['html']).toContain('Parsed');
    expect(data['markdown']).toBeUndefined();
  });

  it.each([
    ['a text field', 'Content-Disposition: form-data; name="options"'],
    [
      'a file',
      'Content-Disposition: form-data; name="options"; filename="options.json"\r\nContent-Type: application/json',
    ],
  ])('refuses a 2 MB options part sent as %s naming the 1MB limit', async (_, headers) => {
    const big = JSON.stringify({ formats: ['html'], pad: 'x'.repeat(2 * 1024 * 1024) });
    const answer = await parseWith({ headers, body: big });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      code: 'BAD_REQUEST',
      error: expect.stringContaining('exceeds the maximum size of 1MB'),
    });
    expect(answer.body['error']).not.toContain('not valid JSON');
  });

  it('names the size limit too when a 2 MB part is typed application/json', async () => {
    const answer = await parseWith({
      headers: 'Content-Disposition: form-data; name="options"\r\nContent-Type: application/json',
      body: JSON.stringify({ pad: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(answer.status).toBe(400);
    expect(answer.body['error']).toContain('maximum size of 1MB');
  });

  it('refuses a deeply nested options part with 400', async () => {
    const answer = await parseWith({
      headers: 'Content-Disposition: form-data; name="options"',
      body: nested(10_000),
    });
    expect(answer.status).toBe(400);
    expect(answer.body['error']).toContain('deeper than 100 levels');
  });
});

describe('TRAWL_ALLOW_PRIVATE_TARGETS', () => {
  it('lets the served engine fetch a loopback target, as TRAWL_ALLOW_PRIVATE_ADDRESSES does', async () => {
    const answer = await post('/v2/scrape', JSON.stringify({ url: `${fixture}/` }));
    expect(answer.status).toBe(200);
    expect(answer.body['success']).toBe(true);
  });
});
