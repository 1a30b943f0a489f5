/**
 * The /v2 server on Fastify (chosen over Hono for its built-in pino request log, its mature
 * WebSocket plugin for the crawl watcher, and its speed on Node). A thin layer: authenticate,
 * validate with core's shapes, call core, shape the answer as the hosted service does.
 */
import websocket from '@fastify/websocket';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { checkCrawlLimit, reviseResolved } from '@trawl/core/server';
import {
  crawlOptionsSchema,
  CreditLedger,
  FeedbackService,
  map,
  scrape,
  toTrawlError,
  ValidationError,
  type CreditLedgerOptions,
  type EngineConfig,
  type EngineContext,
  type FeedbackSettings,
  type LlmProvider,
  type Job,
  type JobKind,
  type SearchProvider,
  type Store,
} from '@trawl/core';
import { authenticate, credentialsOf, isKeyedRoute, type ApiKeys } from './auth.ts';
import { browserRoutes, mediaLinks } from './browser.ts';
import { errorReply, refusal, type ErrorReply } from './errors.ts';
import { feedbackRoutes } from './feedback.ts';
import { limitJsonDepth } from './json-body.ts';
import { IdempotencyKeys, RateLimiter, TeamConcurrency, type RateMode } from './limits.ts';
import { openApiDocument } from './openapi.ts';
import { monitorRoutes, type MonitorServerSettings } from './monitors.ts';
import { parseRoutes } from './parse.ts';
import { RequestRecords } from './records.ts';
import { searchRoutes } from './search.ts';
import { webhookConfigOf, WebhookSender, type WebhookSettings } from './webhooks.ts';
import { JobRegistry, jobRetentionMs, type JobOwner } from './jobs.ts';
import { extractRoutes } from './extract.ts';
import { applyCrawlPrompt, crawlPromptRoutes } from './crawl-prompt.ts';

/** The options a crawl's prompt turned into, by job id (the status answers them). */
const promptOptionsNamespace = 'crawl-prompt-options';
import { asksModel, TokenUsageBook, usageRoutes, type TokenMeter } from './llm-usage.ts';
import { batchScrapeRequest, crawlRequest, mapRequest, scrapeRequest } from './requests.ts';

/** What the server is built from. */
export interface ServerOptions {
  store: Store;
  config: EngineConfig;
  keys: ApiKeys;
  logLevel?: string;
  /** Webhook delivery: signing secret, retries. */
  webhooks?: WebhookSettings;
  /** Monitors: the LLM that judges changes, notifiers besides the webhook (e-mail). */
  monitors?: MonitorServerSettings;
  /** Per-team limits; each off when 0 or unset. */
  limits?: { ratePerMinute?: number; teamConcurrency?: number; teamCredits?: number };
  /** Credits per kind of work (each 1 when unset); the ledger is kept even without teamCredits. */
  creditPrices?: CreditLedgerOptions['prices'];
  /** Feedback refund caps, window and opted-out teams. */
  feedback?: FeedbackSettings;
  /** The model of the LLM formats; the monitors' model when unset (issue 18). */
  llm?: LlmProvider;
  /** LLM tokens a team may use per UTC day; unset: no cap. */
  llmDailyTokens?: number;
  /** Web search providers (SearXNG); without one, /v2/search answers from the built-in index. */
  searchProviders?: readonly SearchProvider[];
}

