/**
 * Feedback on finished jobs, with refunds (spec: POST /v2/feedback; reference-behaviour (f)). A
 * caller rates a scrape, map, parse or search it ran; a bad or partial rating gives back what the
 * job cost, or half, through the credits ledger, never above a daily cap per team. Every feedback
 * is stored so the operator can read it (`trawl feedback list`).
 */
import { z } from 'zod';
import type { CreditLedger } from '../credits/index.ts';
import { MemoryCounters } from '../defaults/memory-counters.ts';
import type { Counters } from '../interfaces/counters.ts';
import { FeedbackError, toTrawlError, type FeedbackErrorCode, type FieldIssue } from '../errors.ts';
import { scanStore, type Store } from '../interfaces/store.ts';
import { timeOrderedId, uuidTimePrefix } from '../internal/uuid.ts';
import { parseOrThrow, zodIssuesToFieldIssues } from '../internal/zod.ts';
import {
  feedbackRequestSchema,
  feedbackSettingsSchema,
  searchFeedbackRequestSchema,
  type FeedbackEndpoint,
  type FeedbackRating,
  type FeedbackSettings,
  type ResolvedFeedbackSettings,
} from './options.ts';
import { refundFor, utcDay } from './refund.ts';
import { daysMs } from '../internal/time.ts';

/** What feedback needs to know of the job it is about (the server's request record). */
export interface FeedbackJob {
  id: string;
  team: string;
  /** The endpoint that ran it: scrape, map, parse, search (crawls and batch scrapes take none). */
  endpoint: string;
  /** `scraping` while it runs; feedback is taken once it is anything else. */
  status: string;
  /** Credits the job was charged. */
  creditsUsed: number;
  /** ISO time the job started; the feedback window counts from it. */
  createdAt: string;
}

/** Finds a job of `team` by id; undefined when there is none (or it is another team's). */
export type FindFeedbackJob = (team: string, jobId: string) => Promise<FeedbackJob | undefined>;

/** The answer to accepted feedback (spec: "Feedback result"). */
export interface FeedbackResult {
  success: true;
  feedbackId: string;
  creditsRefunded: number;
  /** Credits feedback gave the team back this UTC day, this one included. */
  creditsRefundedToday: number;
  dailyRefundCap: number;
  dailyCapReached: boolean;
  /** True when the job already had feedback: nothing more was refunded. */
  alreadySubmitted: boolean;
  warning?: string;
}

/** Feedback as it is stored. */
export interface StoredFeedback {
  /** UUID v7: feedback lists in the order it came. */
  id: string;
  team: string;
  endpoint: FeedbackEndpoint;
  jobId: string;
  rating: FeedbackRating;
  issues?: string[] | undefined;
  tags?: string[] | undefined;
  note?: string | undefined;
  url?: string | undefined;
  pageNumbers?: number[] | undefined;
  missingContent?: { topic: string; description?: string | undefined }[] | undefined;
  valuableSources?: { url: string; reason?: string | undefined }[] | undefined;
  querySuggestions?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
  origin?: string | undefined;
  integration?: string | undefined;
  /** Which route took it. */
  via: 'feedback' | 'search-feedback';
  /** What the job cost. */
  jobCredits: number;
  creditsRefunded: number;
  createdAt: string;
}

/** Which stored feedback {@link listFeedback} returns. */
export interface FeedbackFilter {
  team?: string;
  endpoint?: FeedbackEndpoint;
  /** Only feedback given at or after this time. */
  since?: Date;
}

/** What {@link FeedbackService} is built from. */
export interface FeedbackServiceOptions {
  store: Store;
  /** Refunds go through it. */
  ledger: CreditLedger;
  /**
   * Where the day's refund totals are added up: shared ones (Redis) when several processes take
   * feedback for one store. @default MemoryCounters
   */
  counters?: Counters;
  /** Looks up the job a feedback names. */
  findJob: FindFeedbackJob;
  /** Caps, window and opted-out teams; defaults when omitted. */
  settings?: FeedbackSettings;
  /** The clock, in ms since the epoch (tests move it across days). @default Date.now */
  now?: () => number;
}

