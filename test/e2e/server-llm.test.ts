/**
 * The LLM formats through `trawl serve` as a real process, driven by the official SDK (issue
 * 18): TRAWL_LLM_BASE_URL points at the fake OpenAI-compatible server. scrape with each format,
 * crawl with json, parse with json; an invalid schema is a 400 before any model call; token use
 * shows in the ledger and the SDK's usage endpoints.
 */
import Firecrawl from '@mendable/firecrawl-js';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { startFakeOpenAi, type ChatRequest, type FakeOpenAi } from '../fakes/openai-server.ts';
import { startServe, type ServeProcess } from './serve-process.ts';

const site = inject('fixtureUrl');
const key = 'fc-llm-team-a';

let fake: FakeOpenAi;
let server: ServeProcess;
let firecrawl: Firecrawl;

/** Answers each kind of request the engine sends, by its schema name. */
function answer(request: ChatRequest) {
  const name = request.response_format?.json_schema?.name;
  const text = request.messages.at(-1)?.content ?? '';
  const pageTitle = /^#\s+(.+)$/m.exec(text)?.[1] ?? 'untitled';
  if (/one of several/.test(text))
    return { content: JSON.stringify({ titles: [pageTitle], site: 'Quiver docs' }) };
  switch (name) {
    case 'crawl_options':
      return {
        content:
          '{"includePaths":["^/docs/(guide|install)"],"excludePaths":[],"limit":1,"sitemap":"skip"}',
      };
    case 'summary':
      return { content: '{"summary":"A short summary."}' };
    case 'answer':
      return { content: '{"answer":"Three constraints."}' };
    case 'highlights':
      return { content: '{"relevant":[0]}' };
    default:
      return { content: JSON.stringify({ title: pageTitle }) };
  }
}

beforeAll(async () => {
  fake = await startFakeOpenAi();
  fake.respond = answer;
  server = await startServe({
    TRAWL_API_KEYS: `team-a:${key}`,
    TRAWL_ALLOW_PRIVATE_ADDRESSES: 'true',
    TRAWL_LLM_BASE_URL: fake.baseUrl,
    TRAWL_LLM_MODEL: 'fake-model',
  });
  firecrawl = new Firecrawl({ apiKey: key, apiUrl: server.url });
});
beforeEach(() => {
  fake.requests.length = 0;
});
afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

const titleSchema = {
  type: 'object',
  properties: { title: { type: 'string' } },
  required: ['title'],
};

describe('scrape through the SDK', () => {
  it('answers json, summary, question and the deprecated query', async () => {
    const doc = await firecrawl.scrape(`${site}/articles/plain.html`, {
      formats: [
        { type: 'json', schema: titleSchema, prompt: 'the title' },
        'summary',
        { type: 'question', question: 'How many constraints are there?' },
      ],
    });
    expect(doc.json).toEqual({ title: 'How timetables are planned' });
    expect(doc.summary).toBe('A short summary.');
    expect(doc.answer).toBe('Three constraints.');
    expect(fake.requests.length).toBe(3);
    const query = await firecrawl.scrape(`${site}/docs/guide.html`, {
      formats: [{ type: 'query', prompt: 'What does Quiver do?', mode: 'freeform' }],
    });
    expect(query.answer).toBe('Three constraints.');
  });

  it('answers highlights, attributes, product and menu', async () => {
    const highlights = await firecrawl.scrape(`${site}/articles/heavy-boilerplate.html`, {
      formats: [{ type: 'highlights', query: 'Where is the old TTP server now?' }],
    });
    expect(highlights.highlights).toContain('heritage centre');
    const shop = await firecrawl.scrape(`${site}/shop/merino-hoodie.html`, {
      formats: [
        'product',
        { type: 'attributes', selectors: [{ selector: 'legend', attribute: 'text' }] },
      ],
    });
    expect(shop.product?.title).toBe('Merino Travel Hoodie');
    expect(shop.product?.variants).toHaveLength(3);
    expect(shop.attributes).toEqual([
      { selector: 'legend', attribute: 'text', values: ['Colour', 'Size'] },
    ]);
    const menu = await firecrawl.scrape(`${site}/restaurants/noodle-bar.html`, {
      formats: ['menu'],
    });
    expect(menu.menu?.sections.map((section) => section.name)).toEqual(['Ramen', 'Small plates']);
  });

  it('refuses an invalid JSON Schema with a 400 naming the path, calling no model', async () => {
    const error = await firecrawl
      .scrape(`${site}/articles/plain.html`, {
        formats: [{ type: 'json', schema: { type: 'object', properties: { a: { type: 7 } } } }],
      })
      .then(
        () => undefined,
        (caught: unknown) => caught as { status?: number; message: string },
      );
    expect(error?.status).toBe(400);
    expect(error?.message).toContain('formats.0.schema');
    expect(fake.requests).toHaveLength(0);
  });
});