declare module 'fastify' {
  interface FastifyRequest {
    team: string;
  }
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Documents per status page; `next` reads on. */
const statusPageSize = 100;
/** Reported as remaining credits while credits are not configured (unlimited). */
const unlimitedCredits = 2 ** 31 - 1;

const send = (reply: FastifyReply, answer: ErrorReply): FastifyReply =>
  reply.code(answer.status).send(answer.body);

/** Builds the server; call `listen()` on it, or `inject()` in tests. */
export function buildServer(options: ServerOptions): FastifyInstance & {
  jobs: JobRegistry;
  webhooks: WebhookSender;
  records: RequestRecords;
  ledger: CreditLedger;
} {
  const { store, config, keys } = options;
  const teamCredits = options.limits?.teamCredits;
  const ledger = new CreditLedger(store, {
    ...(teamCredits === undefined ? {} : { perTeam: teamCredits }),
    ...(options.creditPrices ? { prices: options.creditPrices } : {}),
  });
  const webhooks = new WebhookSender(store, {
    allowPrivateTargets: config.allowPrivateAddresses,
    ...options.webhooks,
  });
  const llm = options.llm ?? options.monitors?.llm;
  const tokens = new TokenUsageBook(store, ledger, options.llmDailyTokens);
  // Token meters of running jobs, settled (charged) when the job ends.
  const jobMeters = new Map<string, TokenMeter>();
  const llmContext = (team: string, jobId: string): Partial<EngineContext> => {
    if (!llm) return {};
    const meter = jobMeters.get(jobId) ?? tokens.meter(team, jobId);
    jobMeters.set(jobId, meter);
    return { llm, onLlmUsage: meter.onLlmUsage };
  };
  // A crawl's pages are charged when it ends (it was capped to the credits left when it began).
  const records = new RequestRecords(store);
  const jobs = new JobRegistry(store, config, {
    engineContext: llmContext,
    onFinished: async (owner, summary) => {
      await jobMeters.get(owner.id)?.settle();
      jobMeters.delete(owner.id);
      const endpoint = owner.kind === 'crawl' ? 'crawl' : 'batch_scrape';
      const cost = ledger.cost(endpoint, summary.progress.scraped);
      await ledger.debit(owner.team, cost, { endpoint, jobId: owner.id });
      await records.finish(owner.id, {
        status: summary.status,
        creditsUsed: cost,
        ...(summary.error ? { error: summary.error } : {}),
      });
    },
    webhooks,
  });
  const rate = new RateLimiter(options.limits?.ratePerMinute ?? 0);
  const concurrency = new TeamConcurrency(options.limits?.teamConcurrency ?? 0);
  const app = Fastify({
    logger: { level: options.logLevel ?? 'info' },
    bodyLimit: 10 * 1024 * 1024,
    // Keep-alive clients (the SDK's axios) must not hold a shutdown open.
    forceCloseConnections: true,
  });
  app.decorateRequest('team', '');
  limitJsonDepth(app);
  // Retries waiting on a failing receiver must not hold a closing server; what was not
  // delivered stays pending in the store for the next start.
  app.addHook('onClose', () => webhooks.close());

  app.setErrorHandler((error: Error & { code?: string; statusCode?: number }, request, reply) => {
    if (error.code?.startsWith('FST_ERR_CTP_') || error instanceof SyntaxError) {
      if (error.statusCode === 413)
        return send(reply, refusal(413, 'Request body too large', 'CONTENT_TOO_LARGE'));
      if (error.statusCode === 415)
        return send(
          reply,
          refusal(415, 'Unsupported content type: send application/json', 'BAD_REQUEST'),
        );
      return send(reply, refusal(400, 'Bad request, malformed JSON', 'BAD_REQUEST_INVALID_JSON'));
    }
    const answer = errorReply(error);
    if (answer.exceptionId) request.log.error({ err: error, exceptionId: answer.exceptionId });
    return send(reply, answer);
  });
  app.setNotFoundHandler((request, reply) =>
    send(reply, refusal(404, `Not found: ${request.method} ${request.url.split('?')[0]}`)),
  );

  const base = (request: FastifyRequest) => `${request.protocol}://${request.host}`;

  // Readiness: the store answers (a closed or unreachable store makes every job call fail).
  // Anyone may ask whether the server is up; only a team's own key shows its running crawls.
  app.get('/health', async (request, reply) => {
    try {
      await store.get('health', 'probe');
      if (keys.keyless) return { status: 'ok', jobsRunning: jobs.running.length };
      const outcome = authenticate(keys, { authorization: request.headers.authorization });
      if ('refused' in outcome) return { status: 'ok' };
      return { status: 'ok', jobsRunning: (await jobs.active(outcome.team)).length };
    } catch (error) {
      request.log.warn({ err: error }, 'health check: store unavailable');
      return reply.code(503).send({ status: 'unavailable', error: 'The store does not answer' });
    }
  });

  // A browser session's CDP client sends big messages (Playwright's injected script is 256 KiB,
  // a file it uploads goes as base64); /cdp refuses a wrong token before the upgrade.
  void app.register(websocket, { options: { maxPayload: 64 * 1024 * 1024 } });
  void app.register((api, _options, done) => {
    // Inside this scope, so it runs after the WebSocket plugin marks upgrade requests (which
    // lets the plugin drop the socket of a refused upgrade).
    api.addHook('onRequest', async (request, reply) => {
      // Decided on the route the router matched, after it decoded the path, never on the raw
      // URL: `/%762/scrape` runs /v2/scrape and needs a key as much as `/v2/scrape` (issue 14).
      // Paths that match no route never get here (the not-found handler answers them).
      const route = request.routeOptions.url;
      if (route === undefined || !isKeyedRoute(route)) return;
      const outcome = authenticate(keys, credentialsOf(request));
      if ('refused' in outcome) return send(reply, refusal(401, outcome.refused));
      request.team = outcome.team;
      const limited = rate.take(outcome.team, rateModeOf(request.method, route));
      if (limited) {
        void reply.header('retry-after', String(limited.retryAfterSeconds));
        return send(reply, refusal(429, limited.error, 'RATE_LIMITED'));
      }
    });
    routes(api, {
      store,
      config,
      jobs,
      base,
      ledger,
      concurrency,
      webhooks,
      records,
      idempotency: new IdempotencyKeys(store),
      limits: options.limits ?? {},
      llm,
      tokens,
    });
    usageRoutes(api, tokens, ledger);
    crawlPromptRoutes(api, (team, id) => {
      const meter = tokens.meter(team, id);
      return { meter, context: llm ? { llm, store, config, onLlmUsage: meter.onLlmUsage } : {} };
    });
    extractRoutes(api, { store, config, llm, ledger, tokens, outOfCredits });
    feedbackRoutes(
      api,
      new FeedbackService({
        store,
        ledger,
        findJob: (team, id) => records.get(team, id),
        ...(options.feedback ? { settings: options.feedback } : {}),
      }),
    );
    monitorRoutes(api, {
      store,
      config,
      webhooks,
      base,
      credits: ledger,
      searchProviders: options.searchProviders ?? [],
      ...(options.monitors ? { settings: options.monitors } : {}),
      log: (message, error) => app.log.warn({ err: error }, message),
    });
    browserRoutes(api, { store, config, base });
    searchRoutes(api, {
      store,
      config,
      records,
      ledger,
      providers: options.searchProviders ?? [],
      llmContext: (team, id) => tokens.metered(llm, team, id),
      runLimited: (team, work) => concurrency.run(team, work),
      media: (request) => mediaLinks(store, base(request)),
      outOfCredits,
    });
    done();
  });
  return Object.assign(app, { jobs, webhooks, records, ledger });
}

interface RouteContext {
  llm: LlmProvider | undefined;
  tokens: TokenUsageBook;
  store: Store;
  config: EngineConfig;
  jobs: JobRegistry;
  base: (request: FastifyRequest) => string;
  ledger: CreditLedger;
  concurrency: TeamConcurrency;
  webhooks: WebhookSender;
  records: RequestRecords;
  idempotency: IdempotencyKeys;
  limits: NonNullable<ServerOptions['limits']>;
}

/** The hosted service's rate-limit groups, by the pattern of the matched route. */
function rateModeOf(method: string, path: string): RateMode {
  if (method === 'POST' && (path === '/v2/scrape' || path === '/v2/batch/scrape')) return 'scrape';
  if (method === 'POST' && path === '/v2/crawl') return 'crawl';
  if (method === 'POST' && path === '/v2/map') return 'map';
  if (method === 'POST' && path === '/v2/search') return 'search';
  // The hosted service counts creating, changing and running monitors with crawls.
  if ((method === 'POST' || method === 'PATCH') && path.startsWith('/v2/monitor')) return 'crawl';
  if (path.startsWith('/v2/team/') || path === '/v2/concurrency-check') return 'account';
  if (path === '/v2/feedback' || path === '/v2/search/:jobId/feedback') return 'account';
  return 'crawlStatus';
}

/** Runs a request's work, recording it completed (at `cost` credits) or failed with its code. */
async function recorded<T>(
  records: RequestRecords,
  id: string,
  cost: number,
  work: () => Promise<T>,
): Promise<T> {
  try {
    const result = await work();
    await records.finish(id, { status: 'completed', creditsUsed: cost });
    return result;
  } catch (error) {
    const failure = toTrawlError(error);
    await records.finish(id, {
      status: 'failed',
      creditsUsed: 0,
      error: `${failure.code}: ${failure.message}`,
    });
    throw error;
  }
}

const keyAlreadyUsed = refusal(409, 'Idempotency key already used');
/** The `x-idempotency-key` header of a request, if any. */
function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const header = request.headers['x-idempotency-key'];
  return (Array.isArray(header) ? header[0] : header) || undefined;
}