const feedbackNamespace = 'feedback';
const byJobNamespace = 'feedback-jobs';
const refundDaysNamespace = 'feedback-refunds';
/** A job's feedback marker outlives the job's record (30 days), after which the job is unknown. */
const byJobRetentionMs = daysMs(31);
/** A day's refund total is read only on that UTC day. */
const refundDayRetentionMs = daysMs(2);

const teamKey = (team: string) => encodeURIComponent(team);
/** A day's refund total among the counters. */
const refundCounterKey = (dayKey: string) => `feedback-refunds:${dayKey}`;
const jobIdSchema = z.uuid();

/** A parsed body of either route, reduced to what both carry. */
type FeedbackInput = Omit<
  StoredFeedback,
  'id' | 'team' | 'jobCredits' | 'creditsRefunded' | 'createdAt'
>;

/**
 * Takes feedback on jobs and refunds credits for it.
 *
 * @remarks
 * Submissions go one at a time within this object. Across processes sharing a store, a job's
 * feedback is one atomic `Store.claim` (a second one, wherever it lands, refunds nothing), and
 * the day's refunds are one atomic add in the shared `Counters`, so two processes cannot both
 * pass the daily cap.
 *
 * @example
 * const feedback = new FeedbackService({ store, ledger, findJob: (team, id) => records.get(team, id) });
 * const result = await feedback.submit('team-a', { endpoint: 'scrape', jobId, rating: 'bad', issues: ['empty_markdown'] });
 */
export class FeedbackService {
  readonly #store: Store;
  readonly #ledger: CreditLedger;
  readonly #counters: Counters;
  readonly #findJob: FindFeedbackJob;
  readonly #settings: ResolvedFeedbackSettings;
  readonly #now: () => number;
  #queue: Promise<unknown> = Promise.resolve();

