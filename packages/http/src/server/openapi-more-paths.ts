/**
 * The OpenAPI paths of the routes beside the page, site and monitor ones: the model jobs, parse,
 * the browser, the team's usage, the hosted indexes, the v1 translation and the routes outside
 * the API (the probe, media, the CDP socket).
 */
import type { z } from 'zod';
import { agentOptionsSchema, extractOptionsSchema, parseOptionsSchema } from '@trawl/core';
import { cancel, errorResponse, errors, get, jobId, jsonSchema, post } from './openapi-parts.ts';
import { wireFields } from './requests.ts';
import { browserCreateRequestSchema, browserExecuteRequestSchema } from './routes/browser.ts';
import { crawlPreviewSchema } from './routes/crawl-prompt.ts';
import { interactRequestSchema } from './routes/scrape-interact.ts';

const notConfigured = errorResponse('`NOT_CONFIGURED`: no model or provider is set up');
const hostedIndex = {
  summary: 'A hosted index of the Firecrawl service: always 501 `NOT_CONFIGURED` here',
  responses: { '501': notConfigured },
};

/** The routes of the LLM jobs, parse, the browser, the team's usage and the hosted indexes. */
export function moreV2Paths() {
  const withWire = <T extends z.ZodObject>(schema: T) => schema.safeExtend(wireFields);
  return {
    '/v2/extract': post(
      'Start an extract: structured data from pages by a schema or a prompt (needs a model)',
      withWire(extractOptionsSchema),
      '`{ success, id, url }`; 501 without a model',
    ),
    '/v2/extract/{id}': {
      ...get('Status and data of an extract', '`{ success, status, data?, error? }`', [jobId]),
      ...cancel('an extract'),
    },
    '/v2/agent': {
      ...post(
        'Start an agent run: a prompt answered by browsing (needs a model); `webhook` as for crawls',
        withWire(agentOptionsSchema),
        '`{ success, id }`; 501 without a model',
      ),
      ...get("The team's agent runs, newest first", '`{ success, data, next? }`', [
        { name: 'before', in: 'query', schema: { type: 'string' } },
      ]),
    },
    '/v2/agent/{id}': {
      ...get('Status and answer of an agent run', '`{ success, status, data?, creditsUsed }`', [
        jobId,
      ]),
      ...cancel('an agent run'),
    },
    '/v2/agent/{id}/trace': get(
      "An agent run's steps: tools called and pages read",
      '`{ success, steps }`',
      [jobId],
    ),
    '/v2/parse': {
      post: {
        summary: 'Convert an uploaded document (PDF, Office, ODF, EPUB, HTML, CSV…) to a document',
        requestBody: {
          required: true,
          content: {
            'multipart/form-data': {
              schema: {
                type: 'object',
                required: ['file'],
                properties: {
                  file: { type: 'string', format: 'binary' },
                  options: jsonSchema(parseOptionsSchema),
                },
              },
            },
          },
        },
        responses: { '200': { description: '`{ success, data: Document }`' }, ...errors },
      },
    },
    '/v2/browser': {
      ...post(
        'Open a browser session',
        browserCreateRequestSchema,
        '`{ success, id, cdpUrl, liveViewUrl }`',
      ),
      ...get("The team's browser sessions", '`{ success, sessions }`', [
        { name: 'status', in: 'query', schema: { type: 'string' } },
      ]),
    },
    '/v2/interact': post(
      'Open a browser session (the name older SDKs call)',
      browserCreateRequestSchema,
      '`{ success, id, cdpUrl, liveViewUrl }`',
    ),
    '/v2/browser/{id}': cancel('a browser session (closes it)'),
    '/v2/browser/{id}/execute': {
      post: {
        ...post(
          'Run code or actions in a session',
          browserExecuteRequestSchema,
          '`{ success, result }`',
        ).post,
        parameters: [jobId],
      },
    },
    '/v2/scrape/{scrapeId}/interact': {
      post: {
        ...post(
          "Run code or a prompt in a scrape's page, kept open",
          interactRequestSchema,
          '`{ success, output, … }`',
        ).post,
        parameters: [{ ...jobId, name: 'scrapeId' }],
      },
      delete: {
        summary: "Close a scrape's interactive page",
        parameters: [{ ...jobId, name: 'scrapeId' }],
        responses: { '200': { description: '`{ success }`' }, ...errors },
      },
    },
    '/v2/crawl/params-preview': post(
      'The crawl options a prompt turns into, without crawling (needs a model)',
      crawlPreviewSchema,
      '`{ success, data }`',
    ),
    '/v2/crawl/ongoing': get(
      "The team's running crawls (the older name of /v2/crawl/active)",
      '`{ success, crawls }`',
    ),
    '/v2/team/credit-usage/historical': get('Credits used per period', '`{ success, periods }`'),
    '/v2/team/token-usage': get('Model tokens left and used this period', '`{ success, data }`'),
    '/v2/team/token-usage/historical': get(
      'Model tokens used per period',
      '`{ success, periods }`',
    ),
    '/v2/search/research/papers': { get: hostedIndex },
    '/v2/search/research/papers/{id}': { get: { ...hostedIndex, parameters: [jobId] } },
    '/v2/search/research/papers/{id}/similar': { get: { ...hostedIndex, parameters: [jobId] } },
    '/v2/search/research/github': { get: hostedIndex },
    '/v2/search/developer': { post: hostedIndex },
    '/v2/openapi.json': get('This document', 'OpenAPI 3.1'),
  };
}