const outOfCredits = refusal(
  402,
  'Insufficient credits to perform this request. Ask the operator for more credits (TRAWL_TEAM_CREDITS).',
  'PAYMENT_REQUIRED',
);

/** The /v2 routes, registered inside the WebSocket plugin's scope. */
function routes(
  app: FastifyInstance,
  {
    store,
    config,
    jobs,
    base,
    ledger,
    concurrency,
    limits,
    webhooks,
    records,
    idempotency,
    llm,
    tokens,
  }: RouteContext,
): void {
  const metered = (team: string, id: string) => tokens.metered(llm, team, id);
  /** Refuses work that asks the model once the team has used its tokens of the day. */
  const overTokenCap = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!llm || !asksModel(request.body)) return undefined;
    const capped = await tokens.refusal(request.team);
    if (!capped) return undefined;
    void reply.header('retry-after', String(capped.retryAfterSeconds));
    return send(reply, capped.answer);
  };
  parseRoutes(app, {
    records,
    outOfCredits,
    mayCharge: (team) => ledger.allows(team, ledger.cost('parse')),
    llmContext: (team, id) => metered(team, id),
    charge: async (team, pages, jobId) => {
      await ledger.debit(team, ledger.cost('parse', pages), { endpoint: 'parse', jobId });
    },
    runLimited: (team, work) => concurrency.run(team, work),
    sofficePath: config.sofficePath,
  });

  app.post('/v2/scrape', async (request, reply) => {
    const { fields, options } = scrapeRequest.parse(request.body);
    const cost = ledger.cost('scrape');
    if (!(await ledger.allows(request.team, cost))) return send(reply, outOfCredits);
    const capped = await overTokenCap(request, reply);
    if (capped) return capped;
    const record = await records.start(request.team, 'scrape', fields.url);
    const { meter, context: llmContext } = metered(request.team, record.id);
    const { result: data, waitedMs } = await recorded(records, record.id, cost, () =>
      concurrency.run(request.team, () =>
        scrape(fields.url, options, {
          ...llmContext,
          store,
          config,
          team: request.team,
          media: mediaLinks(store, base(request)),
        }),
      ),
    ).finally(() => meter.settle());
    data.metadata.scrapeId = record.id;
    if (waitedMs > 0) {
      data.metadata.concurrencyLimited = true;
      data.metadata.concurrencyQueueDurationMs = waitedMs;
    }
    await ledger.debit(request.team, cost, { endpoint: 'scrape', jobId: record.id });
    return { success: true, data };
  });

  app.post('/v2/map', async (request, reply) => {
    const { fields, options } = mapRequest.parse(request.body);
    const cost = ledger.cost('map');
    if (!(await ledger.allows(request.team, cost))) return send(reply, outOfCredits);
    const record = await records.start(request.team, 'map', fields.url);
    const result = await recorded(records, record.id, cost, () =>
      map(fields.url, options, { config }),
    );
    await ledger.debit(request.team, cost, { endpoint: 'map', jobId: record.id });
    return { success: true, id: record.id, links: result.links };
  });

  app.post('/v2/crawl', async (request, reply) => {
    const { fields, options, given } = crawlRequest.parse(request.body);
    const capped = await overTokenCap(request, reply);
    if (capped) return capped;
    // Before the credit cap below, which would otherwise shrink a limit of 1e12 silently.
    checkCrawlLimit(options.limit, config.maxCrawlLimit);
    const webhook = fields.webhook === undefined ? undefined : webhookConfigOf(fields.webhook);
    const remaining = await ledger.remaining(request.team);
    const pagePrice = ledger.cost('crawl');
    if (remaining !== undefined && remaining < Math.max(pagePrice, 1))
      return send(reply, outOfCredits);
    if (!(await idempotency.claim(request.team, idempotencyKeyOf(request))))
      return send(reply, keyAlreadyUsed);
    // A prompt becomes options first (issue 18); explicit options win.
    const prompted = await applyCrawlPrompt(
      fields.url,
      options,
      given,
      metered(request.team, crypto.randomUUID()),
    );
    // No crawl may spend more than the team has left.
    const crawlOptions =
      remaining !== undefined && pagePrice > 0
        ? reviseResolved(crawlOptionsSchema, prompted.options, {
            limit: Math.min(prompted.options.limit, Math.floor(remaining / pagePrice)),
          })
        : prompted.options;
    const job = await jobs.startCrawl(request.team, fields.url, crawlOptions, webhook);
    if (prompted.promptOptions)
      await store.set(promptOptionsNamespace, job.id, prompted.promptOptions, {
        ttlMs: jobRetentionMs,
      });
    await records.start(request.team, 'crawl', fields.url, job.id);
    return { success: true, id: job.id, url: `${base(request)}/v2/crawl/${job.id}` };
  });

  app.post('/v2/batch/scrape', async (request, reply) => {
    const { fields, options } = batchScrapeRequest.parse(request.body);
    const capped = await overTokenCap(request, reply);
    if (capped) return capped;
    const webhook = fields.webhook === undefined ? undefined : webhookConfigOf(fields.webhook);
    if (!(await ledger.allows(request.team, ledger.cost('batch_scrape'))))
      return send(reply, outOfCredits);
    if (!(await idempotency.claim(request.team, idempotencyKeyOf(request))))
      return send(reply, keyAlreadyUsed);
    if (fields.appendToId !== undefined)
      return send(
        reply,
        refusal(400, 'appendToId is not supported by this server yet', 'BAD_REQUEST'),
      );
    const job = await jobs.startBatch(request.team, fields.urls, options, webhook);
    await records.start(request.team, 'batch_scrape', job.url, job.id);
    return {
      success: true,
      id: job.id,
      url: `${base(request)}/v2/batch/scrape/${job.id}`,
      invalidURLs: job.invalidURLs,
    };
  });

  const activeCrawls = async (request: FastifyRequest) => ({
    success: true,
    crawls: (await jobs.active(request.team)).map((owner) => ({
      id: owner.id,
      teamId: owner.team,
      url: owner.url,
      created_at: owner.createdAt,
      options: owner.options,
    })),
  });
  app.get('/v2/crawl/active', activeCrawls);
  app.get('/v2/crawl/ongoing', activeCrawls);

  for (const [kind, prefix] of [
    ['crawl', '/v2/crawl'],
    ['batch', '/v2/batch/scrape'],
  ] as const) {
    const find = async (request: FastifyRequest<{ Params: { id: string } }>) => {
      const { id } = request.params;
      if (!uuidPattern.test(id)) return undefined;
      return jobs.get(request.team, id, kind);
    };

    app.route<{ Params: { id: string }; Querystring: { skip?: string; limit?: string } }>({
      method: 'GET',
      url: `${prefix}/:id`,
      handler: async (request, reply) => {
        const found = await find(request);
        if (!found) return send(reply, jobNotFound);
        const skip = pageNumber(request.query.skip, 'skip', 0);
        const limit = Math.min(pageNumber(request.query.limit, 'limit', statusPageSize), 1000);
        const status = await statusBody(
          found.job,
          found.owner,
          skip,
          limit,
          `${base(request)}${prefix}`,
        );
        const promptOptions =
          kind === 'crawl' ? await store.get(promptOptionsNamespace, found.job.id) : undefined;
        return promptOptions ? { ...status, promptOptions } : status;
      },
      // The SDK's watcher(): the same path as a WebSocket.
      wsHandler: (socket, request) => {
        void watch(socket, () => find(request), `${base(request)}${prefix}`);
      },
    });

    app.delete<{ Params: { id: string } }>(`${prefix}/:id`, async (request, reply) => {
      const found = await find(request);
      if (!found) return send(reply, jobNotFound);
      if (found.job.status === 'completed' || found.job.status === 'failed')
        return send(reply, refusal(409, `${label(kind)} is already ${found.job.status}`));
      await found.job.cancel();
      return { success: true, status: 'cancelled' };
    });

    app.get<{ Params: { id: string } }>(`${prefix}/:id/webhooks`, async (request, reply) => {
      const found = await find(request);
      if (!found) return send(reply, jobNotFound);
      return { success: true, deliveries: await webhooks.log(found.job.id) };
    });

    app.get<{ Params: { id: string } }>(`${prefix}/:id/errors`, async (request, reply) => {
      const found = await find(request);
      if (!found) return send(reply, jobNotFound);
      return { success: true, ...(await found.job.errors()) };
    });
  }

  app.get('/v2/openapi.json', () => openApiDocument());

  app.get('/v2/team/credit-usage', async (request) => {
    const usage = await ledger.usage(request.team);
    return {
      success: true,
      data: {
        remainingCredits: usage.remaining ?? unlimitedCredits,
        planCredits: usage.limit ?? unlimitedCredits,
        billingPeriodStart: null,
        billingPeriodEnd: null,
        // Beyond the hosted answer: what the ledger holds, which counts even when unlimited.
        creditsUsed: usage.debited - usage.refunded,
        creditsRefunded: usage.refunded,
      },
    };
  });

  app.get('/v2/concurrency-check', async (request) => ({
    success: true,
    concurrency: concurrency.running(request.team) + (await jobs.active(request.team)).length,
    maxConcurrency: limits.teamConcurrency || config.crawlConcurrency,
  }));
}

