/**
 * One validation per request: the server parses a body once, with core's schema
 * extended by the wire fields, and core runs the resolved options without parsing them again.
 * The spies only watch core's schemas; the request schemas are other objects built from them.
 */
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import {
  batchScrapeOptionsSchema,
  crawlOptionsSchema,
  extractOptionsSchema,
  map,
  MemoryStore,
  mapOptionsSchema,
  monitorCreateSchema,
  monitorUpdateSchema,
  resolveEngineConfig,
  scrapeOptionsSchema,
} from '@trawl/core';
import { OpenAiLlmProvider } from '@trawl/adapters';
import { ApiKeys, buildServer } from '@trawl/http';
import { startFakeOpenAi } from '../../../test/fakes/openai-server.ts';

const key = 'fc-once-key';
const site = inject('fixtureUrl');

function server() {
  return buildServer({
    store: new MemoryStore(),
    config: resolveEngineConfig({ allowPrivateAddresses: true }),
    keys: ApiKeys.parse(`team-once:${key}`),
    logLevel: 'silent',
  });
}
const post = (app: ReturnType<typeof server>, url: string, payload: object) =>
  app.inject({ method: 'POST', url, payload, headers: { authorization: `Bearer ${key}` } });

/** Watches every parse by core's own schemas. */
function watchCoreSchemas() {
  return [scrapeOptionsSchema, mapOptionsSchema, crawlOptionsSchema, batchScrapeOptionsSchema].map(
    (schema) => vi.spyOn(schema, 'safeParse'),
  );
}

afterEach(() => vi.restoreAllMocks());

describe('one validation per request', () => {
  it('sees a parse where there is one: raw options from a library call', async () => {
    const parses = watchCoreSchemas();
    await expect(map('not a url', { limit: 1 })).rejects.toMatchObject({ code: 'INVALID_URL' });
    expect(parses[1]).toHaveBeenCalledTimes(1);
  });

  it('scrapes with the options the request parse resolved, without parsing them again', async () => {
    const app = server();
    const parses = watchCoreSchemas();
    const answer = await post(app, '/v2/scrape', { url: `${site}/`, formats: ['markdown'] });
    expect(answer.statusCode).toBe(200);
    for (const parse of parses) expect(parse).not.toHaveBeenCalled();
    await app.close();
  });

  it('maps with the resolved options', async () => {
    const app = server();
    const parses = watchCoreSchemas();
    const answer = await post(app, '/v2/map', { url: `${site}/`, limit: 5 });
    expect(answer.statusCode).toBe(200);
    for (const parse of parses) expect(parse).not.toHaveBeenCalled();
    await app.close();
  });

  it('starts a crawl and a batch scrape with the resolved options', async () => {
    const app = server();
    const parses = watchCoreSchemas();
    const crawl = await post(app, '/v2/crawl', { url: `${site}/`, limit: 2 });
    expect(crawl.statusCode).toBe(200);
    const batch = await post(app, '/v2/batch/scrape', { urls: [`${site}/`] });
    expect(batch.statusCode).toBe(200);
    for (const parse of parses) expect(parse).not.toHaveBeenCalled();
    await Promise.all(app.jobs.running.map((job) => job.done));
    await app.close();
  });

  it('creates and updates a monitor with the options the request parse resolved', async () => {
    const app = server();
    const parses = [monitorCreateSchema, monitorUpdateSchema, scrapeOptionsSchema].map((schema) =>
      vi.spyOn(schema, 'safeParse'),
    );
    const created = await post(app, '/v2/monitor', {
      name: 'Once',
      schedule: { text: 'every day at 9am' },
      targets: [{ type: 'scrape', urls: [`${site}/`], scrapeOptions: { waitFor: 0 } }],
      origin: 'js-sdk',
    });
    expect(created.statusCode).toBe(200);
    const { id, targets } = created.json<{ data: { id: string; targets: object[] } }>().data;
    // Stored as the client wrote it, without the defaults spelled out.
    expect(targets[0]).toMatchObject({ scrapeOptions: { waitFor: 0 } });
    expect(Object.keys((targets[0] as { scrapeOptions: object }).scrapeOptions)).toEqual([
      'waitFor',
    ]);
    const updated = await app.inject({
      method: 'PATCH',
      url: `/v2/monitor/${id}`,
      payload: { name: 'Once again' },
      headers: { authorization: `Bearer ${key}` },
    });
    expect(updated.statusCode).toBe(200);
    for (const parse of parses) expect(parse).not.toHaveBeenCalled();
    await app.close();
  });

  it('runs an extract with the options its request check resolved, its page options resolved once', async () => {
    const fake = await startFakeOpenAi();
    fake.respond = () => ({ content: '{"title":"x"}' });
    const app = buildServer({
      store: new MemoryStore(),
      config: resolveEngineConfig({ allowPrivateAddresses: true }),
      keys: ApiKeys.parse(`team-once:${key}`),
      logLevel: 'silent',
      llm: new OpenAiLlmProvider({ baseUrl: fake.baseUrl, model: 'fake' }),
    });
    const extractParses = vi.spyOn(extractOptionsSchema, 'safeParse');
    const pageParses = vi.spyOn(scrapeOptionsSchema, 'safeParse');
    const started = await post(app, '/v2/extract', {
      urls: [`${site}/`, `${site}/canonical.html`],
      prompt: 'the title',
    });
    expect(started.statusCode).toBe(200);
    const { id } = started.json<{ id: string }>();
    let status = 'processing';
    for (let tries = 0; status === 'processing' && tries < 100; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const answer = await app.inject({
        method: 'GET',
        url: `/v2/extract/${id}`,
        headers: { authorization: `Bearer ${key}` },
      });
      status = answer.json<{ status: string }>().status;
    }
    expect(status).toBe('completed');
    // The request is checked once (the job reuses the result); the two pages share one parse.
    expect(extractParses).toHaveBeenCalledTimes(1);
    expect(pageParses).toHaveBeenCalledTimes(1);
    await app.close();
    await fake.close();
  });

  it('still checks across fields once: a scrape option clash inside a crawl is a 400 naming it', async () => {
    const app = server();
    const answer = await post(app, '/v2/crawl', {
      url: `${site}/`,
      scrapeOptions: { formats: ['changeTracking'] },
    });
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toMatchObject({
      success: false,
      code: 'BAD_REQUEST',
      error:
        "Invalid crawl request at 'scrapeOptions.formats': changeTracking needs the markdown format too",
    });
    await app.close();
  });

  it('lists an active crawl with the options as the client wrote them, not the defaults', async () => {
    const app = server();
    // A slow start page keeps the crawl running while it is listed.
    const crawl = await post(app, '/v2/crawl', { url: `${site}/slow?ms=1500`, limit: 3 });
    const active = await app.inject({
      method: 'GET',
      url: '/v2/crawl/active',
      headers: { authorization: `Bearer ${key}` },
    });
    const listed = active.json<{ crawls: { id: string; options: object }[] }>().crawls;
    const mine = listed.find((entry) => entry.id === crawl.json<{ id: string }>().id);
    expect(mine?.options).toEqual({ limit: 3 });
    await Promise.all(app.jobs.running.map((job) => job.done));
    await app.close();
  });
});
