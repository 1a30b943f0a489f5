/**
 * The one error hierarchy of Trawl. Every error carries a stable `code` that callers and the HTTP
 * layer switch on; core never speaks of HTTP statuses (packages/http owns that table).
 *
 * Subclasses are named for what the caller has to do about them, not for where they were thrown.
 */

/** Every stable error code Trawl can produce. Listed in docs/errors.md; a test keeps both in step. */
export type ErrorCode =
  | 'BAD_REQUEST'
  | 'BAD_REQUEST_INVALID_JSON'
  | 'INVALID_URL'
  | 'UNAUTHORIZED'
  | 'PAYMENT_REQUIRED'
  | 'URL_BLOCKED'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'TEAM_OPTED_OUT'
  | 'FEEDBACK_WINDOW_EXPIRED'
  | 'SEARCH_FAILED'
  | 'SCRAPE_NO_CACHED_DATA'
  | 'SCRAPE_LOCKDOWN_CACHE_MISS'
  | 'SCRAPE_TIMEOUT'
  | 'MAP_TIMEOUT'
  | 'CONTENT_TOO_LARGE'
  | 'UNSUPPORTED_FILE_TYPE'
  | 'PARSE_UNSUPPORTED_OPTIONS'
  | 'RATE_LIMITED'
  | 'NOT_CONFIGURED'
  | 'CAPABILITY_UNAVAILABLE'
  | 'FETCH_FAILED'
  | 'SCRAPE_DNS_RESOLUTION_ERROR'
  | 'SCRAPE_CONNECTION_REFUSED'
  | 'SCRAPE_SSL_ERROR'
  | 'STORE_UNAVAILABLE'
  | 'SCRAPE_HTTP_ERROR'
  | 'SCRAPE_ACTION_ERROR'
  | 'CRAWL_URL_DENIED'
  | 'UNKNOWN_ERROR';

/** All codes, for tables and docs that must stay exhaustive. */
export const errorCodes = [
  'BAD_REQUEST',
  'BAD_REQUEST_INVALID_JSON',
  'INVALID_URL',
  'UNAUTHORIZED',
  'PAYMENT_REQUIRED',
  'URL_BLOCKED',
  'NOT_FOUND',
  'CONFLICT',
  'TEAM_OPTED_OUT',
  'FEEDBACK_WINDOW_EXPIRED',
  'SEARCH_FAILED',
  'SCRAPE_NO_CACHED_DATA',
  'SCRAPE_LOCKDOWN_CACHE_MISS',
  'SCRAPE_TIMEOUT',
  'MAP_TIMEOUT',
  'CONTENT_TOO_LARGE',
  'UNSUPPORTED_FILE_TYPE',
  'PARSE_UNSUPPORTED_OPTIONS',
  'RATE_LIMITED',
  'NOT_CONFIGURED',
  'CAPABILITY_UNAVAILABLE',
  'FETCH_FAILED',
  'SCRAPE_DNS_RESOLUTION_ERROR',
  'SCRAPE_CONNECTION_REFUSED',
  'SCRAPE_SSL_ERROR',
  'STORE_UNAVAILABLE',
  'SCRAPE_HTTP_ERROR',
  'SCRAPE_ACTION_ERROR',
  'CRAWL_URL_DENIED',
  'UNKNOWN_ERROR',
] as const satisfies readonly ErrorCode[];

/** One problem with one input field, as validation reports it. */
export interface FieldIssue {
  /** Where the bad value sits, e.g. `['formats', 2]`. */
  path: (string | number)[];
  /** What is wrong with it, in words a caller can act on. */
  message: string;
  /** A short machine tag from the validator (zod's issue code), when there is one. */
  code?: string;
}

/** Options shared by every Trawl error. */
export interface TrawlErrorOptions {
  /** Field issues or other structured context for the caller. */
  details?: readonly FieldIssue[] | Record<string, unknown>;
  /** The lower-level error this one explains. */
  cause?: unknown;
  /** Whether trying the same call again later may succeed. @default false */
  retryable?: boolean;
}

