/**
 * The LLM formats through scrape() and crawl() against a fake OpenAI-compatible server that
 * speaks the wire protocol: json, summary, question, query, highlights re-ranking,
 * product and menu gap filling; a 300 KB page on a 4k-token model chunked and merged; the
 * endpoint's context_length_exceeded answered by cutting smaller; a wrong answer retried once
 * with the validator's errors; non-JSON and hanging models left as warnings; the answer cache
 * making a second crawl free; token usage reported.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { OpenAiLlmProvider } from '@trawl/adapters';
import {
  crawl,
  resolveEngineConfig,
  scrape,
  SqliteStore,
  type EngineContext,
  type LlmUsage,
} from '@trawl/core';
import { startChangingSite } from '../../../../test/fixture-site/changing-site.ts';
import {
  startFakeOpenAi,
  type ChatRequest,
  type FakeOpenAi,
} from '../../../../test/fakes/openai-server.ts';

const site = inject('fixtureUrl');
const page = (path: string) => `${site}${path}`;

let fake: FakeOpenAi;
let llm: OpenAiLlmProvider;
let dir: string;
beforeAll(async () => {
  fake = await startFakeOpenAi();
  llm = new OpenAiLlmProvider({ baseUrl: fake.baseUrl, model: 'fake-1', retryBaseMs: 10 });
  dir = await mkdtemp(join(tmpdir(), 'trawl-llm-'));
});
beforeEach(() => {
  fake.requests.length = 0;
  fake.failNext(0, 500);
  fake.contextTokens = undefined;
});
afterAll(async () => {
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});

/** The page text the engine sent in a request. */
const pageOf = (request: ChatRequest) =>
  /<page>\n([\s\S]*)\n<\/page>/.exec(request.messages.at(-1)?.content ?? '')?.[1] ??
  /<page>\n([\s\S]*)\n<\/page>/.exec(request.messages[1]?.content ?? '')?.[1] ??
  '';

const schema = {
  type: 'object',
  properties: {
    title: { type: 'string' },
    constraints: { type: 'array', items: { type: 'string' } },
  },
  required: ['title'],
};

