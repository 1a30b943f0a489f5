/**
 * Credits past their limit, as an attacker spends them: a team with TRAWL_TEAM_CREDITS=3 spreads
 * its work over two `trawl serve` processes sharing PostgreSQL and Redis (a key prefix of this
 * file). A batch, an extract or a monitor check bigger than the credits, and every kind of paid
 * work at once (8 scrapes, a batch, a crawl, an extract, an agent run on the fake model, a
 * monitor check), never use more than the 3 credits. Feedback on one job sent to both processes
 * at once refunds it once, and the LLM token cap holds on /v2/parse too. Model calls made at once
 * by a team with few credits or tokens left never pass either limit: each call is paid for
 * before it is made, at its upper bound.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { mustFinish, stepsSoFar, use } from '../fakes/agent-model.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/openai-server.ts';
import { serveProcess, type KeyedServeProcess } from './serve-process.ts';
import { apiProcessPair, type ApiProcessPair } from './split-deployment.ts';

const fixture = inject('fixtureUrl');
const credits = 3;

let model: FakeOpenAi;
const pairs: ApiProcessPair[] = [];
const started: KeyedServeProcess[] = [];

beforeAll(async () => {
  model = await startFakeOpenAi();
  // The agent reads page after page until its budget makes it finish; extract and the json
  // format (no tools) get a small answer.
  model.respond = (request) => {
    if (!request.tools?.length) return { content: '{"title":"A page"}' };
    if (mustFinish(request)) return use('finish', { answer: { title: 'done' } });
    return use('scrape', { url: `${fixture}/?agent=${stepsSoFar(request)}` });
  };
});
afterAll(async () => {
  await Promise.all(started.splice(0).map((server) => server.stop()));
  await Promise.all(pairs.splice(0).map((pair) => pair.close()));
  await model.close();
});

/** Two API processes on a fresh database and Redis prefix, with `env` besides. */
async function twoProcesses(label: string, env: Record<string, string> = {}) {
  const pair = await apiProcessPair(`credits_${label}`, {
    TRAWL_TEAM_CREDITS: String(credits),
    TRAWL_LLM_BASE_URL: model.baseUrl,
    TRAWL_LLM_MODEL: 'fake',
    ...env,
  });
  pairs.push(pair);
  return pair.processes;
}

/** Credits the team used (debits less refunds), as the ledger holds them. */
async function used(server: KeyedServeProcess): Promise<number> {
  const usage = await server.call('GET', '/v2/team/credit-usage');
  return (usage.body['data'] as { creditsUsed: number }).creditsUsed;
}

