/**
 * `/v2/monitor`: monitors over HTTP, as the official SDK calls them (reference-behaviour (a),
 * "Monitor"): create, list (`limit`/`offset`), get, update, delete, run now, list checks, and one
 * check with a page of its pages (`limit`/`skip`/`status`, `next` inside `data`). Every success
 * is 200 with `data` (the SDK requires it); monitors are scoped to the caller's team.
 *
 * The MonitorService is the process's (process/services.ts): its scheduler starts when the
 * server is ready and stops when it closes; with a shared queue its checks run on the workers.
 */
import type { FastifyRequest } from 'fastify';
import { ConflictError, monitorCreateSchema, monitorUpdateSchema } from '@trawl/core';
import { parseOrThrow, parseRequest } from '@trawl/core/server';
import { z } from 'zod';
import { outOfCredits, Refusal } from '../errors.ts';
import { deliveriesWithSettingNames, withSettingNames } from '../../setting-names.ts';
import { isJobId, wireFields } from '../requests.ts';
import type { RoutePlugin } from './index.ts';

/** The body of `POST /v2/monitor`: core's create schema plus the SDK's `origin` / `integration`. */
export const monitorCreateRequestSchema = monitorCreateSchema.safeExtend(wireFields);
/** The body of `PATCH /v2/monitor/{id}`: core's update schema plus `origin` / `integration`. */
export const monitorUpdateRequestSchema = monitorUpdateSchema.safeExtend(wireFields);
const wireKeys = Object.keys(wireFields);

const monitorNotFound = () => new Refusal('NOT_FOUND', 'Monitor not found');
const checkNotFound = () => new Refusal('NOT_FOUND', 'Check not found');

type IdParams = { id: string };
type CheckParams = { id: string; checkId: string };

/** Registers the monitor routes on `app`. */
export const monitorRoutes: RoutePlugin = (app, server) => {
  const credits = server.admission;
  const service = server.monitors;
  const scope = (request: FastifyRequest) => ({ team: request.team });
  // Creating, changing and running a monitor need a credit left, as on the hosted service.
  const mustHaveCredits = async (request: FastifyRequest) => {
    if (!(await credits.allows(request.team))) throw outOfCredits();
  };
  const mustBeIds = (...ids: [id: string, notFound: () => Refusal][]) => {
    for (const [id, notFound] of ids) if (!isJobId(id)) throw notFound();
  };

  app.post('/v2/monitor', async (request) => {
    const { options } = parseRequest(
      monitorCreateRequestSchema,
      monitorCreateSchema,
      wireKeys,
      request.body,
      'monitor',
    );
    await mustHaveCredits(request);
    return { success: true, data: await service.create(options, scope(request)) };
  });

  app.get<{ Querystring: Record<string, string> }>('/v2/monitor', async (request) => ({
    success: true,
    data: await service.list(request.query, scope(request)),
  }));

  app.get<{ Params: IdParams }>('/v2/monitor/:id', async (request) => {
    mustBeIds([request.params.id, monitorNotFound]);
    return { success: true, data: await service.get(request.params.id, scope(request)) };
  });

  app.patch<{ Params: IdParams }>('/v2/monitor/:id', async (request) => {
    mustBeIds([request.params.id, monitorNotFound]);
    const { options } = parseRequest(
      monitorUpdateRequestSchema,
      monitorUpdateSchema,
      wireKeys,
      request.body,
      'monitor update',
    );
    await mustHaveCredits(request);
    return {
      success: true,
      data: await service.update(request.params.id, options, scope(request)),
    };
  });

  app.delete<{ Params: IdParams }>('/v2/monitor/:id', async (request) => {
    mustBeIds([request.params.id, monitorNotFound]);
    await service.delete(request.params.id, scope(request));
    return { success: true };
  });

  app.post<{ Params: IdParams }>('/v2/monitor/:id/run', async (request) => {
    mustBeIds([request.params.id, monitorNotFound]);
    // The SDK posts `{}` with its origin; nothing else is accepted.
    parseOrThrow(z.strictObject(wireFields), request.body ?? {}, 'monitor run');
    try {
      const check = await service.run(request.params.id, scope(request));
      return { success: true, id: check.id, data: check };
    } catch (error) {
      // The hosted service puts the running check's id beside the error.
      if (error instanceof ConflictError && error.details && 'checkId' in error.details) {
        throw new Refusal(error.code, error.message, {
          details: error.details,
          fields: { checkId: error.details['checkId'] },
          cause: error,
        });
      }
      throw error;
    }
  });

  app.get<{ Params: IdParams; Querystring: Record<string, string> }>(
    '/v2/monitor/:id/checks',
    async (request) => {
      mustBeIds([request.params.id, monitorNotFound]);
      return {
        success: true,
        data: await service.checks(request.params.id, request.query, scope(request)),
      };
    },
  );

  app.get<{ Params: CheckParams; Querystring: Record<string, string> }>(
    '/v2/monitor/:id/checks/:checkId',
    async (request) => {
      const { id, checkId } = request.params;
      mustBeIds([id, monitorNotFound], [checkId, checkNotFound]);
      const { nextSkip, ...detail } = await service.check(
        id,
        checkId,
        request.query,
        scope(request),
      );
      let next: string | undefined;
      if (nextSkip !== undefined) {
        const query = new URLSearchParams({ ...request.query, skip: String(nextSkip) });
        next = `${server.base(request)}/v2/monitor/${id}/checks/${checkId}?${query.toString()}`;
      }
      return {
        success: true,
        ...(next ? { next } : {}),
        // A page's error is core's message, naming an option: say which variable sets it.
        data: {
          ...detail,
          pages: detail.pages.map((page) =>
            page.error ? { ...page, error: withSettingNames(page.error) } : page,
          ),
          ...(next ? { next } : {}),
        },
      };
    },
  );

  app.get<{ Params: CheckParams }>('/v2/monitor/:id/checks/:checkId/webhooks', async (request) => {
    const { id, checkId } = request.params;
    mustBeIds([id, monitorNotFound], [checkId, checkNotFound]);
    await service.check(id, checkId, { limit: 1 }, scope(request));
    return {
      success: true,
      deliveries: deliveriesWithSettingNames(await server.webhooks.log(checkId)),
    };
  });
};

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