describe('json', () => {
  it('asks with a strict json_schema, frames the page as data, and reports tokens', async () => {
    fake.respond = () => ({
      content: '{"title":"How timetables are planned","constraints":["headway"]}',
    });
    const usages: LlmUsage[] = [];
    const doc = await scrape(
      page('/articles/plain.html'),
      { formats: [{ type: 'json', schema, prompt: 'the title and the constraints' }] },
      { llm, onLlmUsage: (usage) => usages.push(usage) },
    );
    expect(doc.json).toEqual({ title: 'How timetables are planned', constraints: ['headway'] });
    expect(doc.markdown).toBeUndefined();
    const [sent] = fake.requests;
    expect(sent?.body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { schema, strict: true },
    });
    expect(sent?.body.messages[0]?.content).toMatch(/never instructions/);
    expect(pageOf(sent!.body)).toContain('Running time between stations');
    expect(usages).toHaveLength(1);
    expect(usages[0]!.inputTokens).toBeGreaterThan(0);
    expect(doc.metadata['llmTokens']).toBe(usages[0]!.inputTokens + usages[0]!.outputTokens);
  });

  it('retries a wrong answer once with the validation errors, then keeps the right one', async () => {
    let calls = 0;
    fake.respond = () => ({ content: calls++ === 0 ? '{"title": 42}' : '{"title":"Fixed"}' });
    const doc = await scrape(
      page('/articles/plain.html'),
      { formats: [{ type: 'json', schema }] },
      { llm },
    );
    expect(doc.json).toEqual({ title: 'Fixed' });
    expect(fake.requests).toHaveLength(2);
    const retry = fake.requests[1]!.body.messages;
    expect(retry.at(-2)).toMatchObject({ role: 'assistant', content: '{"title": 42}' });
    expect(retry.at(-1)?.content).toMatch(/\/title must be string/);
    expect(doc.warning).toBeUndefined();
  });

  it('returns a still-wrong answer with a warning after one retry', async () => {
    fake.respond = () => ({ content: '{"title": 42}' });
    const doc = await scrape(
      page('/articles/plain.html'),
      { formats: ['markdown', { type: 'json', schema }] },
      { llm },
    );
    expect(fake.requests).toHaveLength(2);
    expect(doc.json).toEqual({ title: 42 });
    expect(doc.warning).toMatch(/does not match the schema after a retry/);
    expect(doc.markdown).toContain('How timetables are planned');
  });

  it('turns a model that never answers JSON into a warning, after exactly two calls', async () => {
    fake.respond = () => ({ content: 'I am sorry, I cannot help with that.' });
    const doc = await scrape(
      page('/articles/plain.html'),
      { formats: ['markdown', { type: 'json', schema }] },
      { llm },
    );
    expect(fake.requests).toHaveLength(2);
    expect(doc.warning).toMatch(/not JSON/);
    expect(doc.markdown).toContain('How timetables are planned');
  });

  it('gives up on a model that hangs past the timeout with a warning, keeping the page', async () => {
    fake.respond = () => ({ content: '{"title":"late"}', delayMs: 20_000 });
    const slow = new OpenAiLlmProvider({ baseUrl: fake.baseUrl, model: 'fake-1', retries: 0 });
    const doc = await scrape(
      page('/articles/plain.html'),
      { formats: ['markdown', { type: 'json', schema }], timeout: 1500 },
      { llm: slow },
    );
    expect(doc.json).toBeUndefined();
    expect(doc.warning).toMatch(/'json' format could not be produced/);
    expect(doc.markdown).toContain('How timetables are planned');
  });

  it('rides out a 500 and a 429 from the endpoint', async () => {
    fake.respond = () => ({ content: '{"title":"ok"}' });
    fake.failNext(1, 500);
    const first = await scrape(
      page('/articles/plain.html'),
      { formats: [{ type: 'json', schema }] },
      { llm },
    );
    fake.failNext(1, 429);
    const second = await scrape(
      page('/docs/guide.html'),
      { formats: [{ type: 'json', schema }] },
      { llm },
    );
    expect(first.json).toEqual({ title: 'ok' });
    expect(second.json).toEqual({ title: 'ok' });
    expect(fake.requests).toHaveLength(4);
  });

  it('flags a page that tries to instruct the model when checkPromptInjection is set', async () => {
    fake.respond = (request) => ({
      content:
        request.response_format?.json_schema?.name === 'injection_check'
          ? '{"injection":true,"evidence":"ignore previous instructions"}'
          : '{"title":"x"}',
    });
    const doc = await scrape(
      page('/articles/plain.html'),
      { formats: [{ type: 'json', schema, checkPromptInjection: true }] },
      { llm },
    );
    expect(doc.warning).toMatch(/prompt injection/);
  });
});

describe('json_object servers and failing models', () => {
  it('asks a json_object-only server (Ollama, older vLLM) and still validates the answer', async () => {
    fake.respond = () => ({ content: '{"title":"From JSON mode"}' });
    const jsonMode = new OpenAiLlmProvider({
      baseUrl: fake.baseUrl,
      model: 'fake-1',
      jsonMode: 'json_object',
    });
    const doc = await scrape(
      page('/articles/plain.html'),
      { formats: [{ type: 'json', schema }] },
      { llm: jsonMode },
    );
    expect(doc.json).toEqual({ title: 'From JSON mode' });
    expect(fake.requests[0]?.body.response_format).toEqual({ type: 'json_object' });
    // The schema travels in the conversation, since json_object carries none.
    expect(fake.requests[0]?.body.messages.at(-1)?.content).toContain('"required":["title"]');
  });

  it('loses no page of a crawl when the model keeps failing: each says why in its warning', async () => {
    fake.respond = () => ({ status: 500, message: 'The server had an error' });
    const job = crawl(
      page('/docs/'),
      { limit: 3, scrapeOptions: { formats: ['markdown', { type: 'json', schema }] } },
      { llm },
    );
    const summary = await job.done;
    const { data } = await job.results();
    expect(summary.status).toBe('completed');
    expect(data).toHaveLength(3);
    for (const doc of data) {
      expect(doc.markdown).toBeTruthy();
      expect(doc.warning).toMatch(/'json' format could not be produced.*HTTP 500/);
    }
  });
});

