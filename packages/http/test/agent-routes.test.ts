/**
 * The agent routes in the server, built in-process: a request is refused at once
 * without a model (501 naming the variables) or with bad input (400 naming the field); a run's
 * webhooks go out in order with the agent events; its credits land in the ledger under its id and
 * match what the status says; it leaves a job record; a cancel stops it mid-run.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { OpenAiLlmProvider } from '@trawl/adapters';
import { MemoryStore, resolveEngineConfig, SqliteStore } from '@trawl/core';
import type { LedgerEntry } from '@trawl/core/server';
import { ApiKeys, buildServer } from '@trawl/http';
import {
  factsOf,
  mustFinish,
  productsSchema,
  resultsOf,
  shopper,
  use,
} from '../../../test/fakes/agent-model.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../../../test/fakes/openai-server.ts';
import {
  startWebhookReceiver,
  until,
  type WebhookReceiver,
} from '../../../test/fakes/webhook-receiver.ts';

const site = inject('fixtureUrl');
const auth = { authorization: 'Bearer key-a' };
let fake: FakeOpenAi;
let store: SqliteStore;
let receiver: WebhookReceiver;
let app: ReturnType<typeof buildServer>;

beforeAll(async () => {
  fake = await startFakeOpenAi();
  receiver = await startWebhookReceiver(200);
  store = new SqliteStore({ path: join(mkdtempSync(join(tmpdir(), 'trawl-agent-routes-')), 'db') });
  app = buildServer({
    store,
    config: resolveEngineConfig({ allowPrivateAddresses: true }),
    keys: ApiKeys.parse('team-a:key-a'),
    logLevel: 'silent',
    llm: new OpenAiLlmProvider({ baseUrl: fake.baseUrl, model: 'fake-agent' }),
    creditPrices: { search: 2, map: 3, scrape: 5 },
  });
  await app.ready();
  // What the agent's search finds: pages scraped through this server.
  for (const page of ['trail-runner', 'cast-iron-skillet', 'linen-shirt'])
    await app.inject({
      method: 'POST',
      url: '/v2/scrape',
      headers: auth,
      payload: { url: `${site}/shop/${page}.html` },
    });
});
beforeEach(() => {
  fake.requests.length = 0;
  receiver.received.length = 0;
});
afterAll(async () => {
  await app.close();
  await store.close();
  await receiver.close();
  await fake.close();
});

const start = (payload: Record<string, unknown>) =>
  app.inject({ method: 'POST', url: '/v2/agent', headers: auth, payload });
const status = async (id: string) =>
  (await app.inject({ url: `/v2/agent/${id}`, headers: auth })).json<Record<string, unknown>>();
async function settled(id: string) {
  let body = await status(id);
  for (let i = 0; i < 300 && body['status'] === 'processing'; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    body = await status(id);
  }
  return body;
}

describe('POST /v2/agent', () => {
  it('is a 501 naming the variables, at once, when no model is configured', async () => {
    const bare = buildServer({
      store: new MemoryStore(),
      config: resolveEngineConfig(),
      keys: ApiKeys.parse('team-a:key-a'),
      logLevel: 'silent',
    });
    const answer = await bare.inject({
      method: 'POST',
      url: '/v2/agent',
      headers: auth,
      payload: { prompt: 'Find the prices' },
    });
    await bare.close();
    expect(answer.statusCode).toBe(501);
    expect(answer.json()).toMatchObject({ success: false, code: 'NOT_CONFIGURED' });
    expect(answer.json<{ error: string }>().error).toContain(
      'llmBaseUrl (TRAWL_LLM_BASE_URL) and llmModel (TRAWL_LLM_MODEL)',
    );
  });

  it.each([
    ['prompt', { prompt: 'x'.repeat(10_001) }],
    ['colour', { prompt: 'x', colour: 'red' }],
    ['webhook', { prompt: 'x', webhook: { url: 'http://127.0.0.1:9/h', events: ['page'] } }],
    ['urls', { prompt: 'x', urls: ['not a url at all'] }],
  ])('is a 400 naming %s for a bad body', async (field, payload) => {
    const answer = await start(payload);
    expect(answer.statusCode).toBe(400);
    expect(JSON.stringify(answer.json())).toContain(field);
    expect(fake.requests).toHaveLength(0);
  });
});

describe('an agent run on the server', () => {
  it('sends its webhooks in order, charges its credits under its id, and leaves a job record', async () => {
    fake.respond = shopper;
    const answer = await start({
      prompt: 'The three products',
      schema: productsSchema,
      webhook: { url: receiver.url, metadata: { run: 'one' } },
      origin: 'js-sdk@4.42.0',
    });
    expect(answer.statusCode).toBe(200);
    const { id } = answer.json<{ id: string }>();
    const final = await settled(id);
    expect(final).toMatchObject({ status: 'completed', model: 'fake-agent' });
    expect((final['data'] as { products: unknown[] }).products).toHaveLength(3);
    await until(
      () => receiver.received.at(-1)?.event === 'agent.completed',
      5000,
      'agent.completed',
    );
    expect(receiver.received.map((delivery) => delivery.event)).toEqual([
      'agent.started',
      'agent.action',
      'agent.action',
      'agent.action',
      'agent.action',
      'agent.action',
      'agent.action',
      'agent.completed',
    ]);
    const lines: LedgerEntry[] = [];
    for await (const entry of app.ledger.entries('team-a'))
      if (entry.jobId === id) lines.push(entry);
    const by = Object.fromEntries(lines.map((line) => [line.endpoint, line.credits]));
    // One search at 2, one map at 3, three pages at 5, and the tokens at 1 per started thousand.
    expect(by).toMatchObject({ search: 2, map: 3, scrape: 15 });
    expect(by['llm_tokens']).toBeGreaterThan(0);
    expect(final['creditsUsed']).toBe(lines.reduce((sum, line) => sum + line.credits, 0));
    expect(await app.records.get('team-a', id)).toMatchObject({
      endpoint: 'agent',
      status: 'completed',
      creditsUsed: final['creditsUsed'],
    });
  });

  it('sends only the webhook events asked for', async () => {
    fake.respond = shopper;
    const { id } = (
      await start({
        prompt: 'The three products',
        webhook: { url: receiver.url, events: ['completed', 'failed'] },
      })
    ).json<{ id: string }>();
    expect((await settled(id))['status']).toBe('completed');
    await until(() => receiver.received.length > 0, 5000, 'a delivery');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.received.map((delivery) => delivery.event)).toEqual(['agent.completed']);
  });

  it('stops when cancelled mid-run, and says so to its webhook', async () => {
    fake.respond = () => ({ ...use('search', { query: 'shoe' }), delayMs: 100 });
    const { id } = (
      await start({ prompt: 'Anything', webhook: receiver.url, effort: 'high' })
    ).json<{ id: string }>();
    await until(() => fake.requests.length >= 2, 10_000, 'two model calls');
    const cancel = await app.inject({ method: 'DELETE', url: `/v2/agent/${id}`, headers: auth });
    expect(cancel.json()).toEqual({ success: true, status: 'cancelled' });
    const asked = fake.requests.length;
    await until(
      () => receiver.received.at(-1)?.event === 'agent.cancelled',
      5000,
      'agent.cancelled',
    );
    expect(await status(id)).toMatchObject({ status: 'failed', cancelled: true });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(fake.requests.length).toBeLessThanOrEqual(asked + 1);
    const trace = (await app.inject({ url: `/v2/agent/${id}/trace`, headers: auth })).json<{
      events: { type: string; outcome?: string }[];
    }>();
    expect(trace.events.at(-1)).toMatchObject({ type: 'run.finished', outcome: 'cancelled' });
    const again = await app.inject({ method: 'DELETE', url: `/v2/agent/${id}`, headers: auth });
    expect(again.statusCode).toBe(200);
  });

  it('fails a run whose model never finishes, with the reason in the status and agent.failed', async () => {
    fake.respond = () => use('search', { query: 'shoe' });
    const { id } = (
      await start({ prompt: 'Anything', effort: 'low', webhook: receiver.url })
    ).json<{ id: string }>();
    const final = await settled(id);
    expect(final['status']).toBe('failed');
    expect(final['error']).toContain('step budget (8 steps, effort low)');
    await until(() => receiver.received.at(-1)?.event === 'agent.failed', 5000, 'agent.failed');
    const done = await app.inject({ method: 'DELETE', url: `/v2/agent/${id}`, headers: auth });
    expect(done.statusCode).toBe(409);
  });

  it('spends no more than maxCredits, nor than the team has left, by the ledger', async () => {
    // A model that reads page after page, and answers only when made to.
    fake.respond = (request) => {
      const read = resultsOf(request).filter((result) => result.content.startsWith('URL:'));
      if (mustFinish(request))
        return use('finish', {
          answer: { products: read.map((page) => factsOf(page.content)).slice(0, 1) },
        });
      const pages = ['trail-runner', 'cast-iron-skillet', 'linen-shirt'];
      return use('scrape', { url: `${site}/shop/${pages[read.length % 3]}.html` });
    };
    const charged = async (server: ReturnType<typeof buildServer>, id: string) => {
      let total = 0;
      for await (const entry of server.ledger.entries('team-a'))
        if (entry.jobId === id) total += entry.credits;
      return total;
    };
    const { id } = (
      await start({
        prompt: 'Every product',
        schema: productsSchema,
        maxCredits: 40,
        effort: 'high',
      })
    ).json<{ id: string }>();
    const final = await settled(id);
    expect(final).toMatchObject({ status: 'completed', partial: true });
    expect(await charged(app, id)).toBe(final['creditsUsed']);
    expect(final['creditsUsed']).toBeLessThanOrEqual(40);
    expect(final['creditsUsed']).toBeGreaterThan(20);

    const cappedStore = new SqliteStore({
      path: join(mkdtempSync(join(tmpdir(), 'trawl-agent-cap-')), 'db'),
    });
    const capped = buildServer({
      store: cappedStore,
      config: resolveEngineConfig({ allowPrivateAddresses: true }),
      keys: ApiKeys.parse('team-a:key-a'),
      logLevel: 'silent',
      llm: new OpenAiLlmProvider({ baseUrl: fake.baseUrl, model: 'fake-agent' }),
      limits: { teamCredits: 25 },
    });
    const answer = await capped.inject({
      method: 'POST',
      url: '/v2/agent',
      headers: auth,
      payload: { prompt: 'Every product', schema: productsSchema, effort: 'high' },
    });
    const cappedId = answer.json<{ id: string }>().id;
    let body: Record<string, unknown> = {};
    for (let i = 0; i < 300; i++) {
      body = (await capped.inject({ url: `/v2/agent/${cappedId}`, headers: auth })).json();
      if (body['status'] !== 'processing') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(body).toMatchObject({ status: 'completed', partial: true });
    expect(await charged(capped, cappedId)).toBeLessThanOrEqual(25);
    expect((await capped.ledger.usage('team-a')).remaining).toBeGreaterThanOrEqual(0);
    await capped.close();
    await cappedStore.close();
  });

  it('leaves runs processing at a shutdown; the next server resumes them, or fails them on another model', async () => {
    const shared = new SqliteStore({
      path: join(mkdtempSync(join(tmpdir(), 'trawl-agent-restart-')), 'db'),
    });
    const serverOn = (model: string) =>
      buildServer({
        store: shared,
        config: resolveEngineConfig({ allowPrivateAddresses: true }),
        keys: ApiKeys.parse('team-a:key-a'),
        logLevel: 'silent',
        llm: new OpenAiLlmProvider({ baseUrl: fake.baseUrl, model }),
      });
    const statusOn = async (server: ReturnType<typeof buildServer>, id: string) => {
      let body: Record<string, unknown> = {};
      for (const end = Date.now() + 20_000; Date.now() < end;) {
        body = (await server.inject({ url: `/v2/agent/${id}`, headers: auth })).json();
        if (body['status'] !== 'processing') break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return body;
    };
    const runUntilShutdown = async () => {
      const first = serverOn('fake-agent');
      await first.ready();
      for (const page of ['trail-runner', 'cast-iron-skillet', 'linen-shirt'])
        await first.inject({
          method: 'POST',
          url: '/v2/scrape',
          headers: auth,
          payload: { url: `${site}/shop/${page}.html` },
        });
      fake.requests.length = 0;
      fake.respond = (request) => ({ ...shopper(request), delayMs: 100 });
      const { id } = (
        await first.inject({
          method: 'POST',
          url: '/v2/agent',
          headers: auth,
          payload: { prompt: 'The three products', schema: productsSchema },
        })
      ).json<{ id: string }>();
      await until(() => fake.requests.length >= 2, 10_000, 'two model calls');
      await first.close();
      return id;
    };

    const resumedId = await runUntilShutdown();
    const again = serverOn('fake-agent');
    fake.respond = shopper;
    await again.ready();
    const resumed = await statusOn(again, resumedId);
    expect(resumed['status']).toBe('completed');
    expect((resumed['data'] as { products: unknown[] }).products).toHaveLength(3);
    await again.close();

    const strandedId = await runUntilShutdown();
    const other = serverOn('another-model');
    await other.ready();
    const failed = await statusOn(other, strandedId);
    expect(failed['status']).toBe('failed');
    expect(failed['error']).toContain(
      "started with the model 'fake-agent' and the configured model is now 'another-model'",
    );
    await other.close();
    await shared.close();
  }, 60_000);

  it("lists a team's runs newest first, 50 a page, and the next page follows on", async () => {
    fake.respond = () => use('finish', { answer: {} });
    const listed = async (url: string) =>
      (await app.inject({ url, headers: auth })).json<{
        agents: { id: string; createdAt: string; status: string }[];
        next?: string;
      }>();
    const before = (await listed('/v2/agent')).agents.length;
    const ids: string[] = [];
    for (let i = 0; i < 52; i++)
      ids.push((await start({ prompt: `Run ${i}` })).json<{ id: string }>().id);
    const first = await listed('/v2/agent');
    expect(first.agents).toHaveLength(50);
    expect(first.agents.slice(0, 52).map((item) => item.id)).toEqual(ids.slice(-50).reverse());
    const next = new URL(first.next!);
    const second = await listed(`${next.pathname}${next.search}`);
    const all = [...first.agents, ...second.agents].map((item) => item.id);
    expect(all).toHaveLength(before + 52);
    expect(new Set(all).size).toBe(all.length);
    expect(all.slice(50, 52)).toEqual(ids.slice(0, 2).reverse());
    expect(
      (await app.inject({ url: '/v2/agent?before=yesterday', headers: auth })).statusCode,
    ).toBe(400);
  });
});
