/**
 * What every keyed request passes before its route: the API key (401) and the team's request
 * rate (429 with Retry-After). Decided on the route the router matched, after it decoded the
 * path, never on the raw URL: `/%762/scrape` runs /v2/scrape and needs a key as much as
 * `/v2/scrape`. Paths that match no route never get here (the not-found handler
 * answers them).
 */
import type { FastifyRequest } from 'fastify';
import { authenticate, credentialsOf, isKeyedRoute } from './auth.ts';
import type { ServerContext } from './context.ts';
import { Refusal } from './errors.ts';
import { rateModeOf } from './limits.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The team of the request's key (`default` on a keyless server). */
    team: string;
  }
}

/** The onRequest hook of the keyed routes: rejects with UNAUTHORIZED or RATE_LIMITED. */
export function doorHook(server: ServerContext) {
  return async (request: FastifyRequest): Promise<void> => {
    const refusal = await refusalAtDoor(server, request);
    if (refusal) throw refusal;
  };
}

/** Why `request` may not pass, if it may not; sets its team when it may. */
async function refusalAtDoor({ keys, rate }: ServerContext, request: FastifyRequest) {
  const route = request.routeOptions.url;
  if (route === undefined || !isKeyedRoute(route)) return undefined;
  const outcome = authenticate(keys.fresh(), credentialsOf(request));
  // The code is what docs/errors.md promises; the SDKs read only `error`, so it costs them nothing.
  if ('refused' in outcome) return new Refusal('UNAUTHORIZED', outcome.refused);
  request.team = outcome.team;
  // A v1 route runs as the v2 call it translates to, which is counted at this door itself.
  if (route.startsWith('/v1/')) return undefined;
  const limited = await rate.take(outcome.team, rateModeOf(request.method, route));
  if (!limited) return undefined;
  return new Refusal('RATE_LIMITED', limited.error, {
    headers: { 'retry-after': String(limited.retryAfterSeconds) },
  });
}