describe('crawl and parse through the SDK', () => {
  it('crawls with the json format on every page', async () => {
    const job = await firecrawl.crawl(`${site}/docs/`, {
      limit: 3,
      scrapeOptions: { formats: [{ type: 'json', schema: titleSchema }] },
      pollInterval: 0.2,
      timeout: 60,
    });
    expect(job.status).toBe('completed');
    expect(job.data.length).toBe(3);
    for (const doc of job.data) expect(doc.json).toMatchObject({ title: expect.any(String) });
  });

  it('batch-scrapes with the summary format', async () => {
    const job = await firecrawl.batchScrape(
      [`${site}/articles/plain.html`, `${site}/docs/guide.html`],
      { options: { formats: ['summary'] }, pollInterval: 0.2, timeout: 60 },
    );
    expect(job.status).toBe('completed');
    expect(job.data.map((doc) => doc.summary)).toEqual(['A short summary.', 'A short summary.']);
  });

  it('scrapes search results with the summary format', async () => {
    // The plain article was scraped above, so the built-in index finds it by its words.
    const found = await firecrawl.search('timetables planned', {
      limit: 3,
      scrapeOptions: { formats: ['summary'] },
    });
    const first = found.web?.[0] as { url: string; summary?: string } | undefined;
    expect(first?.url).toContain('/articles/plain.html');
    expect(first?.summary).toBe('A short summary.');
  });

  it('parses an uploaded HTML file with the json format', async () => {
    const doc = await firecrawl.parse(
      {
        filename: 'note.html',
        data: '<html><body><h1>Quarterly note</h1><p>Revenue grew in every region.</p></body></html>',
        contentType: 'text/html',
      },
      { formats: [{ type: 'json', schema: titleSchema }] },
    );
    expect(doc.json).toEqual({ title: 'Quarterly note' });
  });
});

describe('token usage', () => {
  it('shows the tokens in the SDK usage endpoints and their credits in the history', async () => {
    await firecrawl.scrape(`${site}/articles/plain.html`, {
      formats: [{ type: 'json', schema: titleSchema }],
    });
    const current = await firecrawl.getTokenUsage();
    expect(current.remainingTokens).toBeGreaterThan(0);
    const tokens = await firecrawl.getTokenUsageHistorical();
    expect(tokens.periods.at(-1)?.tokensUsed).toBeGreaterThan(0);
    const credits = await firecrawl.getCreditUsageHistorical();
    expect(credits.periods.at(-1)?.creditsUsed).toBeGreaterThan(0);
  });
});

describe('extract through the SDK', () => {
  const extractSchema = {
    type: 'object',
    properties: {
      titles: { type: 'array', items: { type: 'string' } },
      site: { type: 'string' },
    },
    required: ['titles'],
  };

  it('maps a /* wildcard, reads the picked pages, merges one answer with sources', async () => {
    const result = await firecrawl.extract({
      urls: [`${site}/docs/*`, 'not a url at all ::'],
      prompt: 'The titles of the documentation pages',
      schema: extractSchema,
      showSources: true,
      pollInterval: 0.2,
      timeout: 60,
    });
    expect(result.status).toBe('completed');
    const data = result.data as { titles: string[]; site: string };
    expect(data.site).toBe('Quiver docs');
    expect(data.titles.length).toBeGreaterThanOrEqual(3);
    expect(new Set(data.titles).size).toBe(data.titles.length);
    const sources = result.sources as { titles: string[] };
    expect(sources.titles.length).toBeGreaterThanOrEqual(data.titles.length);
    for (const url of sources.titles) expect(url.startsWith(`${site}/docs/`)).toBe(true);
  });

  it('refuses an invalid schema with a 400 before starting a job', async () => {
    const error = await firecrawl
      .extract({ urls: [`${site}/docs/`], schema: { type: 'object', required: 'titles' } })
      .then(
        () => undefined,
        (caught: unknown) => caught as { status?: number; message: string },
      );
    expect(error?.status).toBe(400);
    expect(error?.message).toContain('schema');
  });

  it('cancels a running extract job', async () => {
    fake.respond = () => ({ content: '{"titles":[]}', delayMs: 5000 });
    try {
      const started = await firecrawl.startExtract({
        urls: [`${site}/docs/install.html`, `${site}/docs/guide.html`],
        prompt: 'titles',
      });
      const cancel = await fetch(`${server.url}/v2/extract/${started.id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${key}` },
      });
      expect(cancel.status).toBe(200);
      const status = await firecrawl.getExtractStatus(started.id!);
      expect(status.status).toBe('cancelled');
    } finally {
      fake.respond = answer;
    }
  });
});

describe('crawl prompt', () => {
  it('previews the options a prompt turns into', async () => {
    const preview = await firecrawl.crawlParamsPreview(
      `${site}/docs/`,
      'only the guide and install pages, one page',
    );
    expect(preview).toMatchObject({
      includePaths: ['^/docs/(guide|install)'],
      limit: 1,
      sitemap: 'skip',
    });
  });

  it('crawls with the prompt’s options, explicit options winning, and answers them in the status', async () => {
    const job = await firecrawl.startCrawl(`${site}/docs/`, {
      prompt: 'only the guide and install pages',
      limit: 5,
    });
    const status = await firecrawl.getCrawlStatus(job.id);
    const raw = (await (
      await fetch(`${server.url}/v2/crawl/${job.id}`, {
        headers: { authorization: `Bearer ${key}` },
      })
    ).json()) as { promptOptions?: Record<string, unknown> };
    expect(raw.promptOptions).toEqual({
      includePaths: ['^/docs/(guide|install)'],
      sitemap: 'skip',
    });
    for (
      let attempt = 0;
      attempt < 100 && (await firecrawl.getCrawlStatus(job.id)).status === 'scraping';
      attempt++
    )
      await new Promise((resolve) => setTimeout(resolve, 100));
    const done = await firecrawl.getCrawlStatus(job.id);
    expect(status).toBeDefined();
    const paths = done.data.map(
      (doc) => new URL(String(doc.metadata?.sourceURL ?? doc.metadata?.url)).pathname,
    );
    expect(
      paths
        .filter((path) => path !== '/docs/')
        .every((path) => /^\/docs\/(guide|install)/.test(path)),
    ).toBe(true);
    expect(paths.length).toBeGreaterThan(1);
  });
});
