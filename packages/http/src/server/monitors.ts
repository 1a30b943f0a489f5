/**
 * `/v2/monitor`: monitors over HTTP, as the official SDK calls them (reference-behaviour (a),
 * "Monitor"): create, list (`limit`/`offset`), get, update, delete, run now, list checks, and one
 * check with a page of its pages (`limit`/`skip`/`status`, `next` inside `data`). Every success
 * is 200 with `data` (the SDK requires it); monitors are scoped to the caller's team.
 *
 * The MonitorService lives here too: registering the routes builds it over the server's store,
 * with the webhook notifier, the configured e-mail notifier and LLM, and the credits ledger; its
 * scheduler starts when the server is ready and stops when it closes.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { EmailNotifier, OpenAiLlmProvider } from '@trawl/adapters';
import {
  ConflictError,
  MonitorService,
  monitorCreateShape,
  monitorUpdateShape,
  parseOrThrow,
  ValidationError,
  WebhookNotifier,
  type EngineConfig,
  type LlmProvider,
  type MonitorCredits,
  type Notifier,
  type SearchProvider,
  type Store,
  type WebhookSender,
} from '@trawl/core';
import { z } from 'zod';
import { errorReply, refusal } from './errors.ts';
import { wireFields } from './requests.ts';

/** Monitor settings of the server. */
export interface MonitorServerSettings {
  /** Judges changes and extracts JSON; without one, judging falls back to keywords. */
  llm?: LlmProvider;
  /** Notifiers beyond the webhook (e-mail). */
  notifiers?: readonly Notifier[];
}

/** The server settings monitors are built from (`TRAWL_SMTP_*`, `TRAWL_LLM_*`). */
export interface MonitorConfig {
  smtpUrl?: string;
  smtpFrom?: string;
  llmBaseUrl?: string;
  llmModel?: string;
  llmApiKey?: string;
  /** How tools are offered to the model (the agent): native, JSON actions, or auto. */
  llmToolCalls?: 'auto' | 'native' | 'json-action';
}

/**
 * The e-mail notifier and the LLM of the server's settings: e-mail when an SMTP URL is set, an
 * LLM when a model is set. @throws BAD_REQUEST for an LLM base URL without a model
 */
export function monitorSettingsFrom(config: MonitorConfig): MonitorServerSettings {
  if (config.llmBaseUrl && !config.llmModel) {
    throw new ValidationError(
      'TRAWL_LLM_BASE_URL is set but TRAWL_LLM_MODEL is not: name the model the endpoint serves.',
    );
  }
  return {
    ...(config.llmModel
      ? {
          llm: new OpenAiLlmProvider({
            model: config.llmModel,
            ...(config.llmBaseUrl ? { baseUrl: config.llmBaseUrl } : {}),
            ...(config.llmApiKey ? { apiKey: config.llmApiKey } : {}),
            ...(config.llmToolCalls ? { toolCalls: config.llmToolCalls } : {}),
          }),
        }
      : {}),
    notifiers: config.smtpUrl
      ? [
          new EmailNotifier({
            url: config.smtpUrl,
            ...(config.smtpFrom ? { from: config.smtpFrom } : {}),
          }),
        ]
      : [],
  };
}

/** What the monitor routes are built from. */
export interface MonitorRouteContext {
  store: Store;
  config: EngineConfig;
  webhooks: WebhookSender;
  credits?: MonitorCredits;
  /** Web search providers of search targets, the same as /v2/search's. */
  searchProviders?: readonly SearchProvider[];
  settings?: MonitorServerSettings;
  base: (request: FastifyRequest) => string;
  log?: (message: string, error?: unknown) => void;
}

/** The body of `POST /v2/monitor`: core's create shape plus the SDK's `origin` / `integration`. */
export const monitorCreateRequestSchema = z.strictObject({ ...monitorCreateShape, ...wireFields });
/** The body of `PATCH /v2/monitor/{id}`: core's update shape plus `origin` / `integration`. */
export const monitorUpdateRequestSchema = z.strictObject({ ...monitorUpdateShape, ...wireFields });

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const monitorNotFound = refusal(404, 'Monitor not found', 'NOT_FOUND');
const checkNotFound = refusal(404, 'Check not found', 'NOT_FOUND');
const outOfCredits = refusal(
  402,
  'Insufficient credits to perform this request. Ask the operator for more credits (TRAWL_TEAM_CREDITS).',
  'PAYMENT_REQUIRED',
);

