/**
 * Agent runs and extract jobs in a split deployment, as real processes: the API
 * process (`trawl serve --role api`) only accepts and answers them; a `trawl worker` runs them,
 * taking them from the queue; and both complete after kill -9 of the worker running them and of
 * the API process, the agent from its last stored step.
 */
import { afterAll, beforeAll, expect, inject, it, vi } from 'vitest';
import { call, factsOf, productsSchema, resultsOf, use } from '../fakes/agent-model.ts';
import { startFakeOpenAi, type ChatRequest, type FakeOpenAi } from '../fakes/openai-server.ts';
import { servicesMissing, SplitDeployment } from './split-deployment.ts';

const missing = await servicesMissing();
if (missing) console.warn(`split-deployment job tests skipped: ${missing}`);

const site = inject('fixtureUrl');
const shopUrls = ['trail-runner', 'cast-iron-skillet', 'linen-shirt'].map(
  (page) => `${site}/shop/${page}.html`,
);
const titlesSchema = {
  type: 'object',
  properties: { titles: { type: 'array', items: { type: 'string' } } },
  required: ['titles'],
};

let fake: FakeOpenAi;
let deployment: SplitDeployment;
/** While set, the model thinks for a long time: the kill comes meanwhile. */
let slow = true;

const isAgent = (request: ChatRequest) => (request.tools ?? []).length > 0;
const agentRequests = () => fake.requests.filter((request) => isAgent(request.body));
const extractRequests = () => fake.requests.filter((request) => !isAgent(request.body));

/**
 * The agent reads the three shop pages (one step), then answers with what it read; extract
 * answers every page with a title. Both are slow after the agent's first step while `slow`.
 */
function model(request: ChatRequest) {
  const delayMs = slow ? 60_000 : 20;
  if (!isAgent(request)) return { content: '{"titles":["Installation"]}', delayMs };
  const results = resultsOf(request);
  if (results.length === 0)
    return call(...shopUrls.map((url) => ({ name: 'scrape', arguments: { url } })));
  const products = results.filter((result) => result.content.startsWith('URL:'));
  return {
    ...use('finish', { answer: { products: products.map((page) => factsOf(page.content)) } }),
    delayMs,
  };
}

beforeAll(async () => {
  fake = await startFakeOpenAi();
  fake.respond = model;
});
afterAll(async () => {
  await deployment?.close();
  await fake?.close();
});

it.skipIf(missing !== undefined)(
  'runs agent and extract jobs on a worker, not the API process, and completes them after kill -9 of both',
  async () => {
    deployment = await new SplitDeployment({
      TRAWL_LLM_BASE_URL: fake.baseUrl,
      TRAWL_LLM_MODEL: 'fake-agent',
    }).open();
    await deployment.startApi();
    const agentId = (
      await deployment.call('POST', '/v2/agent', {
        prompt: 'Three products',
        schema: productsSchema,
      })
    )['id'] as string;
    const extractId = (
      await deployment.call('POST', '/v2/extract', {
        urls: [`${site}/docs/install.html`],
        prompt: 'The titles',
        schema: titlesSchema,
      })
    )['id'] as string;
    expect(agentId).toMatch(/^[0-9a-f-]{36}$/);
    expect(extractId).toMatch(/^[0-9a-f-]{36}$/);

    // With no worker, nothing runs them: the API process only accepted them.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(fake.requests).toHaveLength(0);
    expect(await deployment.call('GET', `/v2/agent/${agentId}`)).toMatchObject({
      status: 'processing',
    });
    expect(await deployment.call('GET', `/v2/extract/${extractId}`)).toMatchObject({
      status: 'processing',
    });

    // A worker takes them: the agent's first step is stored, both wait on the slow model.
    const worker = await deployment.startWorker();
    await vi.waitFor(
      () => {
        expect(agentRequests().length).toBeGreaterThanOrEqual(2);
        expect(extractRequests().length).toBeGreaterThanOrEqual(1);
      },
      { timeout: 60_000, interval: 100 },
    );
    const agentAsked = agentRequests().length;
    await worker.kill();
    await deployment.api?.kill();
    slow = false;

    await Promise.all([deployment.startApi(), deployment.startWorker()]);
    const agentStatus = () => deployment.call('GET', `/v2/agent/${agentId}`);
    const extractStatus = () => deployment.call('GET', `/v2/extract/${extractId}`);
    await vi.waitFor(
      async () => {
        expect((await agentStatus())['status']).toBe('completed');
        expect((await extractStatus())['status']).toBe('completed');
      },
      { timeout: 90_000, interval: 500 },
    );
    const agentDone = await agentStatus();
    const products = (agentDone['data'] as { products: { name: string }[] }).products;
    expect(products.map((product) => product.name).sort()).toEqual([
      'Pre-seasoned Cast Iron Skillet 26 cm',
      'Ridgeline Trail Runner 3',
      'Washed Linen Shirt – Sand',
    ]);
    // Taken over from its last stored step: the scrapes were not asked for again.
    const trace = await deployment.call('GET', `/v2/agent/${agentId}/trace`);
    const types = (trace['events'] as { type: string }[]).map((event) => event.type);
    expect(types).toContain('run.resumed');
    expect(
      agentRequests()
        .slice(agentAsked)
        .map((r) => resultsOf(r.body).length),
    ).toEqual([3]);
    expect((await extractStatus())['data']).toEqual({ titles: ['Installation'] });
  },
  240_000,
);
