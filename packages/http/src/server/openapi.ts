/**
 * The OpenAPI 3.1 document of the /v2 server, built from the same zod schemas that validate the
 * requests, so it cannot drift from what the server accepts.
 */
import type { z } from 'zod';
import { feedbackRequestSchema, searchFeedbackRequestSchema } from '@trawl/core/server';
import { moreV2Paths, otherPaths, v1Paths } from './openapi-more-paths.ts';
import { errorResponse, errors, jobId, jsonSchema, paging, post } from './openapi-parts.ts';
import { monitorOpenApiPaths } from './routes/monitors.ts';
import {
  batchScrapeRequest,
  crawlRequest,
  mapRequest,
  scrapeRequest,
  searchRequest,
} from './requests.ts';

function job(kind: string) {
  return {
    get: {
      summary: `Status of a ${kind}, with a page of its documents and an absolute \`next\` URL`,
      parameters: [jobId, ...paging],
      responses: {
        '200': { description: 'Status body' },
        '404': errorResponse('Job not found'),
        ...errors,
      },
    },
    delete: {
      summary: `Cancel a ${kind}`,
      parameters: [jobId],
      responses: {
        '200': { description: '`{ status: "cancelled" }`' },
        '404': errorResponse('Job not found'),
        '409': errorResponse('Already completed or failed'),
      },
    },
  };
}

function jobErrors(kind: string) {
  return {
    get: {
      summary: `Failed pages and robots.txt-blocked URLs of a ${kind}`,
      parameters: [jobId],
      responses: {
        '200': { description: '`{ errors, robotsBlocked }`' },
        '404': errorResponse('Job not found'),
      },
    },
  };
}

function deliveries(kind: string) {
  return {
    get: {
      summary: `Webhook deliveries of a ${kind}: event, attempts, outcome`,
      parameters: [jobId],
      responses: {
        '200': { description: '`{ success, deliveries }`' },
        '404': errorResponse('Job not found'),
      },
    },
  };
}

const feedbackErrors = {
  '400': errorResponse('`feedbackErrorCode: INVALID_BODY`; `details` lists each bad field'),
  '403': errorResponse('`feedbackErrorCode: TEAM_OPTED_OUT`'),
  '404': errorResponse(
    '`JOB_NOT_FOUND` (`SEARCH_NOT_FOUND` for a search): unknown, foreign or unfinished job',
  ),
  '409': errorResponse('`FEEDBACK_WINDOW_EXPIRED`, or `SEARCH_FAILED` for a failed search'),
  '500': errorResponse('`feedbackErrorCode: INTERNAL`'),
};
const feedbackAnswer =
  '`{ success, feedbackId, creditsRefunded, creditsRefundedToday, dailyRefundCap, dailyCapReached, alreadySubmitted, warning? }`';

function feedback(summary: string, schema: z.ZodType, parameters: object[] = []) {
  const operation = post(summary, schema, feedbackAnswer).post;
  return {
    post: { ...operation, parameters, responses: { ...operation.responses, ...feedbackErrors } },
  };
}

let cached: object | undefined;

/** The document served at `GET /v2/openapi.json`. */
export function openApiDocument(): object {
  cached ??= {
    openapi: '3.1.0',
    info: {
      title: 'Trawl /v2',
      version: '0.1.0',
      description:
        'Self-hosted web data extraction: the /v2 interface of the hosted Web Data Extraction API.',
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        Error: {
          type: 'object',
          required: ['success', 'error'],
          properties: {
            success: { const: false },
            error: { type: 'string' },
            code: { type: 'string' },
            details: {},
          },
        },
      },
    },
    security: [{ bearer: [] }],
    paths: {
      '/v2/scrape': post('Scrape one page', scrapeRequest.schema, '`{ success, data: Document }`'),
      '/v2/map': post('List the URLs of a site', mapRequest.schema, '`{ success, links }`'),
      '/v2/crawl': post('Start a crawl', crawlRequest.schema, '`{ success, id, url }`'),
      '/v2/crawl/{id}': job('crawl'),
      '/v2/crawl/{id}/errors': jobErrors('crawl'),
      '/v2/crawl/{id}/webhooks': deliveries('crawl'),
      '/v2/crawl/active': {
        get: {
          summary: "The team's running crawls",
          responses: { '200': { description: '`{ success, crawls }`' } },
        },
      },
      '/v2/batch/scrape': post(
        'Start a batch scrape',
        batchScrapeRequest.schema,
        '`{ success, id, url, invalidURLs }`',
      ),
      '/v2/batch/scrape/{id}': job('batch scrape'),
      '/v2/batch/scrape/{id}/errors': jobErrors('batch scrape'),
      '/v2/batch/scrape/{id}/webhooks': deliveries('batch scrape'),
      '/v2/search': post(
        'Search the built-in index and the configured web providers; optionally scrape each result',
        searchRequest.schema,
        '`{ success, data: { web?, news?, images? }, id, creditsUsed, warning? }`',
      ),
      '/v2/feedback': feedback(
        'Rate a finished scrape, map, parse or search job; may refund credits',
        feedbackRequestSchema,
      ),
      '/v2/search/{jobId}/feedback': feedback(
        'Rate a search: useful sources, missing content, better queries',
        searchFeedbackRequestSchema,
        [{ ...jobId, name: 'jobId' }],
      ),
      '/v2/team/credit-usage': {
        get: {
          summary: 'Credits left, and what the ledger holds (creditsUsed, creditsRefunded)',
          responses: { '200': { description: '`{ success, data }`' } },
        },
      },
      '/v2/team/queue-status': {
        get: {
          summary: "The team's pages in work across every process, and its limit",
          responses: {
            '200': {
              description:
                '`{ success, jobsInQueue, activeJobsInQueue, waitingJobsInQueue, maxConcurrency, mostRecentSuccess }`',
            },
          },
        },
      },
      ...monitorOpenApiPaths(jsonSchema, errors),
      '/v2/concurrency-check': {
        get: {
          summary: 'Jobs running and the concurrency limit',
          responses: { '200': { description: '`{ success, concurrency, maxConcurrency }`' } },
        },
      },
      ...moreV2Paths(),
      ...v1Paths(),
      ...otherPaths,
    },
  };
  return cached;
}
