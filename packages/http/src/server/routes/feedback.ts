/**
 * The feedback routes: `POST /v2/feedback` (any scrape, map, parse or search job) and
 * `POST /v2/search/{jobId}/feedback` (the official SDK's searchFeedback()). Core's
 * FeedbackService (the server context's) validates, checks the job, stores the feedback and
 * refunds through the credits ledger. Its errors have the feedback endpoints' own body, `{ error, success: false, details,
 * feedbackErrorCode }` (spec: Errors), which the server's one error path gives them.
 */
import type { RoutePlugin } from './index.ts';

export const feedbackRoutes: RoutePlugin = (app, { feedback }) => {
  app.post('/v2/feedback', (request) => feedback.submit(request.team, request.body ?? {}));
  app.post<{ Params: { jobId: string } }>('/v2/search/:jobId/feedback', (request) =>
    feedback.submitSearch(request.team, request.params.jobId, request.body ?? {}),
  );
};