/** Base class of every error Trawl throws on purpose. */
export class TrawlError extends Error {
  override name = 'TrawlError';
  readonly code: ErrorCode;
  readonly details: readonly FieldIssue[] | Record<string, unknown> | undefined;
  readonly retryable: boolean;

  constructor(code: ErrorCode, message: string, options: TrawlErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details;
    this.retryable = options.retryable ?? false;
  }
}

/** The input is wrong: fix the request (bad option, malformed URL). */
export class ValidationError extends TrawlError {
  override name = 'ValidationError';
  constructor(
    message: string,
    options: TrawlErrorOptions & {
      code?: 'BAD_REQUEST' | 'INVALID_URL' | 'PARSE_UNSUPPORTED_OPTIONS';
    } = {},
  ) {
    super(options.code ?? 'BAD_REQUEST', message, options);
  }
}

/** The caller is not who it must be: send a valid API key. */
export class AuthError extends TrawlError {
  override name = 'AuthError';
  constructor(message: string, options: TrawlErrorOptions = {}) {
    super('UNAUTHORIZED', message, options);
  }
}

/** The team has no credits left for this call. */
export class PaymentRequiredError extends TrawlError {
  override name = 'PaymentRequiredError';
  constructor(message: string, options: TrawlErrorOptions = {}) {
    super('PAYMENT_REQUIRED', message, options);
  }
}

/** The target may not be fetched (private address in server mode, blocklist). */
export class BlockedUrlError extends TrawlError {
  override name = 'BlockedUrlError';
  constructor(message: string, options: TrawlErrorOptions = {}) {
    super('URL_BLOCKED', message, options);
  }
}

/** What was asked for does not exist (or, for the cache-only modes, is not cached). */
export class NotFoundError extends TrawlError {
  override name = 'NotFoundError';
  constructor(
    message: string,
    options: TrawlErrorOptions & {
      code?: 'NOT_FOUND' | 'SCRAPE_NO_CACHED_DATA' | 'SCRAPE_LOCKDOWN_CACHE_MISS';
    } = {},
  ) {
    super(options.code ?? 'NOT_FOUND', message, options);
  }
}

/**
 * The resource is not in a state that allows the call: a paused monitor asked to run, a check
 * already running. Retry once the state has changed.
 */
export class ConflictError extends TrawlError {
  override name = 'ConflictError';
  constructor(message: string, options: TrawlErrorOptions = {}) {
    super('CONFLICT', message, options);
  }
}

/** The work did not finish within its time budget: raise `timeout` or try later. */
export class TimeoutError extends TrawlError {
  override name = 'TimeoutError';
  constructor(
    message: string,
    options: TrawlErrorOptions & { code?: 'SCRAPE_TIMEOUT' | 'MAP_TIMEOUT' } = {},
  ) {
    super(options.code ?? 'SCRAPE_TIMEOUT', message, { retryable: true, ...options });
  }
}

/** The response is larger than the engine is configured to read. */
export class ContentTooLargeError extends TrawlError {
  override name = 'ContentTooLargeError';
  constructor(message: string, options: TrawlErrorOptions = {}) {
    super('CONTENT_TOO_LARGE', message, options);
  }
}

/** The content type cannot be turned into a document (yet). */
export class UnsupportedTypeError extends TrawlError {
  override name = 'UnsupportedTypeError';
  constructor(message: string, options: TrawlErrorOptions = {}) {
    super('UNSUPPORTED_FILE_TYPE', message, options);
  }
}

/** Too many requests: wait and retry. */
export class RateLimitError extends TrawlError {
  override name = 'RateLimitError';
  constructor(message: string, options: TrawlErrorOptions = {}) {
    super('RATE_LIMITED', message, { retryable: true, ...options });
  }
}

/**
 * A feature needs something this engine does not have: a provider the operator did not configure
 * (NOT_CONFIGURED, e.g. no LLM), or a capability this build does not ship (CAPABILITY_UNAVAILABLE).
 */
