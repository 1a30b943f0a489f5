/**
 * The v1 interface (firecrawl-py's `.v1` client, the v1 JS SDK, older workflow integrations):
 * each v1 call is translated (v1-translate.ts) and run as the v2 call it stands for, through the
 * server's own request handling (`inject`), so the key, rate limits, concurrency, credits and
 * validation are exactly those of v2. The answer is translated back to v1's shape.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { jobResultsRetentionMs } from '../jobs.ts';
import {
  asksExtract,
  batchToV2,
  crawlToV2,
  documentToV1,
  extractToV2,
  mapToV1,
  mapToV2,
  scrapeToV2,
  urlToV1,
} from '../v1-translate.ts';
import type { RoutePlugin } from './index.ts';

type Body = Record<string, unknown>;

/** The request headers the v2 call needs: who asks, the host its URLs are built on, retries. */
const forwardedHeaders = [
  'authorization',
  'host',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-idempotency-key',
];

/** Jobs whose v1 request asked for the `extract` format: their documents answer `extract`. */
const extractJobs = 'v1-extract-format-jobs';

export const v1Routes: RoutePlugin = (app, server) => {
  const { store } = server;

  /** Runs the v2 call and answers its status with the translated body. */
  const run = async (
    request: FastifyRequest,
    reply: FastifyReply,
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    body: Body | undefined,
    translate: (answer: Body) => Body | Promise<Body> = (answer) => answer,
  ) => {
    const headers: Record<string, string> = {};
    for (const name of forwardedHeaders) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const send = (target: string) =>
      app.inject({
        method,
        url: target,
        headers,
        ...(body === undefined ? {} : { payload: body }),
      });
    let answer = await send(url);
    // v1 clients read a batch scrape's status at /v1/crawl/{id} too (firecrawl-py's v1 waiter).
    if (answer.statusCode === 404 && url.startsWith('/v2/crawl/'))
      answer = await send(url.replace('/v2/crawl/', '/v2/batch/scrape/'));
    for (const name of ['retry-after', 'content-type']) {
      const value = answer.headers[name];
      if (value !== undefined) void reply.header(name, value);
    }
    const parsed = JSON.parse(answer.body) as Body;
    return reply
      .code(answer.statusCode)
      .send(answer.statusCode < 300 ? await translate(parsed) : parsed);
  };
  const bodyOf = (request: FastifyRequest): Body =>
    typeof request.body === 'object' && request.body !== null ? (request.body as Body) : {};
  const query = (request: FastifyRequest) => {
    const search = request.url.indexOf('?');
    return search === -1 ? '' : request.url.slice(search);
  };

  /** A started job's `url` on v1, and whether its documents answer `extract`. */
  const started = (extract: boolean) => async (answer: Body) => {
    if (extract && typeof answer['id'] === 'string')
      await store.set(extractJobs, answer['id'], true, { ttlMs: jobResultsRetentionMs });
    return { ...answer, url: urlToV1(answer['url']) };
  };
  /** A status page on v1: its next link, and its documents as v1 has them. */
  const statusPage = (id: string) => async (answer: Body) => {
    const extract = (await store.get(extractJobs, id)) === true;
    return {
      ...answer,
      ...(answer['next'] ? { next: urlToV1(answer['next']) } : {}),
      ...(Array.isArray(answer['data'])
        ? { data: answer['data'].map((document) => documentToV1(document, extract)) }
        : {}),
    };
  };

  app.post('/v1/scrape', (request, reply) => {
    const body = bodyOf(request);
    return run(request, reply, 'POST', '/v2/scrape', scrapeToV2(body), (answer) => ({
      ...answer,
      data: documentToV1(answer['data'], asksExtract(body)),
    }));
  });

  app.post('/v1/map', (request, reply) =>
    run(request, reply, 'POST', '/v2/map', mapToV2(bodyOf(request)), mapToV1),
  );

  for (const [v1, v2, toV2] of [
    ['/v1/crawl', '/v2/crawl', crawlToV2],
    ['/v1/batch/scrape', '/v2/batch/scrape', batchToV2],
  ] as const) {
    app.post(v1, (request, reply) => {
      const body = bodyOf(request);
      const extract = asksExtract(v1 === '/v1/crawl' ? body['scrapeOptions'] : body);
      return run(request, reply, 'POST', v2, toV2(body), started(extract));
    });
    app.get<{ Params: { id: string } }>(`${v1}/:id`, (request, reply) =>
      run(
        request,
        reply,
        'GET',
        `${v2}/${encodeURIComponent(request.params.id)}${query(request)}`,
        undefined,
        statusPage(request.params.id),
      ),
    );
    app.delete<{ Params: { id: string } }>(`${v1}/:id`, (request, reply) =>
      run(request, reply, 'DELETE', `${v2}/${encodeURIComponent(request.params.id)}`, undefined),
    );
    app.get<{ Params: { id: string } }>(`${v1}/:id/errors`, (request, reply) =>
      run(
        request,
        reply,
        'GET',
        `${v2}/${encodeURIComponent(request.params.id)}/errors`,
        undefined,
      ),
    );
  }

  app.post('/v1/extract', (request, reply) =>
    run(request, reply, 'POST', '/v2/extract', extractToV2(bodyOf(request))),
  );
  app.get<{ Params: { id: string } }>('/v1/extract/:id', (request, reply) =>
    run(request, reply, 'GET', `/v2/extract/${encodeURIComponent(request.params.id)}`, undefined),
  );
};
