/**
 * `GET /health`, for readiness probes: the store answers (a closed or unreachable store makes
 * every job call fail). Anyone may ask whether the server is up; only a team's own key shows
 * its running crawls.
 */
import { authenticate } from '../auth.ts';
import type { RoutePlugin } from './index.ts';

export const healthRoutes: RoutePlugin = (app, { store, keys, jobs }) => {
  app.get('/health', async (request, reply) => {
    try {
      await store.get('health', 'probe');
      keys.fresh();
      if (keys.keyless) return { status: 'ok', jobsRunning: jobs.running.length };
      const outcome = authenticate(keys, { authorization: request.headers.authorization });
      if ('refused' in outcome) return { status: 'ok' };
      return { status: 'ok', jobsRunning: (await jobs.active(outcome.team)).length };
    } catch (error) {
      request.log.warn({ err: error }, 'health check: store unavailable');
      // Not an error body: probes read `status`.
      return reply.code(503).send({ status: 'unavailable', error: 'The store does not answer' });
    }
  });
};
