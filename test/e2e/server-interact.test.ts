/**
 * `POST/DELETE /v2/scrape/{scrapeId}/interact` driven by the official JS SDK: code mode runs
 * Playwright code against the scraped page, prompt mode has the (fake) model pick actions that
 * the session runs, the session stays across calls, belongs to the scrape's team, and DELETE
 * ends it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Firecrawl from '@mendable/firecrawl-js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { findChromium, resolveEngineConfig, SqliteStore } from '@trawl/core';
import { OpenAiLlmProvider } from '@trawl/adapters';
import { ApiKeys, buildServer } from '@trawl/http';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/openai-server.ts';

const fixture = inject('fixtureUrl');
const key = 'fc-interact-a';
const otherKey = 'fc-interact-b';

const chromiumMissing = (() => {
  try {
    findChromium();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
})();

describe.skipIf(chromiumMissing)('interact with a finished scrape', () => {
  let fake: FakeOpenAi;
  let url: string;
  let close: () => Promise<void>;
  let firecrawl: Firecrawl;
  beforeAll(async () => {
    fake = await startFakeOpenAi();
    const store = new SqliteStore({
      path: join(mkdtempSync(join(tmpdir(), 'trawl-interact-')), 'trawl.db'),
    });
    const app = buildServer({
      store,
      config: resolveEngineConfig({ allowPrivateAddresses: true, browserExecute: 'node' }),
      keys: ApiKeys.parse(`team-a:${key},team-b:${otherKey}`),
      logLevel: 'silent',
      llm: new OpenAiLlmProvider({ baseUrl: fake.baseUrl, model: 'fake' }),
    });
    url = await app.listen({ port: 0, host: '127.0.0.1' });
    close = async () => {
      await app.close();
      await store.close();
      await fake.close();
    };
    firecrawl = new Firecrawl({ apiKey: key, apiUrl: url });
  });
  afterAll(() => close());

  it('runs code and prompts against the scraped page, then stops', async () => {
    const doc = await firecrawl.scrape(`${fixture}/browser/actions.html`, {
      formats: ['markdown'],
    });
    const scrapeId = doc.metadata?.scrapeId ?? '';
    const ran = await firecrawl.interact(scrapeId, {
      code: "await page.click('#reveal'); return await page.title();",
    });
    expect(ran).toMatchObject({ success: true });
    expect(ran.output).toContain('Harbour booking form');

    // The same page, still open: the click above left its mark.
    fake.script({
      content: JSON.stringify({
        actions: [
          { type: 'click', selector: '#boat' },
          { type: 'write', text: 'Seagull' },
          { type: 'executeJavascript', script: "return document.getElementById('boat').value" },
        ],
        answer: 'Typed the boat name.',
      }),
    });
    const prompted = await firecrawl.interact(scrapeId, {
      prompt: 'Type Seagull as the boat name',
    });
    expect(prompted.output).toContain('Typed the boat name.');
    expect(prompted.output).toContain('Seagull');
    const shown = fake.requests.at(-1)?.body.messages.at(-1)?.content ?? '';
    expect(shown).toContain('Book a mooring');

    // Another team's key does not reach the scrape.
    const other = await fetch(`${url}/v2/scrape/${scrapeId}/interact`, {
      method: 'POST',
      headers: { authorization: `Bearer ${otherKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ code: 'return 1' }),
    });
    expect(other.status).toBe(404);

    const stopped = await firecrawl.stopInteraction(scrapeId);
    expect(stopped).toMatchObject({ success: true, status: 'destroyed' });
    const again = await fetch(`${url}/v2/scrape/${scrapeId}/interact`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    });
    expect(again.status).toBe(404);
  }, 120_000);

  it('refuses a body with neither code nor prompt, and an unknown scrape', async () => {
    const call = (id: string, body: unknown) =>
      fetch(`${url}/v2/scrape/${id}/interact`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await call('5f0c6f4e-8b0a-4a51-9d55-0d6c3c0a1b2c', {})).status).toBe(400);
    expect((await call('5f0c6f4e-8b0a-4a51-9d55-0d6c3c0a1b2c', { code: 'return 1' })).status).toBe(
      404,
    );
  });
});
