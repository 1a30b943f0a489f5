/**
 * Admission at the routes: every route's work passes `admit` before it starts, which asks core's
 * Admission for a ticket and answers its refusals as the hosted service does (402 for credits,
 * 429 with Retry-After for the token cap). Routes never read or write the ledger or counters
 * themselves (a house test keeps it so).
 */
import type { AdmissionTicket, AdmissionWork } from '@trawl/core/server';
import type { EngineContext } from '@trawl/core';
import type { ServerContext } from './context.ts';
import { outOfCredits } from './errors.ts';
import { asksModel } from './llm-usage.ts';

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

/** The LLM part of an engine context for admitted work: the model, metered by its ticket. */
export function llmContextOf(
  server: Pick<ServerContext, 'llm'>,
  ticket: AdmissionTicket,
): Pick<EngineContext, 'llm' | 'onLlmUsage'> {
  return server.llm ? { llm: server.llm, onLlmUsage: ticket.onLlmUsage } : {};
}
