/**
 * The feedback routes: `POST /v2/feedback` (any scrape, map, parse or search job) and
 * `POST /v2/search/{jobId}/feedback` (the official SDK's searchFeedback()). Core's
 * FeedbackService validates, checks the job, stores the feedback and refunds through the credits
 * ledger; this file only shapes the answers. Errors have the feedback endpoints' own body,
 * `{ error, success: false, details, feedbackErrorCode }` (spec: Errors), not the generic one.
 */
import type { FastifyBaseLogger, FastifyInstance, FastifyReply } from 'fastify';
import { FeedbackError, type FeedbackResult, type FeedbackService } from '@trawl/core';
import { httpStatusOf } from './errors.ts';

/** The body of a refused feedback. */
export interface FeedbackErrorBody {
  error: string;
  success: false;
  /**
   * The failing fields (`path`, `message`, zod's `code`) of INVALID_BODY; for the other codes one
   * entry whose `code` is the feedbackErrorCode (the official SDK's error keeps `details`).
   */
  details: object[];
  feedbackErrorCode: FeedbackError['feedbackErrorCode'];
}

/** Registers both feedback routes; the team is the request's (set by the auth hook). */
export function feedbackRoutes(app: FastifyInstance, feedback: FeedbackService): void {
  app.post('/v2/feedback', (request, reply) =>
    answer(reply, request.log, () => feedback.submit(request.team, request.body ?? {})),
  );
  app.post<{ Params: { jobId: string } }>('/v2/search/:jobId/feedback', (request, reply) =>
    answer(reply, request.log, () =>
      feedback.submitSearch(request.team, request.params.jobId, request.body ?? {}),
    ),
  );
}

async function answer(
  reply: FastifyReply,
  log: FastifyBaseLogger,
  submit: () => Promise<FeedbackResult>,
): Promise<FeedbackResult | FastifyReply> {
  try {
    return await submit();
  } catch (error) {
    // FeedbackService turns every failure into a FeedbackError; anything else is a bug, for the
    // generic handler (500 with an exception id).
    if (!(error instanceof FeedbackError)) throw error;
    if (error.feedbackErrorCode === 'INTERNAL') log.error({ err: error.cause ?? error });
    const body: FeedbackErrorBody = {
      error: error.message,
      success: false,
      details: Array.isArray(error.details) ? [...(error.details as object[])] : [],
      feedbackErrorCode: error.feedbackErrorCode,
    };
    return reply.code(httpStatusOf[error.code] ?? 500).send(body);
  }
}