/** Polls `path` until `done` holds of its body. */
async function until(
  server: KeyedServeProcess,
  path: string,
  done: (body: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  for (const end = Date.now() + 60_000; Date.now() < end;) {
    const answer = await server.call('GET', path);
    if (done(answer.body)) return answer.body;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${path} did not end`);
}

const ended = (body: Record<string, unknown>) =>
  !['scraping', 'processing', 'queued', 'running'].includes(
    (body['status'] as string | undefined) ??
      (body['data'] as { status?: string } | undefined)?.status ??
      '',
  );

/** Creates a monitor of `pages` fixture pages and runs a check; resolves the check as it ended. */
async function monitorCheck(server: KeyedServeProcess, pages: number) {
  const created = await server.call('POST', '/v2/monitor', {
    name: 'Pages',
    schedule: { text: 'daily' },
    targets: [
      {
        type: 'scrape',
        urls: Array.from({ length: pages }, (_, index) => `${fixture}/?monitor=${index}`),
      },
    ],
  });
  if (created.status !== 200) return { status: created.status };
  const id = (created.body['data'] as { id: string }).id;
  const run = await server.call('POST', `/v2/monitor/${id}/run`, {});
  if (run.status !== 200) return { status: run.status };
  const check = await until(
    server,
    `/v2/monitor/${id}/checks/${String(run.body['id'])}`,
    (body) =>
      ended(body) && (body['data'] as { billingStatus?: string }).billingStatus !== 'reserved',
  );
  return { status: 200, check: check['data'] as Record<string, unknown> };
}

describe('credits past the team limit, over two API processes', () => {
  it('refuses a batch and an extract bigger than the credits, and caps a monitor check', async () => {
    const [one, two] = await twoProcesses('each');
    const batch = await one.call('POST', '/v2/batch/scrape', {
      urls: Array.from({ length: 20 }, (_, index) => `${fixture}/?batch=${index}`),
      formats: ['markdown'],
    });
    expect(batch).toMatchObject({
      status: 402,
      body: { success: false, error: expect.stringMatching(/^Insufficient credits/) },
    });
    const extract = await two.call('POST', '/v2/extract', {
      urls: Array.from({ length: 12 }, (_, index) => `${fixture}/?extract=${index}`),
      prompt: 'The title',
    });
    expect(extract.status).toBe(402);
    expect(await used(one)).toBe(0);

    const monitored = await monitorCheck(one, 8);
    expect(monitored.check).toMatchObject({ actualCredits: credits });
    expect(await used(two)).toBe(credits);
  }, 120_000);

  it('lets no mix of batch, crawl, extract, agent, monitor and 8 scrapes use more than 3', async () => {
    const [one, two] = await twoProcesses('mix');
    const at = (index: number) => (index % 2 ? two : one);
    const scrapes = Array.from({ length: 8 }, (_, index) =>
      at(index).call('POST', '/v2/scrape', {
        url: `${fixture}/slow?ms=300&scrape=${index}`,
        formats: ['markdown'],
      }),
    );
    const jobs = [
      one.call('POST', '/v2/batch/scrape', {
        urls: [`${fixture}/?batch=1`, `${fixture}/?batch=2`],
      }),
      two.call('POST', '/v2/crawl', { url: `${fixture}/`, limit: 3 }),
      one.call('POST', '/v2/extract', { urls: [`${fixture}/?extract=1`], prompt: 'The title' }),
      two.call('POST', '/v2/agent', { prompt: 'Read every page', maxCredits: 3 }),
    ];
    const [monitored, ...answers] = await Promise.all([monitorCheck(one, 2), ...scrapes, ...jobs]);
    const [batch, crawl, extract, agent] = answers.slice(8);
    // Every job admitted runs to its end before the total is read.
    const waits = [
      [batch, '/v2/batch/scrape'],
      [crawl, '/v2/crawl'],
      [extract, '/v2/extract'],
      [agent, '/v2/agent'],
    ] as const;
    for (const [answer, path] of waits)
      if (answer?.status === 200) await until(one, `${path}/${String(answer.body['id'])}`, ended);
    expect(monitored?.status).toBeLessThan(500);
    const admitted = answers.filter((answer) => answer.status === 200).length;
    expect(admitted).toBeGreaterThan(0);
    expect(await used(one)).toBeLessThanOrEqual(credits);
    expect(await used(two)).toBeLessThanOrEqual(credits);
  }, 180_000);

  it('refunds a job once when its feedback reaches both processes at once', async () => {
    const [one, two] = await twoProcesses('feedback', { TRAWL_TEAM_CREDITS: '100' });
    const jobs = await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        one.call('POST', '/v2/scrape', { url: `${fixture}/?feedback=${index}` }),
      ),
    );
    const ids = jobs.map(
      (job) => (job.body['data'] as { metadata: { scrapeId: string } }).metadata.scrapeId,
    );
    expect(await used(one)).toBe(6);
    const answers = await Promise.all(
      ids.flatMap((jobId) =>
        [one, two].map((server) =>
          server.call('POST', '/v2/feedback', {
            endpoint: 'scrape',
            jobId,
            rating: 'bad',
            note: 'The page came back empty.',
          }),
        ),
      ),
    );
    expect(answers.filter((answer) => answer.status !== 200)).toEqual([]);
    const refunded = answers.reduce(
      (sum, answer) => sum + Number(answer.body['creditsRefunded'] ?? 0),
      0,
    );
    // Each job cost one credit: six refunds at most, one per job, whichever process took it.
    expect(refunded).toBe(6);
    expect(answers.filter((answer) => answer.body['alreadySubmitted'] === true)).toHaveLength(6);
    const usage = await two.call('GET', '/v2/team/credit-usage');
    expect(usage.body['data']).toMatchObject({ creditsUsed: 0, creditsRefunded: 6 });
  }, 120_000);
});

describe('the LLM token cap', () => {
  it('holds on /v2/parse with a json format once /v2/scrape answered 429', async () => {
    // Room for one model call of the 2,048-token context, not for two.
    const server = await serveProcess({
      TRAWL_LLM_BASE_URL: model.baseUrl,
      TRAWL_LLM_MODEL: 'fake',
      TRAWL_LLM_CONTEXT_TOKENS: '2048',
      TRAWL_LLM_DAILY_TOKENS: '2100',
    });
    started.push(server);
    const json = {
      type: 'json',
      schema: { type: 'object', properties: { title: { type: 'string' } } },
    };
    // The first asks the model; the next cannot reserve a call's tokens under the cap.
    expect(
      (await server.call('POST', '/v2/scrape', { url: `${fixture}/`, formats: [json] })).status,
    ).toBe(200);
    expect(
      (await server.call('POST', '/v2/scrape', { url: `${fixture}/`, formats: [json] })).status,
    ).toBe(429);
    const form = new FormData();
    form.append(
      'file',
      new Blob(['<html><body><h1>A page</h1></body></html>'], { type: 'text/html' }),
      'page.html',
    );
    form.append('options', JSON.stringify({ formats: [json] }));
    const requestsBefore = model.requests.length;
    const parsed = await fetch(`${server.url}/v2/parse`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.key}` },
      body: form,
    });
    expect(parsed.status).toBe(429);
    expect(parsed.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(model.requests.length).toBe(requestsBefore);
  }, 60_000);
});