export class NotConfiguredError extends TrawlError {
  override name = 'NotConfiguredError';
  constructor(
    message: string,
    options: TrawlErrorOptions & { code?: 'NOT_CONFIGURED' | 'CAPABILITY_UNAVAILABLE' } = {},
  ) {
    super(options.code ?? 'NOT_CONFIGURED', message, options);
  }
}

/** The target could not be fetched: network, DNS, TLS. Usually worth a retry later. */
export class FetchError extends TrawlError {
  override name = 'FetchError';
  constructor(
    message: string,
    options: TrawlErrorOptions & {
      code?:
        | 'FETCH_FAILED'
        | 'SCRAPE_DNS_RESOLUTION_ERROR'
        | 'SCRAPE_CONNECTION_REFUSED'
        | 'SCRAPE_SSL_ERROR';
    } = {},
  ) {
    super(options.code ?? 'FETCH_FAILED', message, { retryable: true, ...options });
  }
}

/**
 * A browser action failed (a selector matched nothing in time, a script threw): fix the action
 * that `actionIndex` names. The hosted service's SCRAPE_ACTION_ERROR.
 */
export class ActionError extends TrawlError {
  override name = 'ActionError';
  /** Position of the failing action in `actions`, from 0. */
  readonly actionIndex: number;

  constructor(
    actionIndex: number,
    actionType: string,
    reason: string,
    options: TrawlErrorOptions = {},
  ) {
    super('SCRAPE_ACTION_ERROR', `Action ${actionIndex} (${actionType}) failed: ${reason}`, {
      details: { actionIndex, actionType },
      ...options,
    });
    this.actionIndex = actionIndex;
  }
}

/** The storage backend failed; nothing was half-written, retry when it is back. */
export class StoreError extends TrawlError {
  override name = 'StoreError';
  constructor(message: string, options: TrawlErrorOptions = {}) {
    super('STORE_UNAVAILABLE', message, { retryable: true, ...options });
  }
}

/**
 * The `feedbackErrorCode` values of the feedback endpoints, as the hosted service names them
 * (reference-behaviour (f)).
 */
export type FeedbackErrorCode =
  | 'INVALID_BODY'
  | 'TEAM_OPTED_OUT'
  | 'JOB_NOT_FOUND'
  | 'SEARCH_NOT_FOUND'
  | 'FEEDBACK_WINDOW_EXPIRED'
  | 'SEARCH_FAILED'
  | 'INTERNAL';

/** The general code behind each feedback code, which gives it its HTTP status. */
const codeOfFeedbackError: Record<FeedbackErrorCode, ErrorCode> = {
  INVALID_BODY: 'BAD_REQUEST',
  TEAM_OPTED_OUT: 'TEAM_OPTED_OUT',
  JOB_NOT_FOUND: 'NOT_FOUND',
  SEARCH_NOT_FOUND: 'NOT_FOUND',
  FEEDBACK_WINDOW_EXPIRED: 'FEEDBACK_WINDOW_EXPIRED',
  SEARCH_FAILED: 'SEARCH_FAILED',
  INTERNAL: 'UNKNOWN_ERROR',
};

/**
 * Feedback on a job was refused: the body is invalid, the team opted out, the job is unknown,
 * failed or too old, or the feedback could not be recorded. Carries the hosted service's
 * `feedbackErrorCode` beside the general `code`.
 */
export class FeedbackError extends TrawlError {
  override name = 'FeedbackError';
  readonly feedbackErrorCode: FeedbackErrorCode;

  constructor(
    feedbackErrorCode: FeedbackErrorCode,
    message: string,
    options: TrawlErrorOptions = {},
  ) {
    super(codeOfFeedbackError[feedbackErrorCode], message, options);
    this.feedbackErrorCode = feedbackErrorCode;
  }
}

/** Wraps anything thrown into a TrawlError, keeping TrawlErrors as they are. */
export function toTrawlError(error: unknown): TrawlError {
  if (error instanceof TrawlError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new TrawlError('UNKNOWN_ERROR', `Unexpected error: ${message}`, { cause: error });
}