/** v1 routes: each is translated onto the v2 call it names and answered in v1's shape. */
export function v1Paths() {
  const translated = (v2: string) => `The v1 form of ${v2}, translated onto it`;
  const v1 = (summary: string) => ({
    summary,
    responses: { '200': { description: 'v1 body' }, ...errors },
  });
  const withId = (summary: string) => ({ ...v1(summary), parameters: [jobId] });
  return {
    '/v1/scrape': { post: v1(translated('POST /v2/scrape')) },
    '/v1/map': { post: v1(translated('POST /v2/map')) },
    '/v1/crawl': { post: v1(translated('POST /v2/crawl')) },
    '/v1/crawl/{id}': {
      get: withId(translated('GET /v2/crawl/{id}')),
      delete: withId(translated('DELETE /v2/crawl/{id}')),
    },
    '/v1/crawl/{id}/errors': { get: withId(translated('GET /v2/crawl/{id}/errors')) },
    '/v1/batch/scrape': { post: v1(translated('POST /v2/batch/scrape')) },
    '/v1/batch/scrape/{id}': {
      get: withId(translated('GET /v2/batch/scrape/{id}')),
      delete: withId(translated('DELETE /v2/batch/scrape/{id}')),
    },
    '/v1/batch/scrape/{id}/errors': { get: withId(translated('GET /v2/batch/scrape/{id}/errors')) },
    '/v1/extract': { post: v1(translated('POST /v2/extract')) },
    '/v1/extract/{id}': { get: withId(translated('GET /v2/extract/{id}')) },
  };
}

/**
 * The routes outside /v1 and /v2: the dashboard, the probe, screenshots and recordings, the CDP
 * socket.
 */
export const otherPaths = {
  '/': {
    get: {
      summary: 'The dashboard (a web app over this API); 404 when it was not built',
      security: [],
      responses: { '200': { description: 'HTML' }, '404': errorResponse('Not built') },
    },
  },
  '/assets/{name}': {
    get: {
      summary: "One of the files the dashboard's page names",
      security: [],
      parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }],
      responses: { '200': { description: 'Script or style' }, '404': errorResponse('Unknown') },
    },
  },
  '/health': {
    get: {
      summary:
        "Up or down (503 when the store does not answer); with a key, the team's running crawls",
      security: [],
      responses: {
        '200': { description: '`{ status: "ok", jobsRunning? }`' },
        '503': { description: '`{ status: "unavailable" }`' },
      },
    },
  },
  '/media/{name}': {
    get: {
      summary:
        'A screenshot or recording a scrape or browser session stored, by its unguessable name',
      security: [],
      parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }],
      responses: {
        '200': { description: 'The image or video' },
        '404': errorResponse('Unknown or expired'),
      },
    },
  },
  '/cdp/{id}': {
    get: {
      summary:
        "A browser session's Chrome DevTools Protocol WebSocket (the session's token in `token`)",
      security: [],
      parameters: [
        jobId,
        { name: 'token', in: 'query', required: true, schema: { type: 'string' } },
      ],
      responses: {
        '101': { description: 'WebSocket upgrade' },
        '401': errorResponse('Wrong token'),
      },
    },
  },
};
