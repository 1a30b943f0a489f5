/**
 * The agent over the fake OpenAI server, with a model scripted to act on what the tools
 * really return: it searches the built-in index, maps the fixture shop, reads three pages and
 * answers with facts combined from them; it runs out of maxCredits and answers partially; it is
 * constrained to URLs and tries to leave them; it calls unknown tools and sends bad arguments; it
 * never finishes; it is cancelled; it is resumed from a checkpoint.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { OpenAiLlmProvider } from '@trawl/adapters';
import {
  agent,
  resolveEngineConfig,
  scrape,
  SqliteStore,
  type AgentState,
  type AgentTraceEvent,
} from '@trawl/core';
import {
  factsOf,
  mustFinish,
  productsSchema,
  resultsOf,
  shopper,
  stepsSoFar,
  use,
} from '../../../../test/fakes/agent-model.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../../../../test/fakes/openai-server.ts';

const site = inject('fixtureUrl');
const shop = ['trail-runner', 'cast-iron-skillet', 'linen-shirt'].map(
  (name) => `${site}/shop/${name}.html`,
);

let fake: FakeOpenAi;
let llm: OpenAiLlmProvider;
let dir: string;
let store: SqliteStore;
const config = resolveEngineConfig();

beforeAll(async () => {
  fake = await startFakeOpenAi();
  llm = new OpenAiLlmProvider({ baseUrl: fake.baseUrl, model: 'fake-agent', retryBaseMs: 10 });
  dir = await mkdtemp(join(tmpdir(), 'trawl-agent-'));
  store = new SqliteStore({ path: join(dir, 'trawl.db') });
  // The built-in index holds what Trawl scraped: the shop pages and the home page.
  for (const path of ['/', '/shop/merino-hoodie.html', ...shop.map((url) => new URL(url).pathname)])
    await scrape(`${site}${path}`, {}, { store, config });
});
beforeEach(() => {
  fake.requests.length = 0;
  fake.respond = () => ({ content: 'no script' });
});
afterAll(async () => {
  await store.close();
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});

const toolsRun = (trace: AgentTraceEvent[]) =>
  trace.flatMap((event) => (event.type === 'tool_call.finished' ? [event.toolName] : []));

describe('agent()', () => {
  it('searches the index, maps the shop, reads three pages and answers with their facts and sources', async () => {
    fake.respond = shopper;
    const result = await agent(
      {
        prompt: 'The name and price of the trail shoe, the skillet and the linen shirt',
        schema: productsSchema,
      },
      { llm, store, config },
    );
    expect(result.status).toBe('completed');
    expect(result.partial).toBe(false);
    expect(result.data).toEqual({
      // In the order the map listed them.
      products: [
        { name: 'Pre-seasoned Cast Iron Skillet 26 cm', price: 54.95, source: shop[1] },
        { name: 'Washed Linen Shirt – Sand', price: 68, source: shop[2] },
        { name: 'Ridgeline Trail Runner 3', price: 139, source: shop[0] },
      ],
    });
    expect(toolsRun(result.trace)).toEqual([
      'search',
      'map',
      'scrape',
      'scrape',
      'scrape',
      'finish',
    ]);
    expect(result.sources).toEqual([shop[1], shop[2], shop[0]]);
    // The search found the shoe in the index, by its words.
    const searched = resultsOf(fake.requests[1]!.body)[0]!;
    expect(searched.content).toContain(shop[0]);
    expect(result.steps).toBe(4);
    expect(result.credits).toMatchObject({ searches: 1, maps: 1, pages: 3 });
    expect(result.credits.tokens).toBe(
      Math.ceil((result.usage.inputTokens + result.usage.outputTokens) / 1000),
    );
    // Native tool calls, with tools offered and the model required to use one.
    expect(fake.requests[0]!.body.tools?.map((tool) => tool.function?.name)).toEqual([
      'search',
      'map',
      'scrape',
      'extract',
      'finish',
    ]);
  });

  it('reads data off pages with extract and with scrape given a schema, counting each page', async () => {
    const priceSchema = {
      type: 'object',
      properties: { name: { type: 'string' }, price: { type: 'number' } },
    };
    fake.respond = (request) => {
      // The extractor's own questions: one page each, answered from the page text sent.
      if (request.response_format) {
        const page =
          /<page>\n([\s\S]*)\n<\/page>/.exec(request.messages.at(-1)?.content ?? '')?.[1] ?? '';
        const { name, price } = factsOf(`URL: x\n${page}`);
        return { content: JSON.stringify({ name, price }) };
      }
      const results = resultsOf(request);
      if (results.length === 0)
        return use('extract', {
          urls: [shop[0]!, shop[1]!],
          prompt: 'name and price',
          schema: priceSchema,
        });
      if (results.length === 1) return use('scrape', { url: shop[2]!, schema: priceSchema });
      return use('finish', {
        answer: {
          extracted: JSON.parse(results[0]!.content) as unknown,
          scraped: results[1]!.content,
        },
      });
    };
    const result = await agent({ prompt: 'Prices' }, { llm, store, config });
    expect(result.status).toBe('completed');
    const answer = result.data as {
      extracted: { sources: Record<string, string[]> };
      scraped: string;
    };
    expect(answer.extracted.sources['name']).toEqual([shop[0], shop[1]]);
    expect(answer.scraped).toContain('{"name":"Washed Linen Shirt – Sand","price":68}');
    expect(result.credits.pages).toBe(3);
    expect(result.sources).toEqual([shop[0], shop[1], shop[2]]);
    // The tools' own model calls count in the run's tokens and in the trace of their call.
    const extractCall = result.trace.find(
      (event) => event.type === 'tool_call.finished' && event.toolName === 'extract',
    );
    expect(extractCall).toMatchObject({ result: { ok: true, pages: [shop[0], shop[1]] } });
    expect(
      (extractCall as { result: { tokens: { inputTokens: number } } }).result.tokens.inputTokens,
    ).toBeGreaterThan(0);
  });

  it('keeps a long run within a small model context, cutting old results and cutting again when told', async () => {
    const small = resolveEngineConfig({ llmContextTokens: 4096 });
    fake.contextTokens = 3000;
    fake.respond = (request) => {
      const read = resultsOf(request).length;
      return read < 5
        ? use('scrape', { url: `${site}/large?kb=40&page=${read}` })
        : use('finish', { answer: { pagesRead: read } });
    };
    try {
      const result = await agent({ prompt: 'Read five long pages' }, { llm, store, config: small });
      expect(result.status).toBe('completed');
      expect(result.data).toEqual({ pagesRead: 5 });
      // Each page is shown cut to a third of the context.
      const shown = resultsOf(fake.requests.at(-1)!.body).at(-1)!.content;
      expect(shown.length).toBeLessThan(6000);
      expect(shown).toContain('more characters not shown');
      const sizes = fake.requests.map((request) =>
        request.body.messages.reduce((sum, message) => sum + (message.content ?? '').length, 0),
      );
      // The fake records the requests it refuses too: each one over its context is followed
      // by the same step cut harder, which fits.
      const refused = sizes.flatMap((size, index) => (size / 4 > 3000 ? [index] : []));
      expect(refused.length).toBeGreaterThan(0);
      for (const index of refused) expect(sizes[index + 1]! / 4).toBeLessThanOrEqual(3000);
      expect(
        resultsOf(fake.requests.at(-1)!.body).some((earlier) =>
          earlier.content.startsWith('[Earlier result of scrape'),
        ),
      ).toBe(true);
    } finally {
      fake.contextTokens = undefined;
    }
  });

  it('refuses an answer citing a page it never read, and takes the corrected one', async () => {
    fake.respond = (request) => {
      const results = resultsOf(request);
      if (results.length === 0) return use('scrape', { url: shop[0]! });
      const page = factsOf(results[0]!.content);
      if (results.length === 1)
        return use('finish', {
          answer: { products: [{ ...page, source: `${site}/shop/made-up.html` }] },
        });
      return use('finish', { answer: { products: [page] } });
    };
    const result = await agent(
      { prompt: 'The trail shoe', schema: productsSchema },
      { llm, store, config },
    );
    expect(result.status).toBe('completed');
    expect(result.data).toEqual({
      products: [{ name: 'Ridgeline Trail Runner 3', price: 139, source: shop[0] }],
    });
    const told = resultsOf(fake.requests[2]!.body)[1]!.content;
    expect(told).toContain('never read');
    expect(told).toContain('made-up.html');
  });

  it('stops before passing maxCredits and answers with what it has, marked partial', async () => {
    // A model that would read every page of the shop, one per step, and finishes only when made to.
    const pages = [
      'merino-hoodie',
      'trail-runner',
      'cast-iron-skillet',
      'linen-shirt',
      'espresso-grinder',
      'noise-cancelling-headphones',
    ];
    fake.respond = (request) => {
      const read = resultsOf(request).filter((result) => result.content.startsWith('URL:'));
      if (mustFinish(request))
        return use('finish', {
          answer: {
            products: read
              .map((page) => factsOf(page.content))
              .filter((p) => !Number.isNaN(p.price)),
          },
        });
      return use('scrape', { url: `${site}/shop/${pages[read.length % pages.length]}.html` });
    };
    const maxCredits = 30;
    const result = await agent(
      { prompt: 'Every product of the shop', schema: productsSchema, maxCredits, effort: 'high' },
      { llm, store, config },
    );
    expect(result.status).toBe('completed');
    expect(result.partial).toBe(true);
    expect(result.credits.total).toBeLessThanOrEqual(maxCredits);
    expect(result.credits.pages).toBeGreaterThan(0);
    expect(result.warnings.join(' ')).toContain('partial');
    // The last call offers only finish, and requires it.
    const last = fake.requests.at(-1)!.body;
    expect(last.tool_choice).toBe('required');
    expect(last.tools?.map((tool) => tool.function?.name)).toEqual(['finish']);
    expect(fake.requests[0]!.body.tool_choice).toBe('auto');
    expect((result.data as { products: unknown[] }).products.length).toBeGreaterThan(0);
    // The same model without maxCredits reads on, past those credits.
    fake.requests.length = 0;
    const unbounded = await agent(
      { prompt: 'Every product of the shop', schema: productsSchema, effort: 'high' },
      { llm, store, config },
    );
    expect(unbounded.credits.total).toBeGreaterThan(maxCredits);
  });

  it('keeps a constrained run on its URLs: a page outside is refused and the trace shows it', async () => {
    fake.respond = (request) => {
      const results = resultsOf(request);
      if (results.length === 0) return use('scrape', { url: `${site}/docs/guide.html` });
      if (results.length === 1) return use('scrape', { url: shop[1]! });
      return use('finish', { answer: { products: [factsOf(results[1]!.content)] } });
    };
    const result = await agent(
      {
        prompt: 'The skillet',
        schema: productsSchema,
        urls: [`${site}/shop/`],
        strictConstrainToURLs: true,
      },
      { llm, store, config },
    );
    expect(result.status).toBe('completed');
    expect(result.sources).toEqual([shop[1]]);
    const finished = result.trace.filter((event) => event.type === 'tool_call.finished');
    expect(finished[0]).toMatchObject({
      toolName: 'scrape',
      result: { ok: false, refused: expect.stringContaining('outside the URLs') as unknown },
    });
    expect(resultsOf(fake.requests[1]!.body)[0]!.content).toMatch(
      /^Refused: .*docs\/guide\.html is outside/,
    );
    // The same request unconstrained reads the page.
    fake.requests.length = 0;
    const free = await agent(
      { prompt: 'The skillet', schema: productsSchema, urls: [`${site}/shop/`] },
      { llm, store, config },
    );
    expect(free.sources).toEqual([`${site}/docs/guide.html`, shop[1]]);
    // Unconstrained, the URLs are where the model is told to start.
    expect(fake.requests[0]!.body.messages[0]!.content).toContain(
      `Start from these URLs: ${site}/shop/.`,
    );
  });

  it('tells the model of an unknown tool, bad arguments and non-JSON arguments, and goes on', async () => {
    fake.script(
      use('browse', { url: shop[0]! }),
      use('scrape', { link: shop[0]! }),
      use('scrape', '{"url": '),
      { content: 'I think I am done.' },
      use('scrape', { url: shop[0]! }),
    );
    fake.respond = (request) =>
      use('finish', { answer: { products: [factsOf(resultsOf(request).at(-1)!.content)] } });
    const result = await agent(
      { prompt: 'The trail shoe', schema: productsSchema },
      { llm, store, config },
    );
    expect(result.status).toBe('completed');
    const told = resultsOf(fake.requests[4]!.body).map((result) => result.content);
    expect(told[0]).toBe(
      "There is no tool 'browse'. The tools are: search, map, scrape, extract, finish.",
    );
    expect(told[1]).toContain('Invalid arguments for scrape');
    expect(told[1]).toContain('url');
    expect(told[2]).toContain('not JSON');
    expect(fake.requests[4]!.body.messages.at(-1)?.content).toContain(
      'Answer only by calling a tool',
    );
    expect(result.trace.filter((event) => event.type === 'error.occurred')).toHaveLength(4);
  });

  it('gives up on a model that never makes a valid call, after a bounded number of steps', async () => {
    fake.respond = () => use('browse', {});
    const result = await agent({ prompt: 'Anything' }, { llm, store, config });
    expect(result.status).toBe('failed');
    expect(result.error).toContain('5 steps in a row without a valid tool call');
    expect(fake.requests).toHaveLength(5);
  });

  it('stops a model that never finishes at the step budget of its effort, with a clear error', async () => {
    fake.respond = () => use('search', { query: 'shoe' });
    const low = await agent({ prompt: 'Anything', effort: 'low' }, { llm, store, config });
    expect(low.status).toBe('failed');
    expect(low.error).toBe(
      'The agent reached its step budget (8 steps, effort low) and the model did not call finish with an answer.',
    );
    expect(fake.requests).toHaveLength(8);
    fake.requests.length = 0;
    const medium = await agent({ prompt: 'Anything' }, { llm, store, config });
    expect(medium.error).toContain('(20 steps, effort medium)');
    expect(fake.requests).toHaveLength(20);
  });

  it('stops when cancelled, mid-run', async () => {
    const abort = new AbortController();
    fake.respond = (request) => {
      if (stepsSoFar(request) === 2) abort.abort();
      return use('search', { query: 'shoe' });
    };
    const events: AgentTraceEvent[] = [];
    await expect(
      agent(
        { prompt: 'Anything' },
        { llm, store, config, signal: abort.signal, onEvent: (event) => events.push(event) },
      ),
    ).rejects.toThrow('cancelled');
    expect(fake.requests.length).toBeLessThanOrEqual(3);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', outcome: 'cancelled' });
  });

  it('resumes from a checkpoint where it stopped, and refuses to resume on another model', async () => {
    let saved: AgentState | undefined;
    const abort = new AbortController();
    fake.respond = (request) => {
      // Stopped while the model is asked for its third step (after the search and the map).
      if (resultsOf(request).length === 2) abort.abort();
      return shopper(request);
    };
    await expect(
      agent(
        { prompt: 'The three products', schema: productsSchema },
        {
          llm,
          store,
          config,
          signal: abort.signal,
          checkpoint: (state) => {
            saved = structuredClone(state);
            return Promise.resolve();
          },
        },
      ),
    ).rejects.toThrow('cancelled');
    const stoppedAt = saved!.step;
    expect(stoppedAt).toBe(2);
    fake.requests.length = 0;
    const resumed = await agent(
      { prompt: 'The three products', schema: productsSchema },
      { llm, store, config, resume: JSON.parse(JSON.stringify(saved)) as AgentState },
    );
    expect(resumed.status).toBe('completed');
    expect((resumed.data as { products: unknown[] }).products).toHaveLength(3);
    // Only the steps after the checkpoint were asked again.
    expect(fake.requests.length).toBe(resumed.steps - stoppedAt);
    expect(resumed.trace.some((event) => event.type === 'run.resumed')).toBe(true);
    const other = new OpenAiLlmProvider({ baseUrl: fake.baseUrl, model: 'another-model' });
    await expect(
      agent({ prompt: 'The three products' }, { llm: other, store, config, resume: saved! }),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  it('fetches through the address guard: a private address is refused when they are not allowed', async () => {
    fake.respond = (request) =>
      resultsOf(request).length === 0
        ? use('scrape', { url: shop[0]! })
        : use('finish', { answer: {} });
    const guarded = resolveEngineConfig({ allowPrivateAddresses: false });
    const result = await agent({ prompt: 'The trail shoe' }, { llm, config: guarded });
    expect(result.sources).toEqual([]);
    expect(resultsOf(fake.requests[1]!.body)[0]!.content).toMatch(/^Failed: .*URL_BLOCKED/);
  });
});

describe('agent() input', () => {
  it('is refused at once without a model, naming the variables', async () => {
    await expect(agent({ prompt: 'Anything' })).rejects.toMatchObject({
      code: 'NOT_CONFIGURED',
      message: expect.stringContaining('llmBaseUrl and llmModel') as unknown,
    });
  });

  it.each([
    ['prompt', { prompt: 'x'.repeat(10_001) }],
    ['prompt', { prompt: '   ' }],
    ['strictConstrainToURLs', { prompt: 'x', strictConstrainToURLs: true }],
    ['effort', { prompt: 'x', effort: 'max' }],
    ['maxCredits', { prompt: 'x', maxCredits: 0 }],
    ['mode', { prompt: 'x', mode: 'chat' }],
    ['threadId', { prompt: 'x', threadId: 'abc' }],
    ['schema', { prompt: 'x', schema: { type: 'object', properties: { a: { type: 7 } } } }],
  ])('refuses a bad %s', async (field, options) => {
    const error = (await agent(options as never, { llm }).then(
      () => ({ code: 'none', message: 'resolved' }),
      (caught: unknown) => caught,
    )) as { code: string; message: string };
    expect(error).toMatchObject({ code: 'BAD_REQUEST' });
    expect(error.message).toContain(field);
    expect(fake.requests).toHaveLength(0);
  });
});