const jobNotFound = refusal(404, 'Job not found');

const label = (kind: JobKind) => (kind === 'crawl' ? 'Crawl' : 'Batch scrape');

function pageNumber(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0 || (name === 'limit' && number === 0)) {
    throw new ValidationError(
      `Invalid query parameter '${name}': expected a whole number ${name === 'limit' ? 'above 0' : '0 or more'} (got '${value}')`,
      { details: [{ path: [name], message: 'expected a non-negative integer' }] },
    );
  }
  return number;
}

/** The status answer of a crawl or batch scrape, one page of its documents at a time. */
async function statusBody(
  job: Job,
  owner: JobOwner,
  skip: number,
  limit: number,
  collection: string,
) {
  // limit 0: the counters alone (the watcher sends documents one by one).
  const page = limit > 0 ? await job.results({ skip, limit }) : { data: [], nextSkip: undefined };
  const progress = job.progress;
  const next =
    page.nextSkip !== undefined
      ? `${collection}/${job.id}?skip=${page.nextSkip}${limit !== statusPageSize ? `&limit=${limit}` : ''}`
      : undefined;
  return {
    success: true,
    status: job.status,
    completed: progress.completed,
    total: progress.total,
    creditsUsed: progress.scraped,
    expiresAt: new Date(Date.parse(owner.createdAt) + jobRetentionMs).toISOString(),
    ...(next ? { next } : {}),
    data: page.data,
  };
}

