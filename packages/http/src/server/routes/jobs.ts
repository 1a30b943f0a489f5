/**
 * Crawls and batch scrapes: `POST /v2/crawl` and `POST /v2/batch/scrape` start a job (the body
 * parsed once, the options capped to the credits left), and under `/v2/crawl/{id}` and
 * `/v2/batch/scrape/{id}` the job's status (also as a WebSocket: the SDK's watcher), cancel,
 * webhook deliveries and errors. Jobs are the team's own: another team's id is not found.
 */
import type { FastifyRequest } from 'fastify';
import { crawlOptionsSchema, type JobKind } from '@trawl/core';
import { checkCrawlLimit, reviseResolved } from '@trawl/core/server';
import { applyCrawlPrompt, promptOptionsNamespace } from '../crawl-prompt.ts';
import { admit, llmContextOf } from '../admission.ts';
import { asksModel } from '../llm-usage.ts';
import { Refusal } from '../errors.ts';
import { jobResultsRetentionMs } from '../jobs.ts';
import { batchScrapeRequest, crawlRequest, isJobId } from '../requests.ts';
import { webhookConfigOf } from '../webhooks.ts';
import { pageNumber, statusBody, statusPageSize, watch } from './job-status.ts';
import { deliveriesWithSettingNames } from '../../setting-names.ts';
import type { RoutePlugin } from './index.ts';

// The hosted service names no code in these answers.
const jobNotFound = () => new Refusal('NOT_FOUND', 'Job not found', { showCode: false });
const keyAlreadyUsed = () =>
  new Refusal('CONFLICT', 'Idempotency key already used', { showCode: false });

const label = (kind: JobKind) => (kind === 'crawl' ? 'Crawl' : 'Batch scrape');

/** The `x-idempotency-key` header of a request, if any. */
function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const header = request.headers['x-idempotency-key'];
  return (Array.isArray(header) ? header[0] : header) || undefined;
}

export const jobRoutes: RoutePlugin = (app, server) => {
  const { store, config, jobs, admission, records, idempotency, webhooks } = server;

  app.post('/v2/crawl', async (request) => {
    const { fields, options, given } = crawlRequest.parse(request.body);
    // Before the credit cap below, which would otherwise shrink a limit of 1e12 silently.
    checkCrawlLimit(options.limit, config.maxCrawlLimit);
    const webhook =
      fields.webhook === undefined ? undefined : webhookConfigOf(fields.webhook, request.team);
    const pagePrice = admission.cost('crawl');
    // A crawl reserves its limit's pages, or as many as the team has left (at least one), and
    // a model call first when its prompt or its pages ask one.
    const ticket = await admit(server, request.team, {
      credits: admission.cost('crawl', options.limit),
      atLeast: pagePrice,
      callsModel:
        server.llm !== undefined && (options.prompt !== undefined || asksModel(request.body)),
      leaseMs: jobResultsRetentionMs,
    });
    try {
      if (!(await idempotency.claim(request.team, idempotencyKeyOf(request))))
        throw keyAlreadyUsed();
      // A prompt becomes options first; explicit options win.
      // The prompt's call is paid through the crawl's ticket, and charged before the job runs.
      const prompted = await applyCrawlPrompt(fields.url, options, given, {
        context: llmContextOf(server, ticket),
        meter: { settle: () => ticket.chargeTokens() },
      });
      // No crawl may spend more than it reserved.
      const crawlOptions =
        ticket.reserved !== undefined && pagePrice > 0
          ? reviseResolved(crawlOptionsSchema, prompted.options, {
              limit: Math.min(prompted.options.limit, Math.floor(ticket.reserved / pagePrice)),
            })
          : prompted.options;
      const job = await jobs.startCrawl(request.team, fields.url, crawlOptions, webhook, ticket.id);
      if (prompted.promptOptions)
        await store.set(promptOptionsNamespace, job.id, prompted.promptOptions, {
          ttlMs: jobResultsRetentionMs,
        });
      await records.start(request.team, 'crawl', fields.url, job.id);
      return { success: true, id: job.id, url: `${server.base(request)}/v2/crawl/${job.id}` };
    } catch (error) {
      // No job: nothing was used. (A started job's end settles the ticket.)
      await ticket.settle();
      throw error;
    }
  });

  app.post('/v2/batch/scrape', async (request) => {
    const { fields, options } = batchScrapeRequest.parse(request.body);
    const webhook =
      fields.webhook === undefined ? undefined : webhookConfigOf(fields.webhook, request.team);
    // A batch reserves every page it may scrape: all of them, or it is refused.
    const ticket = await admit(server, request.team, {
      credits: admission.cost('batch_scrape', fields.urls.length),
      body: request.body,
      leaseMs: jobResultsRetentionMs,
    });
    try {
      if (!(await idempotency.claim(request.team, idempotencyKeyOf(request))))
        throw keyAlreadyUsed();
      if (fields.appendToId !== undefined)
        throw new Refusal('BAD_REQUEST', 'appendToId is not supported by this server yet');
      const job = await jobs.startBatch(request.team, fields.urls, options, webhook, ticket.id);
      await records.start(request.team, 'batch_scrape', job.url, job.id);
      return {
        success: true,
        id: job.id,
        url: `${server.base(request)}/v2/batch/scrape/${job.id}`,
        invalidURLs: job.invalidURLs,
      };
    } catch (error) {
      await ticket.settle();
      throw error;
    }
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
      if (!isJobId(id)) return undefined;
      return jobs.get(request.team, id, kind);
    };
    const mustFind = async (request: FastifyRequest<{ Params: { id: string } }>) => {
      const found = await find(request);
      if (!found) throw jobNotFound();
      return found;
    };

    app.route<{ Params: { id: string }; Querystring: { skip?: string; limit?: string } }>({
      method: 'GET',
      url: `${prefix}/:id`,
      handler: async (request) => {
        const found = await mustFind(request);
        const skip = pageNumber(request.query.skip, 'skip', 0);
        const limit = Math.min(pageNumber(request.query.limit, 'limit', statusPageSize), 1000);
        const collection = `${server.base(request)}${prefix}`;
        const status = await statusBody(found.job, found.owner, skip, limit, collection);
        const promptOptions =
          kind === 'crawl' ? await store.get(promptOptionsNamespace, found.job.id) : undefined;
        return promptOptions ? { ...status, promptOptions } : status;
      },
      // The SDK's watcher(): the same path as a WebSocket.
      wsHandler: (socket, request) => {
        void watch(socket, () => find(request), `${server.base(request)}${prefix}`);
      },
    });

    app.delete<{ Params: { id: string } }>(`${prefix}/:id`, async (request) => {
      const { job } = await mustFind(request);
      if (job.status === 'completed' || job.status === 'failed')
        throw new Refusal('CONFLICT', `${label(kind)} is already ${job.status}`, {
          showCode: false,
        });
      await job.cancel();
      return { success: true, status: 'cancelled' };
    });

    app.get<{ Params: { id: string } }>(`${prefix}/:id/webhooks`, async (request) => {
      const { job } = await mustFind(request);
      return { success: true, deliveries: deliveriesWithSettingNames(await webhooks.log(job.id)) };
    });

    app.get<{ Params: { id: string } }>(`${prefix}/:id/errors`, async (request) => {
      const { job } = await mustFind(request);
      return { success: true, ...(await job.errors()) };
    });
  }
};
