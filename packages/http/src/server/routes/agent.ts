/**
 * The agent routes, as the SDK's `startAgent`, `getAgentStatus`, `agent` (its
 * waiter), `cancelAgent`, `listAgents` and `getAgentTrace` call them: `POST /v2/agent`,
 * `GET /v2/agent/{id}`, `DELETE /v2/agent/{id}`, `GET /v2/agent?before=`,
 * `GET /v2/agent/{id}/trace`. A request is checked at once (bad options: 400; no model: 501,
 * naming the variables), then the run goes to the job host (agent-jobs.ts), which runs it
 * wherever the queue hands it.
 * A team sees only its own runs: another team's id answers 404, as an unknown one does.
 */
import type { FastifyRequest } from 'fastify';
import { ValidationError, type AgentOptions } from '@trawl/core';
import { parseOrThrow, prepareAgent } from '@trawl/core/server';
import { z } from 'zod';
import { agentKind, agentRetentionMs, type AgentRecord } from '../agent-jobs.ts';
import { admit } from '../admission.ts';
import { Refusal } from '../errors.ts';
import { isJobId, webhookSchema, wireFields } from '../requests.ts';
import { webhookConfigOf } from '../webhooks.ts';
import type { RoutePlugin } from './index.ts';

/** The fields of the body that are not the agent's options: its webhook and the wire fields. */
const envelopeSchema = z.object({
  webhook: webhookSchema(['started', 'action', 'completed', 'failed', 'cancelled']).optional(),
  ...wireFields,
});

/** Runs per page of the list; `next` reads on. */
const listPageSize = 50;
const notFound = () => new Refusal('NOT_FOUND', 'Agent job not found');

/** The agent routes, registered inside the authenticated scope. */
export const agentRoutes: RoutePlugin = (app, server) => {
  const { llm, admission, host } = server;

  let lastCreatedMs = 0;
  const find = async (request: FastifyRequest<{ Params: { id: string } }>) =>
    isJobId(request.params.id)
      ? host.get<AgentRecord>(agentKind, request.team, request.params.id)
      : undefined;

  app.post('/v2/agent', async (request) => {
    const {
      webhook,
      origin,
      integration: _integration,
      ...rest
    } = parseOrThrow(envelopeSchema.loose(), request.body ?? {}, 'agent request');
    const agentOptions = rest as AgentOptions;
    // Checked before the job exists: a bad option or schema is a 400, no model a 501.
    prepareAgent(agentOptions, llm ? { llm } : {});
    // A run reserves its maxCredits, or what the team has left: no run may spend more.
    const ticket = await admit(server, request.team, {
      credits: agentOptions.maxCredits ?? admission.limit ?? 0,
      atLeast: 1,
      callsModel: true,
      budget: true,
      leaseMs: agentRetentionMs,
    });
    if (ticket.reserved !== undefined)
      agentOptions.maxCredits = Math.min(
        agentOptions.maxCredits ?? ticket.reserved,
        ticket.reserved,
      );
    // Distinct times, so a page of the list ending at one run (`before` is in ms) misses none.
    const now = (lastCreatedMs = Math.max(Date.now(), lastCreatedMs + 1));
    const record: AgentRecord = {
      id: ticket.id,
      team: request.team,
      status: 'processing',
      options: agentOptions,
      origin: origin ?? 'api',
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + agentRetentionMs).toISOString(),
      model: llm!.model,
      ...(webhook ? { webhook: agentWebhook(webhook, request.team) } : {}),
    };
    await host.start(agentKind, record).catch(async (error: unknown) => {
      await ticket.settle();
      throw error;
    });
    return { success: true, id: record.id };
  });

  app.get<{ Params: { id: string } }>('/v2/agent/:id', async (request) => {
    const record = await find(request);
    if (!record) throw notFound();
    const cancelled = record.status === 'cancelled';
    return {
      success: true,
      id: record.id,
      status: wireStatus(record),
      ...(cancelled ? { cancelled: true } : {}),
      data: record.data ?? null,
      ...(record.partial ? { partial: true } : {}),
      ...(record.warning ? { warning: record.warning } : {}),
      ...(record.error || cancelled
        ? { error: record.error ?? 'The agent run was cancelled' }
        : {}),
      expiresAt: record.expiresAt,
      creditsUsed: record.creditsUsed ?? creditsSoFar(record),
      model: record.model,
      ...(record.options.model ? { requestedModel: record.options.model } : {}),
      ...(record.options.effort ? { effort: record.options.effort } : {}),
      steps: record.state?.step ?? 0,
    };
  });

  app.delete<{ Params: { id: string } }>('/v2/agent/:id', async (request) => {
    const record = await find(request);
    if (!record) throw notFound();
    if (record.status === 'completed' || record.status === 'failed')
      throw new Refusal('CONFLICT', `The agent run is already ${record.status}`);
    if (record.status === 'processing') await host.cancel(record.id);
    return { success: true, status: 'cancelled' };
  });

  app.get<{ Querystring: { before?: string } }>('/v2/agent', async (request) => {
    const before = beforeOf(request.query.before);
    const page = (
      await host.list<AgentRecord>(
        agentKind,
        request.team,
        (record) => Date.parse(record.createdAt) < before,
      )
    )
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id))
      .slice(0, listPageSize + 1);
    const shown = page.slice(0, listPageSize);
    const last = shown.at(-1);
    return {
      success: true,
      agents: shown.map(listItem),
      ...(page.length > listPageSize && last
        ? {
            next: `${request.protocol}://${request.host}/v2/agent?before=${Date.parse(last.createdAt)}`,
          }
        : {}),
    };
  });

  app.get<{ Params: { id: string }; Querystring: { liveView?: string } }>(
    '/v2/agent/:id/trace',
    async (request) => {
      const record = await find(request);
      if (!record) throw notFound();
      return {
        success: true,
        id: record.id,
        events: record.state?.trace ?? [],
        creditsUsed: record.creditsUsed ?? creditsSoFar(record),
        // The agent drives no browser session: there is never one to watch.
        ...(request.query.liveView === 'true' ? { activeBrowserSessions: [] } : {}),
      };
    },
  );
};