/**
 * Streams a job over a WebSocket: a `catchup` with the status, a `document` message per document
 * (those stored already, then each as it comes), and at the end `done` (completed or cancelled,
 * with the final status) or `error` (failed). Unknown or foreign jobs close with 1008.
 */
async function watch(
  socket: WebSocket,
  find: () => Promise<{ job: Job; owner: JobOwner } | undefined>,
  collection: string,
): Promise<void> {
  const found = await find().catch(() => undefined);
  if (!found) {
    socket.close(1008, 'Job not found');
    return;
  }
  const { job, owner } = found;
  let open = true;
  socket.once('close', () => (open = false));
  const sendJson = (message: unknown) => {
    if (open) socket.send(JSON.stringify(message));
  };
  const status = await statusBody(job, owner, 0, 0, collection);
  sendJson({ type: 'catchup', data: status });
  try {
    for await (const document of job) {
      if (!open) return;
      sendJson({ type: 'document', data: document });
    }
    await job.done;
    const final = await statusBody(job, owner, 0, 0, collection);
    if (job.status === 'failed') {
      sendJson({ type: 'error', error: (await job.done).error ?? 'The job failed' });
    } else {
      sendJson({ type: 'done', data: final });
    }
  } catch (error) {
    sendJson({ type: 'error', error: (error as Error).message });
  }
  if (open) socket.close(1000);
}
