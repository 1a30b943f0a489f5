/**
 * LLM tokens on the server's books: a scrape with the json format writes an
 * `llm_tokens` line in the credits ledger at the configured price per 1,000 tokens, and a team
 * past its daily token cap gets 429 with Retry-After for LLM formats, while plain scrapes go on.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { OpenAiLlmProvider } from '@trawl/adapters';
import { resolveEngineConfig, SqliteStore } from '@trawl/core';
import { type LedgerEntry } from '@trawl/core/server';
import { ApiKeys, buildServer } from '@trawl/http';
import { startFakeOpenAi, type FakeOpenAi } from '../../../test/fakes/openai-server.ts';

const site = inject('fixtureUrl');
let fake: FakeOpenAi;
let store: SqliteStore;
let app: ReturnType<typeof buildServer>;

beforeAll(async () => {
  fake = await startFakeOpenAi();
  fake.respond = () => ({ content: '{"title":"x"}' });
  store = new SqliteStore({ path: join(mkdtempSync(join(tmpdir(), 'trawl-llm-usage-')), 'db') });
  app = buildServer({
    store,
    // A model call may use up to 2,048 tokens, and that is reserved before it is made: the
    // day's 2,100 tokens pay for one call, not two.
    config: resolveEngineConfig({ allowPrivateAddresses: true, llmContextTokens: 2048 }),
    keys: ApiKeys.parse('team-a:key-a'),
    logLevel: 'silent',
    llm: new OpenAiLlmProvider({ baseUrl: fake.baseUrl, model: 'fake' }),
    creditPrices: { llm_tokens: 3 },
    llmDailyTokens: 2100,
  });
  await app.ready();
});
afterAll(async () => {
  await app.close();
  await store.close();
  await fake.close();
});

const scrape = (formats: unknown[]) =>
  app.inject({
    method: 'POST',
    url: '/v2/scrape',
    headers: { authorization: 'Bearer key-a' },
    payload: { url: `${site}/articles/plain.html`, formats },
  });
const json = {
  type: 'json',
  schema: { type: 'object', properties: { title: { type: 'string' } } },
};

describe('LLM token accounting', () => {
  it('charges the tokens of a json scrape in the ledger, then caps the team for the day', async () => {
    const first = await scrape([json]);
    expect(first.statusCode).toBe(200);
    const tokens = first.json<{ data: { metadata: { llmTokens: number } } }>().data.metadata
      .llmTokens;
    expect(tokens).toBeGreaterThan(0);
    const lines: LedgerEntry[] = [];
    for await (const entry of app.ledger.entries('team-a')) lines.push(entry);
    const charged = lines.find((entry) => entry.endpoint === 'llm_tokens');
    expect(charged?.credits).toBe(3 * Math.ceil(tokens / 1000));

    const capped = await scrape([json]);
    expect(capped.statusCode).toBe(429);
    expect(Number(capped.headers['retry-after'])).toBeGreaterThan(0);
    expect(capped.json()).toMatchObject({ code: 'RATE_LIMITED' });
    expect((await scrape(['markdown'])).statusCode).toBe(200);
  });
});