  /** @throws BAD_REQUEST for invalid settings */
  constructor(options: FeedbackServiceOptions) {
    this.#settings = parseOrThrow(
      feedbackSettingsSchema,
      options.settings ?? {},
      'feedback settings',
    );
    this.#store = options.store;
    this.#ledger = options.ledger;
    this.#counters = options.counters ?? new MemoryCounters();
    this.#findJob = options.findJob;
    this.#now = options.now ?? Date.now;
  }

  /** The resolved settings. */
  get settings(): Readonly<ResolvedFeedbackSettings> {
    return this.#settings;
  }

  /**
   * Feedback on a job of any endpoint (`POST /v2/feedback`).
   * @throws FeedbackError: INVALID_BODY, TEAM_OPTED_OUT, JOB_NOT_FOUND / SEARCH_NOT_FOUND,
   * FEEDBACK_WINDOW_EXPIRED, SEARCH_FAILED, INTERNAL
   */
  submit(team: string, body: unknown): Promise<FeedbackResult> {
    const parsed = feedbackRequestSchema.safeParse(body);
    if (!parsed.success) return Promise.reject(invalidBody(parsed.error.issues));
    const { integration, ...fields } = parsed.data;
    return this.#record(team, {
      ...fields,
      ...(integration ? { integration } : {}),
      via: 'feedback',
    });
  }

  /**
   * Feedback on a search (`POST /v2/search/{jobId}/feedback`).
   * @throws FeedbackError, as {@link submit}
   */
  submitSearch(team: string, jobId: string, body: unknown): Promise<FeedbackResult> {
    const parsed = searchFeedbackRequestSchema.safeParse(body);
    const id = jobIdSchema.safeParse(jobId);
    const issues = [
      ...(id.success ? [] : id.error.issues.map((issue) => ({ ...issue, path: ['jobId'] }))),
      ...(parsed.success ? [] : parsed.error.issues),
    ];
    if (!parsed.success || !id.success) return Promise.reject(invalidBody(issues));
    const { integration, ...fields } = parsed.data;
    return this.#record(team, {
      ...fields,
      ...(integration ? { integration } : {}),
      endpoint: 'search',
      jobId: id.data,
      via: 'search-feedback',
    });
  }

  #record(team: string, input: FeedbackInput): Promise<FeedbackResult> {
    if (this.#settings.optedOutTeams.includes(team))
      return Promise.reject(
        new FeedbackError(
          'TEAM_OPTED_OUT',
          'Feedback is disabled for this team. Ask the operator to re-enable it.',
          { details: [issue([], `team ${team} is opted out of feedback`, 'TEAM_OPTED_OUT')] },
        ),
      );
    const run = this.#queue.then(() => this.#recordNow(team, input));
    this.#queue = run.catch(() => undefined);
    return run.catch((error: unknown) => {
      if (error instanceof FeedbackError) throw error;
      throw internalError(error);
    });
  }

  async #recordNow(team: string, input: FeedbackInput): Promise<FeedbackResult> {
    const { endpoint, jobId } = input;
    const isSearch = endpoint === 'search';
    const job = await this.#findJob(team, jobId);
    // A job still running is not a finished job: as unknown as another team's.
    if (!job || job.team !== team || job.endpoint !== endpoint || job.status === 'scraping')
      throw new FeedbackError(
        isSearch ? 'SEARCH_NOT_FOUND' : 'JOB_NOT_FOUND',
        `${endpoint} job not found for this team.`,
        {
          details: [
            issue(
              ['jobId'],
              `no finished ${endpoint} job ${jobId} of this team`,
              isSearch ? 'SEARCH_NOT_FOUND' : 'JOB_NOT_FOUND',
            ),
          ],
        },
      );
    if (isSearch && job.status !== 'completed')
      throw new FeedbackError(
        'SEARCH_FAILED',
        'Cannot submit feedback for a search job that did not succeed.',
        { details: [issue(['jobId'], `search ${jobId} ended ${job.status}`, 'SEARCH_FAILED')] },
      );
    const now = this.#now();
    const windowMs = this.#settings.windowMs;
    if (now - Date.parse(job.createdAt) > windowMs)
      throw new FeedbackError(
        'FEEDBACK_WINDOW_EXPIRED',
        `Feedback must be submitted within ${windowMs / 1000} seconds of the job.`,
        {
          details: [
            issue(['jobId'], `the job started at ${job.createdAt}`, 'FEEDBACK_WINDOW_EXPIRED'),
          ],
        },
      );

    const cap = isSearch ? this.#settings.searchDailyRefundCap : this.#settings.dailyRefundCap;
    const dayKey = `${teamKey(team)}/${utcDay(now)}`;
    const byJobKey = `${teamKey(team)}/${endpoint}/${jobId}`;
    const feedbackId = timeOrderedId();
    // One feedback per job, whichever process takes it: the marker is an atomic claim.
    if (!(await this.#store.claim(byJobNamespace, byJobKey, feedbackId, byJobRetentionMs))) {
      const refundedToday = await this.#refundedOn(dayKey);
      return {
        success: true,
        feedbackId: (await this.#store.get<string>(byJobNamespace, byJobKey)) ?? feedbackId,
        creditsRefunded: 0,
        creditsRefundedToday: refundedToday,
        dailyRefundCap: cap,
        dailyCapReached: cap > 0 && refundedToday >= cap,
        alreadySubmitted: true,
        warning: 'Feedback was already submitted for this job; no additional refund issued.',
      };
    }

    const wanted = refundFor(input.rating, job.creditsUsed);
    // The refund is counted before it is given, in one atomic add; what passed the cap is taken
    // back: a stop between the writes can leave a team refunded less than it was told, never
    // more than the cap.
    const counted = wanted > 0 ? await this.#countRefund(dayKey, wanted, cap) : undefined;
    const allowed = counted?.allowed ?? 0;
    let refundedToday = counted?.total ?? (await this.#refundedOn(dayKey));
    const feedback: StoredFeedback = {
      ...input,
      id: feedbackId,
      team,
      jobCredits: job.creditsUsed,
      creditsRefunded: allowed,
      createdAt: new Date(now).toISOString(),
    };
    await this.#store.set(feedbackNamespace, feedback.id, feedback);
    const given =
      allowed > 0
        ? await this.#ledger.refund(team, allowed, { endpoint, jobId, feedbackId: feedback.id })
        : 0;
    if (given < allowed) {
      // The ledger gives back at most what the job was charged.
      feedback.creditsRefunded = given;
      await this.#store.set(feedbackNamespace, feedback.id, feedback);
      refundedToday = await this.#addRefunded(dayKey, given - allowed);
    }
    const creditsRefundedToday = refundedToday;
    const dailyCapReached =
      (wanted > 0 && allowed < wanted) || (cap > 0 && creditsRefundedToday >= cap);
    return {
      success: true,
      feedbackId: feedback.id,
      creditsRefunded: given,
      creditsRefundedToday,
      dailyRefundCap: cap,
      dailyCapReached,
      alreadySubmitted: false,
      ...(dailyCapReached
        ? {
            warning: `Daily refund cap of ${cap} credits reached for this team (UTC day). Feedback was recorded; further feedback today will not refund credits.`,
          }
        : {}),
    };
  }

  /** The day's refunds so far. */
  async #refundedOn(dayKey: string): Promise<number> {
    const shared = await this.#counters.read(refundCounterKey(dayKey));
    return (
      shared?.['refunded'] ?? (await this.#store.get<number>(refundDaysNamespace, dayKey)) ?? 0
    );
  }

  /** Adds `credits` (negative: takes back) to the day's refunds; resolves the total after. */
  async #addRefunded(dayKey: string, credits: number): Promise<number> {
    const seed = (await this.#store.get<number>(refundDaysNamespace, dayKey)) ?? 0;
    const totals = await this.#counters.add(
      refundCounterKey(dayKey),
      { refunded: credits },
      { ttlMs: refundDayRetentionMs, seed: { refunded: seed } },
    );
    const total = totals['refunded'] ?? 0;
    await this.#store.set(refundDaysNamespace, dayKey, total, { ttlMs: refundDayRetentionMs });
    return total;
  }

  /** Counts `wanted` against the day's cap: what of it fits, and the day's total after. */
  async #countRefund(
    dayKey: string,
    wanted: number,
    cap: number,
  ): Promise<{ allowed: number; total: number }> {
    let total = await this.#addRefunded(dayKey, wanted);
    const excess = Math.min(wanted, Math.max(0, total - cap));
    if (excess > 0) total = await this.#addRefunded(dayKey, -excess);
    return { allowed: wanted - excess, total };
  }
}