/** The agent webhook as the sender takes it; checked as the other jobs' webhooks are. */
function agentWebhook(
  webhook: NonNullable<z.output<typeof envelopeSchema>['webhook']>,
  team: string,
) {
  if (typeof webhook === 'string') return webhookConfigOf(webhook, team);
  const { events, ...rest } = webhook;
  return { ...webhookConfigOf(rest, team), events: events ?? [] };
}

/** Credits of a run still going: the last step's, before tokens are settled. */
function creditsSoFar(record: AgentRecord): number {
  const last = record.state?.trace.findLast((event) => event.type === 'progress.reported');
  return last && 'creditsUsed' in last ? last.creditsUsed : 0;
}

/** `before`: a unix time in ms; unset: now. @throws BAD_REQUEST */
function beforeOf(value: string | undefined): number {
  if (value === undefined || value === '') return Date.now() + 1;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0)
    throw new ValidationError(
      `Invalid query parameter 'before': expected a unix time in milliseconds (got '${value}')`,
      {
        details: [{ path: ['before'], message: 'expected a non-negative integer' }],
      },
    );
  return number;
}

/**
 * A run's status as the SDKs type it (`processing | completed | failed`): a cancelled run is a
 * failed one whose answer also says `cancelled: true`.
 */
function wireStatus(record: AgentRecord): 'processing' | 'completed' | 'failed' {
  return record.status === 'cancelled' ? 'failed' : record.status;
}

/** A run as the SDK's `AgentListItem`. */
function listItem(record: AgentRecord) {
  const { options } = record;
  return {
    id: record.id,
    createdAt: record.createdAt,
    targetHint: options.urls?.[0] ?? options.prompt.slice(0, 100),
    origin: record.origin,
    settings: { hidden: false, starred: false },
    status: wireStatus(record),
    options: {
      ...(options.urls ? { urls: options.urls } : {}),
      prompt: options.prompt,
      ...(options.schema ? { schema: options.schema } : {}),
      model: options.model ?? record.model,
      ...(options.effort ? { effort: options.effort } : {}),
    },
  };
}