/** The body without the wire-only fields the SDK adds. */
function withoutWireFields<T extends Record<string, unknown>>(body: T): T {
  const { origin: _origin, integration: _integration, ...rest } = body;
  return rest as T;
}

type IdParams = { id: string };
type CheckParams = { id: string; checkId: string };

/** Registers the monitor routes and the service's lifecycle on `app`; returns the service. */
export function monitorRoutes(app: FastifyInstance, context: MonitorRouteContext): MonitorService {
  const service = new MonitorService({
    store: context.store,
    config: context.config,
    notifiers: [new WebhookNotifier(context.webhooks), ...(context.settings?.notifiers ?? [])],
    ...(context.settings?.llm ? { llm: context.settings.llm } : {}),
    ...(context.credits ? { credits: context.credits } : {}),
    ...(context.searchProviders ? { searchProviders: context.searchProviders } : {}),
    ...(context.log ? { onWarning: context.log } : {}),
  });
  app.addHook('onReady', () => service.start());
  app.addHook('onClose', async () => {
    await service.stop();
    await Promise.allSettled(
      (context.settings?.notifiers ?? []).map(
        (notifier) => notifier.close?.() ?? Promise.resolve(),
      ),
    );
  });
  const scope = (request: FastifyRequest) => ({ team: request.team });
  const send = (reply: FastifyReply, answer: ReturnType<typeof refusal>) =>
    reply.code(answer.status).send(answer.body);

  // Creating, changing and running a monitor need a credit left, as on the hosted service.
  const hasCredits = async (request: FastifyRequest) =>
    !context.credits || (await context.credits.allows(request.team));

  app.post('/v2/monitor', async (request, reply) => {
    const body = parseOrThrow(monitorCreateRequestSchema, request.body ?? {}, 'monitor');
    if (!(await hasCredits(request))) return send(reply, outOfCredits);
    return { success: true, data: await service.create(withoutWireFields(body), scope(request)) };
  });

  app.get<{ Querystring: Record<string, string> }>('/v2/monitor', async (request) => ({
    success: true,
    data: await service.list(request.query, scope(request)),
  }));

  app.get<{ Params: IdParams }>('/v2/monitor/:id', async (request, reply) => {
    if (!uuidPattern.test(request.params.id)) return send(reply, monitorNotFound);
    return { success: true, data: await service.get(request.params.id, scope(request)) };
  });

  app.patch<{ Params: IdParams }>('/v2/monitor/:id', async (request, reply) => {
    if (!uuidPattern.test(request.params.id)) return send(reply, monitorNotFound);
    const body = parseOrThrow(monitorUpdateRequestSchema, request.body ?? {}, 'monitor update');
    if (!(await hasCredits(request))) return send(reply, outOfCredits);
    return {
      success: true,
      data: await service.update(request.params.id, withoutWireFields(body), scope(request)),
    };
  });

  app.delete<{ Params: IdParams }>('/v2/monitor/:id', async (request, reply) => {
    if (!uuidPattern.test(request.params.id)) return send(reply, monitorNotFound);
    await service.delete(request.params.id, scope(request));
    return { success: true };
  });

  app.post<{ Params: IdParams }>('/v2/monitor/:id/run', async (request, reply) => {
    if (!uuidPattern.test(request.params.id)) return send(reply, monitorNotFound);
    // The SDK posts `{}` with its origin; nothing else is accepted.
    parseOrThrow(z.strictObject(wireFields), request.body ?? {}, 'monitor run');
    try {
      const check = await service.run(request.params.id, scope(request));
      return { success: true, id: check.id, data: check };
    } catch (error) {
      // The hosted service puts the running check's id beside the error.
      if (error instanceof ConflictError && error.details && 'checkId' in error.details) {
        const answer = errorReply(error);
        return reply.code(409).send({ ...answer.body, checkId: error.details['checkId'] });
      }
      throw error;
    }
  });

  app.get<{ Params: IdParams; Querystring: Record<string, string> }>(
    '/v2/monitor/:id/checks',
    async (request, reply) => {
      if (!uuidPattern.test(request.params.id)) return send(reply, monitorNotFound);
      return {
        success: true,
        data: await service.checks(request.params.id, request.query, scope(request)),
      };
    },
  );

  app.get<{ Params: CheckParams; Querystring: Record<string, string> }>(
    '/v2/monitor/:id/checks/:checkId',
    async (request, reply) => {
      const { id, checkId } = request.params;
      if (!uuidPattern.test(id)) return send(reply, monitorNotFound);
      if (!uuidPattern.test(checkId)) return send(reply, checkNotFound);
      const { nextSkip, ...detail } = await service.check(
        id,
        checkId,
        request.query,
        scope(request),
      );
      let next: string | undefined;
      if (nextSkip !== undefined) {
        const query = new URLSearchParams({ ...request.query, skip: String(nextSkip) });
        next = `${context.base(request)}/v2/monitor/${id}/checks/${checkId}?${query.toString()}`;
      }
      return {
        success: true,
        ...(next ? { next } : {}),
        data: { ...detail, ...(next ? { next } : {}) },
      };
    },
  );

  app.get<{ Params: CheckParams }>(
    '/v2/monitor/:id/checks/:checkId/webhooks',
    async (request, reply) => {
      const { id, checkId } = request.params;
      if (!uuidPattern.test(id)) return send(reply, monitorNotFound);
      if (!uuidPattern.test(checkId)) return send(reply, checkNotFound);
      await service.check(id, checkId, { limit: 1 }, scope(request));
      return { success: true, deliveries: await context.webhooks.log(checkId) };
    },
  );

  return service;
}

