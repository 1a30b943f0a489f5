/**
 * Admission at the routes: every route's work passes `admit` before it starts, which asks core's
 * Admission for a ticket and answers its refusals as the hosted service does (402 for credits,
 * 429 with Retry-After for the token cap). The work's model is the ticket's (each call reserved
 * before it is made). Routes never read or write the ledger or counters themselves (a house test
 * keeps it so).
 */
import type { FastifyRequest } from 'fastify';
import type { AdmissionTicket, AdmissionWork } from '@trawl/core/server';
import type { EngineContext } from '@trawl/core';
import type { ServerContext } from './context.ts';
import { outOfCredits } from './errors.ts';
import { asksModel } from './llm-usage.ts';
import { mediaLinks } from './media.ts';

/**
 * Admits `work` for `team`; with `body`, the work calls a model when the body asks for an LLM
 * format and a model is configured.
 * @throws PAYMENT_REQUIRED when the credits left cannot pay for it; RATE_LIMITED over the
 * team's daily token cap
 */
export async function admit(
  server: Pick<ServerContext, 'admission' | 'llm'>,
  team: string,
  work: AdmissionWork & { body?: unknown },
): Promise<AdmissionTicket> {
  const { body, ...rest } = work;
  const callsModel =
    rest.callsModel ?? (body !== undefined && server.llm !== undefined && asksModel(body));
  const admitted = await server.admission.admit(team, { ...rest, callsModel });
  if (!('reason' in admitted)) return admitted;
  throw admitted.reason === 'credits' ? outOfCredits() : admitted.refusal;
}

/** The LLM part of an engine context for admitted work: the model, paid through its ticket. */
export function llmContextOf(
  server: Pick<ServerContext, 'llm'>,
  ticket: AdmissionTicket,
): Pick<EngineContext, 'llm'> {
  return server.llm ? { llm: ticket.model(server.llm) } : {};
}

/**
 * The engine context of a request's admitted work: the server's store and settings, the
 * request's team, media links under this server, and the ticket's model.
 */
export function engineContextOf(
  server: Pick<ServerContext, 'llm' | 'store' | 'config' | 'base'>,
  request: FastifyRequest,
  ticket: AdmissionTicket,
): EngineContext {
  return {
    ...llmContextOf(server, ticket),
    store: server.store,
    config: server.config,
    team: request.team,
    media: mediaLinks(server.store, server.base(request)),
  };
}
