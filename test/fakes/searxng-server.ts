/**
 * A fake SearXNG on 127.0.0.1 that speaks its JSON API as searx/webapp.py does: `GET /search`
 * with `q`, `format`, `categories`, `language`, `time_range`, `pageno`; the answer's fields
 * (`query`, `number_of_results`, `results[]` with `url`, `title`, `content`, `engine`,
 * `engines`, `positions`, `score`, `category`, `publishedDate`, `img_src`, `resolution`…,
 * `answers`, `corrections`, `infoboxes`, `suggestions`, `unresponsive_engines` as
 * `[engine, error]` pairs); its refusals (403 HTML when json is not an enabled format, 400
 * `{"error":"No query"}`, 400 `{"error": …}` for a bad parameter, 429 from the limiter).
 * `apt-get install searx` is not available on this machine (see the search issue's report).
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One result in the fake's corpus, as SearXNG would give it. */
export interface FakeSearxResult {
  url: string;
  title: string;
  content: string;
  engine: string;
  category: 'general' | 'news' | 'images' | 'science' | 'it';
  publishedDate?: string;
  img_src?: string;
  resolution?: string;
}

/** How the fake behaves. */
export type FakeSearxMode =
  | 'ok'
  /** Answers the HTML page, as an instance whose settings.yml lacks json in search.formats. */
  | 'html'
  /** 403 with SearXNG's HTML, as flask.abort(403) for a disabled format. */
  | 'forbidden'
  /** 429 from the limiter. */
  | 'limited'
  /** Never answers until closed. */
  | 'hang';

/** A running fake. */
export interface FakeSearx {
  /** Base URL, as TRAWL_SEARXNG_URL takes it. */
  url: string;
  /** The query string of every request received, in order. */
  requests: URLSearchParams[];
  mode: FakeSearxMode;
  /** Engines reported as `unresponsive_engines` on every answer. */
  unresponsive: [string, string][];
  corpus: FakeSearxResult[];
  close(): Promise<void>;
}

const perPage = 10;
const knownLanguages = /^(all|auto|[a-z]{2}(-[A-Z]{2})?)$/;
const knownRanges = new Set(['', 'day', 'week', 'month', 'year']);

/** A default corpus: 25 general results about lighthouses, two news, two images. */
export function defaultCorpus(): FakeSearxResult[] {
  const general = Array.from({ length: 25 }, (_unused, index) => ({
    url: `https://site${index % 5}.example/lighthouse/${index}`,
    title: `Lighthouse page ${index}`,
    content: `All about lighthouse number ${index}.`,
    engine: index % 2 === 0 ? 'duckduckgo' : 'wikipedia',
    category: 'general' as const,
  }));
  return [
    ...general,
    {
      url: 'https://github.com/keepers/lighthouse',
      title: 'keepers/lighthouse',
      content: 'A lighthouse simulator.',
      engine: 'github',
      category: 'it',
    },
    {
      url: 'https://arxiv.org/abs/1234.5678',
      title: 'On lighthouse optics',
      content: 'A lighthouse paper.',
      engine: 'arxiv',
      category: 'science',
    },
    {
      url: 'https://news.example/today',
      title: 'Lighthouse restored',
      content: 'The old lighthouse shines again.',
      engine: 'bing news',
      category: 'news',
      publishedDate: new Date(Date.now() - 60 * 60 * 1000).toISOString(),
    },
    {
      url: 'https://news.example/archive',
      title: 'Lighthouse closed',
      content: 'The lighthouse closed in 2001.',
      engine: 'bing news',
      category: 'news',
      publishedDate: '2001-05-01T00:00:00',
    },
    {
      url: 'https://images.example/lighthouse',
      title: 'A lighthouse at dusk',
      content: '',
      engine: 'bing images',
      category: 'images',
      img_src: 'https://images.example/lighthouse.jpg',
      resolution: '1920 x 1080',
    },
  ];
}

/** Words of a query that are not operators (`site:`, `-site:`, `filetype:`). */
function plainWords(q: string): string[] {
  return q
    .toLowerCase()
    .split(/\s+/)
    .filter((word) => word !== '' && !/^-?(site|filetype):/.test(word));
}

/** Starts the fake on a free port. */
export async function startFakeSearx(): Promise<FakeSearx> {
  const hanging = new Set<ServerResponse>();
  const fake: FakeSearx = {
    url: '',
    requests: [],
    mode: 'ok',
    unresponsive: [],
    corpus: defaultCorpus(),
    close: async () => {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    if (url.pathname !== '/search') {
      response.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>');
      return;
    }
    const query = url.searchParams;
    fake.requests.push(query);
    const json = (status: number, body: unknown) =>
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (fake.mode === 'hang') {
      hanging.add(response);
      return;
    }
    if (fake.mode === 'limited') {
      response.writeHead(429, { 'content-type': 'text/plain' }).end('Too Many Requests');
      return;
    }
    if (fake.mode === 'forbidden' || (query.get('format') ?? 'html') !== 'json') {
      response
        .writeHead(fake.mode === 'forbidden' ? 403 : 200, { 'content-type': 'text/html' })
        .end('<!DOCTYPE html><html><body><h1>Forbidden</h1></body></html>');
      return;
    }
    if (fake.mode === 'html') {
      response
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end('<!DOCTYPE html><html><head><title>SearXNG</title></head><body></body></html>');
      return;
    }
    const q = query.get('q') ?? '';
    if (q.trim() === '') return json(400, { error: 'No query' });
    const language = query.get('language') ?? 'all';
    if (!knownLanguages.test(language))
      return json(400, { error: `Invalid value "${language}" for parameter language` });
    const range = query.get('time_range') ?? '';
    if (!knownRanges.has(range))
      return json(400, { error: `Invalid value "${range}" for parameter time_range` });
    const categories = (query.get('categories') ?? 'general').split(',');
    const words = plainWords(q);
    const site = /(?:^|\s)site:(\S+)/.exec(q)?.[1];
    const notSites = [...q.matchAll(/(?:^|\s)-site:(\S+)/g)].map((match) => match[1] ?? '');
    const hostOf = (address: string) => new URL(address).hostname;
    const matches = fake.corpus.filter(
      (result) =>
        categories.includes(result.category) &&
        words.every((word) => `${result.title} ${result.content}`.toLowerCase().includes(word)) &&
        (!site || hostOf(result.url).endsWith(site)) &&
        !notSites.some((domain) => hostOf(result.url).endsWith(domain)),
    );
    const page = Math.max(1, Number(query.get('pageno') ?? '1') || 1);
    const slice = matches.slice((page - 1) * perPage, page * perPage);
    json(200, {
      query: q,
      number_of_results: matches.length,
      results: slice.map((result, index) => ({
        template: result.category === 'images' ? 'images.html' : 'default.html',
        url: result.url,
        title: result.title,
        content: result.content,
        engine: result.engine,
        parsed_url: ['https', hostOf(result.url), new URL(result.url).pathname, '', '', ''],
        engines: [result.engine],
        positions: [index + 1],
        score: 1 / (index + 1),
        category: result.category,
        publishedDate: result.publishedDate ?? null,
        ...(result.img_src
          ? {
              img_src: result.img_src,
              thumbnail_src: result.img_src,
              resolution: result.resolution,
            }
          : {}),
      })),
      answers: [],
      corrections: [],
      infoboxes: [],
      suggestions: [],
      unresponsive_engines: fake.unresponsive,
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
