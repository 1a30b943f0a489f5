/**
 * The refund policy of feedback: what a rating gives back of what a job cost, and the UTC day a
 * refund counts towards.
 */
import type { FeedbackRating } from './options.ts';

/**
 * Credits a rating asks back for a job that cost `jobCredits`: `bad` all of them, `partial`
 * half (rounded down: credits are whole, and a refund must never exceed what was fair), `good`
 * none. The daily cap applies afterwards.
 */
export function refundFor(rating: FeedbackRating, jobCredits: number): number {
  const credits = Math.max(0, Math.floor(jobCredits));
  if (rating === 'bad') return credits;
  if (rating === 'partial') return Math.floor(credits / 2);
  return 0;
}

/** The UTC day of `timeMs` as `YYYY-MM-DD`: the day refunds are counted in. */
export function utcDay(timeMs: number): string {
  return new Date(timeMs).toISOString().slice(0, 10);
}
