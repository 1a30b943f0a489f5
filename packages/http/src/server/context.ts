/**
 * What one server is built from, made once: the process's services (process/services.ts, the
 * same builder `trawl worker` uses) and what only answering HTTP requests needs besides — the
 * API keys, rate and concurrency limits, idempotency keys, feedback. Every route plugin gets
 * this one object.
 */
import type { FastifyRequest } from 'fastify';
import { FeedbackService, type FeedbackSettings } from '@trawl/core/server';
import { buildProcess, type ProcessOptions, type ProcessServices } from '../process/services.ts';
import type { ApiKeys } from './auth.ts';
import { IdempotencyKeys, RateLimiter, TeamConcurrency } from './limits.ts';

export type { MeteredLlm } from '../process/services.ts';

/** What the server is built from. */
export interface ServerOptions extends Omit<ProcessOptions, 'role'> {
  /**
   * `all` runs jobs besides answering requests; `api` only accepts, queues and answers from the
   * store, for a deployment whose `trawl worker` processes run the jobs. @default 'all'
   */
  role?: 'all' | 'api';
  keys: ApiKeys;
  logLevel?: string;
  /** Feedback refund caps, window and opted-out teams. */
  feedback?: FeedbackSettings;
}

/** The services of one server, shared by its route plugins. */
export interface ServerContext extends Omit<ProcessServices, 'options'> {
  options: ServerOptions;
  keys: ApiKeys;
  /** Feedback on finished work, and its refunds. */
  feedback: FeedbackService;
  rate: RateLimiter;
  concurrency: TeamConcurrency;
  idempotency: IdempotencyKeys;
  limits: NonNullable<ServerOptions['limits']>;
  /** `http(s)://host` of a request, for the absolute URLs answers carry. */
  base(request: FastifyRequest): string;
}

/** Builds the services of a server from its options. */
export function serverContext(options: ServerOptions): ServerContext {
  const { role, keys: _keys, logLevel: _logLevel, feedback, ...rest } = options;
  const services = buildProcess({ ...rest, role: role === 'api' ? 'api' : 'serve' });
  const { store, ledger, records, counters } = services;
  return {
    ...services,
    options,
    keys: options.keys,
    feedback: new FeedbackService({
      store,
      ledger,
      counters,
      findJob: (team, id) => records.get(team, id),
      ...(feedback ? { settings: feedback } : {}),
    }),
    rate: new RateLimiter(options.limits?.ratePerMinute ?? 0, counters),
    concurrency: new TeamConcurrency(options.limits?.teamConcurrency ?? 0, counters),
    idempotency: new IdempotencyKeys(store),
    limits: options.limits ?? {},
    base: (request) => `${request.protocol}://${request.host}`,
  };
}