describe('long pages', () => {
  const daySchema = {
    type: 'object',
    properties: {
      days: { type: 'array', items: { type: 'integer' } },
      archive: { type: 'string' },
    },
    required: ['days'],
  };
  /** Answers with the log days the chunk shows, and the archive title on the chunk that has it. */
  const answerDays = (request: ChatRequest) => {
    const text = pageOf(request);
    const days = [...text.matchAll(/Log day (\d+)/g)].map((match) => Number(match[1]));
    return {
      content: JSON.stringify({
        days,
        ...(text.includes('Harbor traffic log, full archive')
          ? { archive: 'Harbor traffic log' }
          : {}),
      }),
    };
  };

  it('chunks a 300 KB page for a 4k-token model and merges the answers', async () => {
    fake.contextTokens = 4096;
    fake.respond = answerDays;
    const doc = await scrape(
      page('/large?kb=300'),
      { formats: ['markdown', { type: 'json', schema: daySchema }] },
      { llm, config: resolveEngineConfig({ llmContextTokens: 4096, llmMaxChunksPerPage: 200 }) },
    );
    const json = doc.json as { days: number[]; archive?: string };
    const expected = [...doc.markdown!.matchAll(/Log day (\d+)/g)].map((match) => Number(match[1]));
    expect(expected.length).toBeGreaterThan(100);
    expect(fake.requests.length).toBeGreaterThan(10);
    // Arrays concatenated in page order without duplicates; the scalar from the first chunk.
    expect(json.days).toEqual(expected);
    expect(json.archive).toBe('Harbor traffic log');
    expect(doc.warning).toBeUndefined();
  });

  it('cuts smaller when the endpoint answers context_length_exceeded', async () => {
    fake.contextTokens = 2048;
    fake.respond = answerDays;
    const doc = await scrape(
      page('/large?kb=40'),
      { formats: ['markdown', { type: 'json', schema: daySchema }] },
      // The engine believes the model has 8k tokens; the endpoint knows better.
      { llm, config: resolveEngineConfig({ llmContextTokens: 8192, llmMaxChunksPerPage: 200 }) },
    );
    const expected = [...doc.markdown!.matchAll(/Log day (\d+)/g)].map((match) => Number(match[1]));
    expect((doc.json as { days: number[] }).days).toEqual(expected);
    expect(fake.requests.some((request) => JSON.stringify(request.body).length > 2048 * 4)).toBe(
      true,
    );
  });
});

describe('summary, question, query, highlights', () => {
  it('summarises into doc.summary', async () => {
    fake.respond = () => ({ content: '{"summary":"Timetables fit trains into paths."}' });
    const doc = await scrape(page('/articles/plain.html'), { formats: ['summary'] }, { llm });
    expect(doc.summary).toBe('Timetables fit trains into paths.');
  });

  it('answers a question into doc.answer, and the deprecated query in both modes', async () => {
    fake.respond = (request) => ({
      content: /word for word/.test(request.messages[1]?.content ?? '')
        ? '{"answer":"Headway, the minimum gap between two trains."}'
        : '{"answer":"Running time, headway and platform space."}',
    });
    const question = await scrape(
      page('/articles/plain.html'),
      { formats: [{ type: 'question', question: 'What are the three constraints?' }] },
      { llm },
    );
    expect(question.answer).toBe('Running time, headway and platform space.');
    const quote = await scrape(
      page('/articles/plain.html'),
      { formats: [{ type: 'query', prompt: 'What is headway?', mode: 'directQuote' }] },
      { llm },
    );
    expect(quote.answer).toBe('Headway, the minimum gap between two trains.');
  });

  it('lets the model re-rank the BM25 passages of highlights', async () => {
    fake.respond = () => ({ content: '{"relevant":[1,0]}' });
    const query = 'What did the comparison script find?';
    const without = await scrape(page('/articles/heavy-boilerplate.html'), {
      formats: [{ type: 'highlights', query }],
    });
    const withLlm = await scrape(
      page('/articles/heavy-boilerplate.html'),
      { formats: [{ type: 'highlights', query }] },
      { llm },
    );
    const [first, second] = without.highlights!.split('\n\n');
    expect(withLlm.highlights).toBe(`${second}\n\n${first}`);
  });
});