/** The monitor paths of the OpenAPI document, with the request schemas the routes validate with. */
export function monitorOpenApiPaths(
  jsonSchema: (schema: z.ZodType) => unknown,
  errors: Record<string, unknown>,
): Record<string, unknown> {
  const id = { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };
  const checkId = { ...id, name: 'checkId' };
  const integer = (name: string, minimum: number, maximum?: number) => ({
    name,
    in: 'query',
    schema: { type: 'integer', minimum, ...(maximum ? { maximum } : {}) },
  });
  const body = (schema: z.ZodType) => ({
    required: true,
    content: { 'application/json': { schema: jsonSchema(schema) } },
  });
  const answer = (description: string) => ({ '200': { description }, ...errors });
  return {
    '/v2/monitor': {
      post: {
        summary: 'Create a monitor',
        requestBody: body(monitorCreateRequestSchema),
        responses: answer('`{ success, data: Monitor }`'),
      },
      get: {
        summary: "The team's monitors, newest first",
        parameters: [integer('limit', 1, 100), integer('offset', 0)],
        responses: answer('`{ success, data: Monitor[] }`'),
      },
    },
    '/v2/monitor/{id}': {
      get: { summary: 'A monitor', parameters: [id], responses: answer('`{ success, data }`') },
      patch: {
        summary: 'Change some fields of a monitor (an empty body is a 400)',
        parameters: [id],
        requestBody: body(monitorUpdateRequestSchema),
        responses: answer('`{ success, data: Monitor }`'),
      },
      delete: { summary: 'Delete a monitor', parameters: [id], responses: answer('`{ success }`') },
    },
    '/v2/monitor/{id}/run': {
      post: {
        summary: 'Run a check now; answers at once (409 when paused or a check is running)',
        parameters: [id],
        responses: answer('`{ success, id, data: MonitorCheck }`'),
      },
    },
    '/v2/monitor/{id}/checks': {
      get: {
        summary: "A monitor's checks, newest first",
        parameters: [
          id,
          integer('limit', 1, 100),
          integer('offset', 0),
          { name: 'status', in: 'query', schema: { type: 'string' } },
        ],
        responses: answer('`{ success, data: MonitorCheck[] }`'),
      },
    },
    '/v2/monitor/{id}/checks/{checkId}': {
      get: {
        summary: 'A check with a page of its pages; `data.next` reads on',
        parameters: [
          id,
          checkId,
          integer('limit', 1, 100),
          integer('skip', 0),
          { name: 'status', in: 'query', schema: { type: 'string' } },
        ],
        responses: answer('`{ success, next?, data: { …MonitorCheck, pages, next? } }`'),
      },
    },
    '/v2/monitor/{id}/checks/{checkId}/webhooks': {
      get: {
        summary: 'The webhook deliveries of a check, with attempts and outcome',
        parameters: [id, checkId],
        responses: answer('`{ success, deliveries }`'),
      },
    },
  };
}
