/**
 * `strictConstrainToURLs` holds where a page ends up, not only where it starts: a page inside
 * the run's URLs that redirects outside them is refused by the `extract` and `scrape` tools
 * before its text reaches the model. Written as the attack: the allowed page redirects to a
 * secret one, and the model asks for it through each tool; no request the model receives (the
 * agent's steps and the extractor's calls alike) may hold the secret's text.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OpenAiLlmProvider } from '@trawl/adapters';
import { agent, resolveEngineConfig, SqliteStore } from '@trawl/core';
import { resultsOf, use } from '../../../../test/fakes/agent-model.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../../../../test/fakes/openai-server.ts';

const secret = 'SECRET_OUTSIDE_THE_RUN';
let site: Server;
let origin: string;
let fake: FakeOpenAi;
let llm: OpenAiLlmProvider;
let dir: string;
let store: SqliteStore;
const config = resolveEngineConfig({ convertThreads: 0 });

beforeAll(async () => {
  site = createServer((req, res) => {
    if (req.url === '/allowed/moved') {
      res.writeHead(302, { location: '/private/report' }).end();
      return;
    }
    const text = req.url === '/private/report' ? secret : 'An allowed page about kettles.';
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><html><head><title>Page</title></head><body><h1>${text}</h1></body></html>`,
    );
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  fake = await startFakeOpenAi();
  llm = new OpenAiLlmProvider({ baseUrl: fake.baseUrl, model: 'fake-agent', retryBaseMs: 10 });
  dir = await mkdtemp(join(tmpdir(), 'trawl-agent-scope-'));
  store = new SqliteStore({ path: join(dir, 'trawl.db') });
});
beforeEach(() => {
  fake.requests.length = 0;
});
afterAll(async () => {
  await store.close();
  await fake.close();
  await rm(dir, { recursive: true, force: true });
  site.closeAllConnections();
  site.close();
});

/** A model that asks `tool` for the redirecting page once, then finishes with what it saw. */
function modelUsing(tool: 'extract' | 'scrape', args: Record<string, unknown>) {
  fake.respond = (request) => {
    // The extractor's own calls carry no tools: they answer JSON read off a page.
    if (!request.tools) return { content: JSON.stringify({ title: 'read' }) };
    const results = resultsOf(request);
    if (results.length === 0) return use(tool, args);
    return use('finish', { answer: { seen: results[0]!.content } });
  };
}

const run = () =>
  agent(
    {
      prompt: 'What the report says',
      urls: [`${origin}/allowed/`],
      strictConstrainToURLs: true,
    },
    { llm, store, config },
  );

describe('a constrained run and a redirect out of its URLs', () => {
  it.each([
    ['extract', { urls: ['/allowed/moved'], prompt: 'the title' }],
    ['scrape', { url: '/allowed/moved', prompt: 'the title' }],
    ['scrape', { url: '/allowed/moved' }],
  ] as const)(
    '%s %j: the page is refused and its text never reaches the model',
    async (tool, args) => {
      const absolute = Object.fromEntries(
        Object.entries(args).map(([key, value]) => [
          key,
          Array.isArray(value)
            ? value.map((path: string) => `${origin}${path}`)
            : key === 'url'
              ? `${origin}${String(value)}`
              : value,
        ]),
      );
      modelUsing(tool, absolute);
      const result = await run();
      expect(result.status).toBe('completed');
      const toolResult = resultsOf(fake.requests.at(-1)!.body)[0]!;
      expect(toolResult.tool).toBe(tool);
      expect(toolResult.content).toMatch(/outside the URLs this run is constrained to/);
      expect(toolResult.content).toContain(`${origin}/private/report`);
      for (const request of fake.requests)
        expect(JSON.stringify(request.body)).not.toContain(secret);
      expect(JSON.stringify(result.data)).not.toContain(secret);
    },
  );
});