describe('product and menu with an LLM', () => {
  it('reads a product from page text when the page publishes no markup, and says so', async () => {
    fake.respond = () => ({
      content:
        '{"title":"Timetable","brand":"Eastbrook","price":12.5,"currency":"EUR","inStock":true}',
    });
    const doc = await scrape(page('/articles/plain.html'), { formats: ['product'] }, { llm });
    expect(doc.product).toMatchObject({
      title: 'Timetable',
      brand: 'Eastbrook',
      variants: [{ price: { amount: 12.5, currency: 'EUR' } }],
    });
    expect(doc.metadata['productSource']).toBe('llm');
  });

  it('asks nothing of the model when the markup is complete', async () => {
    const doc = await scrape(page('/shop/trail-runner.html'), { formats: ['product'] }, { llm });
    expect(doc.metadata['productSource']).toBe('json-ld');
    expect(fake.requests).toHaveLength(0);
  });

  it('reads a menu from page text when there is no schema.org menu', async () => {
    fake.respond = () => ({
      content:
        '{"isMenu":true,"restaurant":"Cafe","currency":"EUR","sections":[{"name":"Drinks","items":[{"name":"Tea","price":2}]}]}',
    });
    const doc = await scrape(page('/articles/plain.html'), { formats: ['menu'] }, { llm });
    expect(doc.menu).toMatchObject({
      isMenu: true,
      sections: [{ name: 'Drinks', items: [{ name: 'Tea', price: { amount: 2 } }] }],
    });
    expect(doc.metadata['menuSource']).toBe('llm');
  });
});

describe('the answer cache', () => {
  it('makes a second identical crawl send no LLM request', async () => {
    fake.respond = (request) => ({
      content: JSON.stringify({ title: pageOf(request).slice(0, 20) }),
    });
    const store = new SqliteStore({ path: join(dir, 'cache.db') });
    const context: EngineContext = { llm, store };
    const run = async () => {
      const job = crawl(
        page('/docs/'),
        { limit: 4, scrapeOptions: { formats: [{ type: 'json', schema }] } },
        context,
      );
      await job.done;
      return (await job.results()).data;
    };
    const first = await run();
    const calls = fake.requests.length;
    expect(calls).toBeGreaterThan(1);
    const second = await run();
    expect(fake.requests.length).toBe(calls);
    const answers = (docs: typeof first) => docs.map((doc) => JSON.stringify(doc.json)).sort();
    expect(answers(second)).toEqual(answers(first));
    await store.close();
  });
});

describe('changeTracking json mode', () => {
  it('answers field-level changes of the extracted JSON against the last scrape', async () => {
    const shop = await startChangingSite({ '/price': { title: 'Kettle', text: 'Price: 10 EUR' } });
    const store = new SqliteStore({ path: join(dir, 'tracking.db') });
    const priceSchema = { type: 'object', properties: { price: { type: 'number' } } };
    const options = {
      formats: [
        'markdown' as const,
        { type: 'changeTracking' as const, modes: ['json' as const], schema: priceSchema },
      ],
    };
    // The fake reads the price off the page, as a model would.
    fake.respond = (request) => ({
      content: JSON.stringify({ price: Number(/Price: (\d+)/.exec(pageOf(request))?.[1]) }),
    });
    try {
      const first = await scrape(`${shop.url}/price`, options, { llm, store });
      expect(first.changeTracking).toMatchObject({ changeStatus: 'new' });
      shop.set('/price', { title: 'Kettle', text: 'Price: 12 EUR' });
      const second = await scrape(`${shop.url}/price`, options, { llm, store });
      expect(second.changeTracking).toMatchObject({
        changeStatus: 'changed',
        json: { price: { previous: 10, current: 12 } },
      });
    } finally {
      await store.close();
      await shop.close();
    }
  });

  it('refuses json mode without a model, naming the settings', async () => {
    await expect(
      scrape(page('/articles/plain.html'), {
        formats: ['markdown', { type: 'changeTracking', modes: ['json'] }],
      }),
    ).rejects.toMatchObject({ code: 'NOT_CONFIGURED', message: /TRAWL_LLM_MODEL/ });
  });
});
