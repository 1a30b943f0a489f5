/**
 * Requests built to hold the server's own thread, as the attacks, against `trawl serve` as a
 * process: an upload whose exclude selector backtracks over nested elements, 100,000 nested
 * elements, redactPII on a long run of one letter (uploaded, and scraped as text/plain), and a
 * JSON Schema whose `anyOf`s of `$ref`s double the validator's work at every level. While each
 * runs, /health answers within a second, and the request ends with a clear code. And the JSON
 * Schema registry is not shared by teams: team A's `$id` neither refuses team B's schema nor
 * answers B's `$ref`.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/openai-server.ts';
import { startServe, type ServeProcess } from './serve-process.ts';

const fixture = inject('fixtureUrl');
const keyA = 'fc-main-thread-team-a';
const keyB = 'fc-main-thread-team-b';
let server: ServeProcess;
let model: FakeOpenAi;
beforeAll(async () => {
  model = await startFakeOpenAi();
  model.respond = () => ({ content: '{"name": "x"}' });
  server = await startServe({
    TRAWL_API_KEYS: `team-a:${keyA},team-b:${keyB}`,
    TRAWL_ALLOW_PRIVATE_ADDRESSES: 'true',
    TRAWL_LLM_BASE_URL: model.baseUrl,
    TRAWL_LLM_MODEL: 'fake',
  });
}, 90_000);
afterAll(async () => {
  await server?.kill();
  await model?.close();
});

type Answer = { status: number; body: Record<string, unknown> };

async function call(path: string, body: unknown, key = keyA): Promise<Answer> {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(120_000),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function parse(file: string, type: string, name: string, options: unknown): Promise<Answer> {
  const form = new FormData();
  form.append('file', new Blob([file], { type }), name);
  form.append('options', JSON.stringify(options));
  const response = await fetch(`${server.url}/v2/parse`, {
    method: 'POST',
    headers: { authorization: `Bearer ${keyA}` },
    body: form,
    signal: AbortSignal.timeout(120_000),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/**
 * Runs `request` while asking /health every 100 ms, each ask abandoned after a second; returns
 * the request's answer and how many asks went unanswered in time.
 */
async function whileHealthIsAsked(
  request: () => Promise<Answer>,
): Promise<{ answer: Answer; missed: number; asked: number }> {
  let done = false;
  let missed = 0;
  let asked = 0;
  const asking = (async () => {
    while (!done) {
      asked += 1;
      const ok = await fetch(`${server.url}/health`, { signal: AbortSignal.timeout(1_000) })
        .then((response) => response.ok)
        .catch(() => false);
      if (!ok) missed += 1;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  try {
    return { answer: await request(), missed, asked };
  } finally {
    done = true;
    await asking;
  }
}

const nested = (levels: number, inner = 'x') =>
  `<html><body><main><h1>Nested</h1>${'<div>'.repeat(levels)}${inner}${'</div>'.repeat(levels)}</main></body></html>`;

/** 21 levels of `anyOf` of two `$ref`s to the level below, ending in `not: {}`: 1.4 KB. */
function doublingSchema(levels: number): Record<string, unknown> {
  const defs: Record<string, unknown> = { l0: { not: {} } };
  for (let level = 1; level <= levels; level++)
    defs[`l${level}`] = {
      anyOf: [{ $ref: `#/$defs/l${level - 1}` }, { $ref: `#/$defs/l${level - 1}` }],
    };
  return { $defs: defs, $ref: `#/$defs/l${levels}` };
}

describe('requests that would hold the server thread', () => {
  it('parses 150 nested divs with excludeTags "p div div div div" while /health answers', async () => {
    const { answer, missed } = await whileHealthIsAsked(() =>
      parse(nested(150), 'text/html', 'nested.html', {
        excludeTags: ['p div div div div'],
        formats: ['markdown'],
      }),
    );
    expect(missed).toBe(0);
    expect(answer.status).toBe(200);
    expect((answer.body['data'] as Record<string, unknown>)['markdown']).toContain('Nested');
  }, 120_000);

  it('parses 100,000 nested divs into a flattened, marked document or a timeout, never a 500', async () => {
    const { answer, missed } = await whileHealthIsAsked(() =>
      parse(nested(100_000, 'bottom'), 'text/html', 'deep.html', {
        formats: ['markdown'],
        timeout: 10_000,
      }),
    );
    expect(missed).toBe(0);
    if (answer.status === 200) {
      const data = answer.body['data'] as Record<string, unknown>;
      expect(data['markdown']).toContain('bottom');
      expect(data['warning']).toMatch(/flattened/);
    } else {
      expect(answer).toMatchObject({ status: 408, body: { code: 'SCRAPE_TIMEOUT' } });
    }
  }, 120_000);

  it('redacts an uploaded 300 KB run of one letter while /health answers', async () => {
    const { answer, missed } = await whileHealthIsAsked(() =>
      parse('a'.repeat(300 * 1024), 'text/plain', 'letter.txt', {
        redactPII: true,
        formats: ['markdown'],
      }),
    );
    expect(missed).toBe(0);
    expect(answer.status).toBe(200);
  }, 120_000);

  it('scrapes a text/plain page of 300 KB of one letter with redactPII while /health answers', async () => {
    const { answer, missed, asked } = await whileHealthIsAsked(() =>
      call('/v2/scrape', {
        url: `${fixture}/one-letter.txt?kb=300`,
        redactPII: true,
        formats: ['markdown'],
        timeout: 20_000,
      }),
    );
    expect(asked).toBeGreaterThan(0);
    expect(missed).toBe(0);
    expect(answer.status).toBe(200);
    expect((answer.body['data'] as Record<string, unknown>)['markdown']).toContain('aaaa');
  }, 120_000);

  it('refuses a JSON Schema of 21 doubling anyOf levels with a 400 naming the limit', async () => {
    const schema = doublingSchema(21);
    expect(JSON.stringify(schema).length).toBeLessThan(1500);
    const { answer, missed } = await whileHealthIsAsked(() =>
      call('/v2/scrape', {
        url: `${fixture}/articles/plain.html`,
        formats: [{ type: 'json', schema }],
      }),
    );
    expect(missed).toBe(0);
    expect(answer).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST' } });
    expect(answer.body['error']).toMatch(/more than 10000 subschemas/);
  }, 120_000);
});

describe('JSON Schemas of different teams', () => {
  const shared = 'https://schemas.example/person';

  it("does not let team A's $id refuse team B's schema, nor answer B's $ref", async () => {
    const ofA = await call('/v2/scrape', {
      url: `${fixture}/articles/plain.html`,
      formats: [
        {
          type: 'json',
          schema: { $id: shared, type: 'object', properties: { name: { type: 'string' } } },
        },
      ],
    });
    expect(ofA.status).toBe(200);
    const ofB = await call(
      '/v2/scrape',
      {
        url: `${fixture}/articles/plain.html`,
        formats: [
          {
            type: 'json',
            schema: { $id: shared, type: 'object', properties: { title: { type: 'string' } } },
          },
        ],
      },
      keyB,
    );
    expect(ofB.status).toBe(200);
    // B's reference to A's schema resolves to nothing of A's: it is refused as unresolvable.
    const reference = await call(
      '/v2/scrape',
      {
        url: `${fixture}/articles/plain.html`,
        formats: [{ type: 'json', schema: { $ref: shared } }],
      },
      keyB,
    );
    expect(reference).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST' } });
  }, 120_000);
});