/**
 * Stored feedback, oldest first, filtered. Reads the store page by page.
 */
export async function* listFeedback(
  store: Store,
  filter: FeedbackFilter = {},
): AsyncGenerator<StoredFeedback> {
  const after = filter.since === undefined ? undefined : uuidTimePrefix(filter.since);
  for await (const { value } of scanStore<StoredFeedback>(store, feedbackNamespace, '', after)) {
    if (filter.team !== undefined && value.team !== filter.team) continue;
    if (filter.endpoint !== undefined && value.endpoint !== filter.endpoint) continue;
    yield value;
  }
}

/**
 * A detail of a refusal that is not about the body's shape. It carries the feedback code: the
 * official SDK keeps `details` (not `feedbackErrorCode`) in its error, so callers read it there.
 */
function issue(path: (string | number)[], message: string, code: FeedbackErrorCode): FieldIssue {
  return { path, message, code };
}

/** INTERNAL: recording failed (the store, most likely); the cause is kept for the log. */
function internalError(cause: unknown): FeedbackError {
  return new FeedbackError('INTERNAL', 'Failed to record feedback; try again later.', {
    cause: toTrawlError(cause),
    details: [issue([], 'the feedback could not be recorded', 'INTERNAL')],
  });
}

function invalidBody(issues: readonly z.core.$ZodIssue[]): FeedbackError {
  return new FeedbackError('INVALID_BODY', 'Invalid request body', {
    details: zodIssuesToFieldIssues(issues),
  });
}
