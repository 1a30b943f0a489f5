/**
 * The daily LLM token cap at the door: work that asks the model is refused (429 with
 * Retry-After) once the team has used its tokens of the day (issue 18).
 */
import type { FastifyRequest } from 'fastify';
import type { ServerContext } from './context.ts';
import { asksModel } from './llm-usage.ts';

/** @throws RATE_LIMITED when the request asks the model and the team is over its cap */
export async function refuseOverTokenCap(
  server: ServerContext,
  request: FastifyRequest,
): Promise<void> {
  if (!server.llm || !asksModel(request.body)) return;
  const capped = await server.tokens.refusal(request.team);
  if (capped) throw capped;
}
