/**
 * Error bodies and statuses of the /v2 server. Core's errors carry a stable code; this table gives
 * each its HTTP status (docs/errors.md lists the same, a test keeps them in step). Bodies are
 * `{ success: false, error, code, details? }`, which the official SDK turns into its SdkError.
 */
import { toTrawlError, type ErrorCode } from '@trawl/core';

/** HTTP status of each error code; `null` for codes that only appear inside job error lists. */
export const httpStatusOf: Record<ErrorCode, number | null> = {
  BAD_REQUEST: 400,
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

/** The JSON body of an error answer. */
export interface ErrorBody {
  success: false;
  error: string;
  code?: string;
  details?: unknown;
}

/** An error answer: status and body. */
export interface ErrorReply {
  status: number;
  body: ErrorBody;
  /** Set for unexpected errors: the id the body names, for the log. */
  exceptionId?: string;
}

/**
 * The answer for anything thrown while handling a request. Unexpected errors get a generic
 * message with an exception id (the stack goes to the log, never into the body).
 */
export function errorReply(thrown: unknown): ErrorReply {
  const error = toTrawlError(thrown);
  const status = httpStatusOf[error.code] ?? 500;
  if (error.code === 'UNKNOWN_ERROR') {
    const exceptionId = crypto.randomUUID();
    return {
      status: 500,
      exceptionId,
      body: {
        success: false,
        code: 'UNKNOWN_ERROR',
        error: `An unexpected error occurred. Please contact the operator for help. Your exception ID is ${exceptionId}`,
      },
    };
  }
  return {
    status,
    body: {
      success: false,
      code: error.code,
      error: error.message,
      ...(error.details ? { details: error.details } : {}),
    },
  };
}

/** A plain error answer for what the server itself refuses (auth, unknown job, conflicts). */
export function refusal(status: number, error: string, code?: string): ErrorReply {
  return { status, body: { success: false, error, ...(code ? { code } : {}) } };
}