describe('model calls at once, with few credits or tokens left', () => {
  /** A json format whose prompt differs per request (no cached answer), asking the fake model. */
  const json = (index: number) => ({
    type: 'json',
    prompt: `The title of the page, request ${index}`,
    schema: { type: 'object', properties: { title: { type: 'string' } } },
  });
  /** A long answer: each call uses hundreds of tokens, some past a thousand. */
  const longAnswer = () => ({ content: JSON.stringify({ title: 'A page '.repeat(400) }) });

  it('never passes the credits: each call reserves its bound before it is made', async () => {
    const limit = 5;
    model.respond = longAnswer;
    const server = await serveProcess({
      TRAWL_TEAM_CREDITS: String(limit),
      TRAWL_LLM_BASE_URL: model.baseUrl,
      TRAWL_LLM_MODEL: 'fake',
      TRAWL_LLM_CONTEXT_TOKENS: '2048',
    });
    started.push(server);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        server.call('POST', '/v2/scrape', {
          url: `${fixture}/?llm=${index}`,
          formats: ['markdown', json(index)],
        }),
      ),
    );
    // Some ran, with their answer; the rest were refused rather than run on credits in use.
    const ran = answers.filter((answer) => answer.status === 200);
    expect(ran.length).toBeGreaterThan(0);
    expect(answers.every((answer) => [200, 402].includes(answer.status))).toBe(true);
    const usage = await server.call('GET', '/v2/team/credit-usage');
    expect((usage.body['data'] as { creditsUsed: number }).creditsUsed).toBeLessThanOrEqual(limit);
  }, 60_000);

  it('never passes the daily token cap, on two processes at once', async () => {
    const cap = 3000;
    model.respond = longAnswer;
    const [one, two] = await twoProcesses('tokens', {
      TRAWL_TEAM_CREDITS: '1000',
      TRAWL_LLM_DAILY_TOKENS: String(cap),
      TRAWL_LLM_CONTEXT_TOKENS: '2048',
    });
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        (index % 2 ? two : one).call('POST', '/v2/scrape', {
          url: `${fixture}/?tokens=${index}`,
          formats: ['markdown', json(index)],
        }),
      ),
    );
    expect(answers.some((answer) => answer.status === 200)).toBe(true);
    expect(answers.every((answer) => [200, 429].includes(answer.status))).toBe(true);
    const usage = await one.call('GET', '/v2/team/token-usage');
    const used = (usage.body['data'] as { tokensUsedToday: number }).tokensUsedToday;
    expect(used).toBeGreaterThan(0);
    expect(used).toBeLessThanOrEqual(cap);
  }, 120_000);
});
