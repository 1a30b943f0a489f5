/**
 * The agent through `trawl serve` as a real process, driven by the official SDK:
 * startAgent, getAgentStatus, agent (the waiter), listAgents, getAgentTrace and cancelAgent work
 * as they do against the hosted service; another team's key can neither read, list, cancel nor
 * trace a run; and a server killed with SIGKILL mid-run resumes the run at its next start from
 * its last step, without asking the model again for the steps it had.
 */
import Firecrawl from '@mendable/firecrawl-js';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { productsSchema, resultsOf, shopper, shopPages, use } from '../fakes/agent-model.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/openai-server.ts';
import { startServe, type ServeProcess } from './serve-process.ts';

const site = inject('fixtureUrl');
const keyA = 'fc-agent-team-a';
const keyB = 'fc-agent-team-b';

let fake: FakeOpenAi;
let server: ServeProcess;
let teamA: Firecrawl;
let teamB: Firecrawl;

const env = () => ({
  TRAWL_API_KEYS: `team-a:${keyA},team-b:${keyB}`,
  TRAWL_ALLOW_PRIVATE_ADDRESSES: 'true',
  TRAWL_LLM_BASE_URL: fake.baseUrl,
  TRAWL_LLM_MODEL: 'fake-agent',
});

/** Scrapes the shop through the server, so its built-in index holds the pages. */
async function indexShop(client: Firecrawl) {
  for (const page of shopPages) await client.scrape(`${site}/shop/${page}.html`);
}

beforeAll(async () => {
  fake = await startFakeOpenAi();
  server = await startServe(env());
  teamA = new Firecrawl({ apiKey: keyA, apiUrl: server.url });
  teamB = new Firecrawl({ apiKey: keyB, apiUrl: server.url });
  await indexShop(teamA);
}, 120_000);
beforeEach(() => {
  fake.requests.length = 0;
  fake.respond = shopper;
});
afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

/** The status code of an SDK call that must fail. */
const statusOf = (call: Promise<unknown>) =>
  call.then(
    () => 200,
    (error: unknown) => (error as { status?: number }).status,
  );

describe('the agent through the SDK', () => {
  it('starts, reports, waits for, lists and traces a run', async () => {
    const started = await teamA.startAgent({
      prompt: 'The name and price of three products of the shop',
      schema: productsSchema,
      model: 'spark-1-mini',
      effort: 'low',
    });
    expect(started.success).toBe(true);
    const waited = await teamA.agent({
      prompt: 'The name and price of three products of the shop',
      schema: productsSchema,
      pollInterval: 1,
      timeout: 60,
    });
    expect(waited.status).toBe('completed');
    const products = (waited.data as { products: { name: string; source: string }[] }).products;
    expect(products.map((product) => product.name).sort()).toEqual([
      'Pre-seasoned Cast Iron Skillet 26 cm',
      'Ridgeline Trail Runner 3',
      'Washed Linen Shirt – Sand',
    ]);
    expect(waited.model).toBe('fake-agent');
    expect(waited.creditsUsed).toBeGreaterThan(5);

    const first = await teamA.getAgentStatus(started.id);
    expect(['processing', 'completed']).toContain(first.status);
    expect(first.effort).toBe('low');
    expect(first.expiresAt).toMatch(/^\d{4}-\d\d-\d\dT/);

    const listed = await teamA.listAgents();
    const ids = listed.agents?.map((item) => item.id) ?? [];
    expect(ids).toEqual(expect.arrayContaining([started.id]));
    const item = listed.agents?.find((entry) => entry.id === started.id);
    expect(item?.options).toMatchObject({ model: 'spark-1-mini', effort: 'low' });
    const older = await teamA.listAgents({ before: Date.parse(item!.createdAt) });
    expect(older.agents?.map((entry) => entry.id)).not.toContain(started.id);

    const waitedId = ids.find((id) => id !== started.id)!;
    const trace = await teamA.getAgentTrace(waitedId);
    const tools = (trace.events ?? []).flatMap((event) =>
      event.type === 'tool_call.finished' ? [event.toolName] : [],
    );
    expect(tools).toEqual(['search', 'map', 'scrape', 'scrape', 'scrape', 'finish']);
    expect(trace.creditsUsed).toBe(waited.creditsUsed);
    expect(trace.events?.[0]?.type).toBe('run.started');
  }, 120_000);

  it('cancels a run mid-way', async () => {
    fake.respond = () => ({ ...use('search', { query: 'shoe' }), delayMs: 200 });
    const { id } = await teamA.startAgent({ prompt: 'Anything', effort: 'high' });
    for (let i = 0; i < 100 && fake.requests.length < 2; i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await teamA.cancelAgent(id)).toBe(true);
    const status = await teamA.getAgentStatus(id);
    // The SDK types a run's status processing | completed | failed.
    expect(status).toMatchObject({ status: 'failed', cancelled: true, error: expect.any(String) });
  });

  it("keeps a team's runs from another team's key", async () => {
    fake.respond = () => ({ ...use('search', { query: 'shoe' }), delayMs: 200 });
    const { id } = await teamA.startAgent({ prompt: 'Anything', effort: 'high' });
    expect(await statusOf(teamB.getAgentStatus(id))).toBe(404);
    expect(await statusOf(teamB.getAgentTrace(id))).toBe(404);
    expect(await statusOf(teamB.cancelAgent(id))).toBe(404);
    expect((await teamB.listAgents()).agents?.map((item) => item.id)).not.toContain(id);
    // Still running, untouched, for its own team.
    expect((await teamA.getAgentStatus(id)).status).toBe('processing');
    expect(await teamA.cancelAgent(id)).toBe(true);
  });
});

describe('a server killed mid-run', () => {
  it('resumes the run at its next start from the last step, and completes it', async () => {
    const first = await startServe(env());
    const client = new Firecrawl({ apiKey: keyA, apiUrl: first.url });
    await indexShop(client);
    // A slow model: the kill comes while it thinks about the step after the map.
    fake.respond = (request) => ({
      ...shopper(request),
      delayMs: resultsOf(request).length === 2 ? 3000 : 50,
    });
    const { id } = await client.startAgent({ prompt: 'Three products', schema: productsSchema });
    // The third request reaching the model means the search and the map are done and stored.
    for (const end = Date.now() + 60_000; fake.requests.length < 3 && Date.now() < end;)
      await new Promise((resolve) => setTimeout(resolve, 25));
    const before = fake.requests.length;
    expect(before).toBe(3);
    await first.kill();

    fake.respond = shopper;
    const second = await startServe(env(), { dataDir: first.dataDir, port: first.port });
    try {
      let status = await client.getAgentStatus(id);
      for (const end = Date.now() + 60_000; status.status === 'processing' && Date.now() < end;) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        status = await client.getAgentStatus(id);
      }
      expect(status.status).toBe('completed');
      expect((status.data as { products: unknown[] }).products).toHaveLength(3);
      const trace = await client.getAgentTrace(id);
      const types = (trace.events ?? []).map((event) => event.type as string);
      expect(types).toContain('run.resumed');
      // The search and the map were not asked for again: after the restart the model was asked
      // for the third step (the scrapes) and the answer.
      const afterRestart = fake.requests.slice(before);
      expect(afterRestart.map((request) => resultsOf(request.body).length)).toEqual([2, 5]);
    } finally {
      await second.stop();
    }
  }, 180_000);
});
