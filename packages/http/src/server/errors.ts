/**
 * Error bodies and statuses of the /v2 server: the one error path. Routes throw; core's errors
 * carry a stable code, and what the server refuses itself is a `Refusal`, a TrawlError too. The
 * error handler turns any throw into its answer with `sendError`. This table gives each code its
 * HTTP status (docs/errors.md lists the same, a test keeps them in step). Bodies are
 * `{ success: false, error, code, details? }`, which the official SDK turns into its SdkError.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import {
  FeedbackError,
  toTrawlError,
  TrawlError,
  type ErrorCode,
  type TrawlErrorOptions,
} from '@trawl/core';
import { withSettingNames } from '../setting-names.ts';

/** HTTP status of each error code; `null` for codes that only appear inside job error lists. */
export const httpStatusOf: Record<ErrorCode, number | null> = {
  BAD_REQUEST: 400,
  BAD_REQUEST_INVALID_JSON: 400,
  INVALID_URL: 400,
  UNAUTHORIZED: 401,
  PAYMENT_REQUIRED: 402,
  URL_BLOCKED: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  TEAM_OPTED_OUT: 403,
  FEEDBACK_WINDOW_EXPIRED: 409,
  SEARCH_FAILED: 409,
  SCRAPE_NO_CACHED_DATA: 404,
  SCRAPE_LOCKDOWN_CACHE_MISS: 404,
  SCRAPE_TIMEOUT: 408,
  MAP_TIMEOUT: 408,
  CONTENT_TOO_LARGE: 413,
  UNSUPPORTED_FILE_TYPE: 415,
  PARSE_UNSUPPORTED_OPTIONS: 400,
  RATE_LIMITED: 429,
  NOT_CONFIGURED: 501,
  CAPABILITY_UNAVAILABLE: 501,
  FETCH_FAILED: 500,
  SCRAPE_DNS_RESOLUTION_ERROR: 500,
  SCRAPE_CONNECTION_REFUSED: 500,
  SCRAPE_SSL_ERROR: 500,
  STORE_UNAVAILABLE: 503,
  SCRAPE_HTTP_ERROR: null,
  SCRAPE_ACTION_ERROR: 500,
  CRAWL_URL_DENIED: null,
  UNKNOWN_ERROR: 500,
};

/** How a refusal of the server's own differs from the plain answer for its code. */
export interface RefusalOptions extends TrawlErrorOptions {
  /** The status, where the hosted service answers another than the code's (415 BAD_REQUEST). */
  status?: number;
  /** Whether the body names the code; the hosted service leaves it out of some. @default true */
  showCode?: boolean;
  /** Headers of the answer (`retry-after`). */
  headers?: Readonly<Record<string, string>>;
  /** Fields the body carries beside `error` (the running check's `checkId`). */
  fields?: Readonly<Record<string, unknown>>;
}

/** Something the server itself refuses: an unknown job, no credits, a used idempotency key. */
export class Refusal extends TrawlError {
  override name = 'Refusal';
  readonly options: RefusalOptions;

  constructor(code: ErrorCode, message: string, options: RefusalOptions = {}) {
    super(code, message, options);
    this.options = options;
  }
}

/** The JSON body of an error answer. */
export interface ErrorBody {
  success: false;
  error: string;
  code?: string;
  details?: unknown;
  [field: string]: unknown;
}

/** An error answer: status, body and headers. */
export interface ErrorReply {
  status: number;
  body: ErrorBody;
  headers?: Readonly<Record<string, string>>;
  /** Set for unexpected errors: the id the body names, for the log. */
  exceptionId?: string;
  /** What goes to the error log (unexpected errors, with their exception id). */
  log?: { err: unknown; exceptionId?: string };
}

/**
 * The answer for anything thrown while handling a request. Unexpected errors get a generic
 * message with an exception id (the stack goes to the log, never into the body). Feedback
 * errors have the feedback endpoints' own body (spec: Errors).
 */
export function errorReply(thrown: unknown): ErrorReply {
  const error = toTrawlError(thrown);
  const status = httpStatusOf[error.code] ?? 500;
  if (error instanceof FeedbackError) {
    return {
      status,
      // FeedbackService turns every failure into a FeedbackError; INTERNAL ones are bugs.
      ...(error.feedbackErrorCode === 'INTERNAL' ? { log: { err: error.cause ?? error } } : {}),
      body: {
        error: error.message,
        success: false,
        details: Array.isArray(error.details) ? [...(error.details as object[])] : [],
        feedbackErrorCode: error.feedbackErrorCode,
      },
    };
  }
  if (error.code === 'UNKNOWN_ERROR') {
    const exceptionId = crypto.randomUUID();
    return {
      status: 500,
      exceptionId,
      log: { err: thrown, exceptionId },
      body: {
        success: false,
        code: 'UNKNOWN_ERROR',
        error: `An unexpected error occurred. Please contact the operator for help. Your exception ID is ${exceptionId}`,
      },
    };
  }
  const refusal = error instanceof Refusal ? error.options : {};
  return {
    status: refusal.status ?? status,
    body: {
      success: false,
      ...(refusal.showCode === false ? {} : { code: error.code }),
      error: withSettingNames(error.message),
      ...(error.details ? { details: error.details } : {}),
      ...refusal.fields,
    },
    ...(refusal.headers ? { headers: refusal.headers } : {}),
  };
}

/** Sends the answer for `thrown`: the server's one way to answer an error. */
export function sendError(reply: FastifyReply, thrown: unknown): FastifyReply {
  const answer = errorReply(thrown);
  if (answer.log) reply.log.error(answer.log);
  for (const [name, value] of Object.entries(answer.headers ?? {})) void reply.header(name, value);
  return reply.code(answer.status).send(answer.body);
}

/** What every work endpoint answers once the team's credits are spent. */
export const outOfCredits = () =>
  new Refusal(
    'PAYMENT_REQUIRED',
    'Insufficient credits to perform this request. Ask the operator for more credits (TRAWL_TEAM_CREDITS).',
  );

/**
 * Installs the one error path on `app`: whatever a route or hook throws, and bodies Fastify
 * could not read (413, 415, malformed JSON), answer through `sendError`; unknown paths are 404.
 */
export function answerErrors(app: FastifyInstance): void {
  app.setErrorHandler((error: Error & { code?: string; statusCode?: number }, _request, reply) => {
    if (error.code?.startsWith('FST_ERR_CTP_') || error instanceof SyntaxError) {
      if (error.statusCode === 413)
        return sendError(reply, new Refusal('CONTENT_TOO_LARGE', 'Request body too large'));
      if (error.statusCode === 415)
        return sendError(
          reply,
          new Refusal('BAD_REQUEST', 'Unsupported content type: send application/json', {
            status: 415,
          }),
        );
      return sendError(
        reply,
        new Refusal('BAD_REQUEST_INVALID_JSON', 'Bad request, malformed JSON'),
      );
    }
    return sendError(reply, error);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(
      reply,
      new Refusal(
        'NOT_FOUND',
        `Not found: ${request.method} ${request.url.split('?')[0]} (GET /v2/openapi.json lists the routes)`,
      ),
    ),
  );
}
