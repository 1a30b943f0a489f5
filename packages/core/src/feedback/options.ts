/**
 * Feedback request shapes — `POST /v2/feedback` and `POST /v2/search/{jobId}/feedback` — and the
 * settings of the refund policy. The spec lists its size and pattern constraints without naming
 * the fields; each is given to the field the hosted service gives it (reference-behaviour (f)),
 * and docs/feedback.md lists the mapping.
 */
import { z } from 'zod';

/** The endpoints whose jobs take feedback. */
export const feedbackEndpoints = ['search', 'scrape', 'parse', 'map'] as const;
/** One of {@link feedbackEndpoints}. */
export type FeedbackEndpoint = (typeof feedbackEndpoints)[number];
/** How a caller rates a job. */
export const feedbackRatings = ['good', 'partial', 'bad'] as const;
/** One of {@link feedbackRatings}. */
export type FeedbackRating = (typeof feedbackRatings)[number];

/** Largest `metadata`, in bytes of its UTF-8 JSON (spec: "at most 8 KB"). */
export const maxFeedbackMetadataBytes = 8 * 1024;

/** An http(s) URL of at most 2048 characters. */
const httpUrl = z
  .string()
  .trim()
  .min(1)
  .max(2048)
  .refine((value) => {
    try {
      const { protocol } = new URL(value);
      return protocol === 'http:' || protocol === 'https:';
    } catch {
      return false;
    }
  }, 'must be an absolute http(s) URL');

/** An issue or tag label: the spec's "at most 80 characters matching ^[a-z0-9][a-z0-9_-]*$". */
const label = z
  .string()
  .trim()
  .max(80)
  .regex(
    /^[a-z0-9][a-z0-9_-]*$/,
    'must start with a lowercase letter or digit and contain only a-z, 0-9, _ and -',
  );

const valuableSources = z
  .array(
    z.strictObject({
      url: httpUrl.describe('A source that was useful.'),
      reason: z.string().trim().max(1000).optional().describe('Why it was useful.'),
    }),
  )
  .max(50)
  .describe('Sources that were useful (at most 50).');

// The spec's first constraint, "an array with at most 20 elements", is missingContent.
const missingContent = z
  .array(
    z.strictObject({
      topic: z.string().trim().min(1, 'topic must not be empty').max(200),
      description: z.string().trim().max(2000).optional(),
    }),
  )
  .max(20)
  .describe('What the result lacked (at most 20 topics).');

const querySuggestions = z
  .string()
  .trim()
  .max(2000)
  .describe('Better queries or settings (at most 2000 characters).');

const rating = z.enum(feedbackRatings).describe('good, partial or bad.');

/** `origin` and `integration`, which the official SDK puts in every body. */
const wireFields = {
  origin: z.string().max(1000).optional(),
  integration: z.string().max(1000).nullish(),
};

/** Keys whose presence marks a whole document: the content of a result, not a note about it. */
const documentKeys = new Set(['markdown', 'html', 'rawHtml', 'screenshot']);
/** Keys of the lists a map or search answer is made of. */
const resultListKeys = new Set(['links', 'web', 'news', 'images']);

/**
 * Where `value` holds a full endpoint result, if it does: a document (markdown, html, rawHtml or
 * screenshot), a response body (`success` with `data` or `links`), or a map or search result
 * list (`links`, `web`, `news` or `images` holding objects). The path of the first one found.
 */
function resultInside(
  value: unknown,
  path: (string | number)[] = [],
): (string | number)[] | undefined {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = resultInside(item, [...path, index]);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  for (const [key, field] of Object.entries(record)) {
    if (documentKeys.has(key)) return [...path, key];
    if (
      resultListKeys.has(key) &&
      Array.isArray(field) &&
      field.some((item) => typeof item === 'object' && item !== null)
    )
      return [...path, key];
  }
  if ('success' in record && ('data' in record || 'links' in record)) return path;
  for (const [key, field] of Object.entries(record)) {
    const found = resultInside(field, [...path, key]);
    if (found) return found;
  }
  return undefined;
}

const metadata = z
  .record(z.string(), z.unknown())
  .superRefine((value, context) => {
    const bytes = Buffer.byteLength(JSON.stringify(value), 'utf8');
    if (bytes > maxFeedbackMetadataBytes)
      context.addIssue({
        code: 'custom',
        message: `metadata must be 8 KB (${maxFeedbackMetadataBytes} bytes of JSON) or smaller (got ${bytes})`,
      });
    const result = resultInside(value);
    if (result)
      context.addIssue({
        code: 'custom',
        path: result,
        message:
          'metadata must not contain a full endpoint result (a document, or the links or data of an answer): give ids, counts or short notes instead',
      });
  })
  .describe('Small endpoint-specific object, at most 8 KB of JSON; never a full endpoint result.');

const generalSignals = [
  'issues',
  'note',
  'valuableSources',
  'missingContent',
  'querySuggestions',
  'url',
  'pageNumbers',
] as const;

interface SearchSignals {
  rating: FeedbackRating;
  valuableSources?: unknown[] | undefined;
  missingContent?: unknown[] | undefined;
  querySuggestions?: string | undefined;
}

/**
 * The search feedback rule (reference-behaviour (f)): good names a useful source; partial a
 * useful source or missing content; bad missing content or a better query.
 */
function isSubstantiveSearchFeedback(body: SearchSignals): boolean {
  const hasSources = (body.valuableSources?.length ?? 0) > 0;
  const hasMissing = (body.missingContent?.length ?? 0) > 0;
  const hasSuggestions = (body.querySuggestions ?? '') !== '';
  if (body.rating === 'good') return hasSources;
  if (body.rating === 'partial') return hasSources || hasMissing;
  return hasMissing || hasSuggestions;
}

const searchRuleMessage =
  "Search feedback must be substantive: 'good' needs at least one valuableSources entry; 'partial' needs valuableSources or missingContent; 'bad' needs missingContent or querySuggestions.";

/** The body of `POST /v2/feedback`. Strict: unknown keys are refused. */
export const feedbackRequestSchema = z
  .strictObject({
    jobId: z
      .uuid()
      .describe('The job the feedback is about (a scrapeId, or a map/parse/search id).'),
    endpoint: z
      .enum(feedbackEndpoints)
      .describe("The job's endpoint: search, scrape, parse or map."),
    rating,
    issues: z.array(label).max(20).optional().describe('Issue labels (at most 20).'),
    note: z.string().trim().max(4000).optional().describe('Free text (at most 4000 characters).'),
    url: httpUrl.optional().describe('The page the feedback is about.'),
    pageNumbers: z
      .array(z.number().int().min(1))
      .max(100)
      .optional()
      .describe('Pages of a parsed document the feedback is about (each 1 or more; at most 100).'),
    missingContent: missingContent.optional(),
    valuableSources: valuableSources.optional(),
    querySuggestions: querySuggestions.optional(),
    tags: z.array(label).max(20).optional().describe('Tags (at most 20).'),
    metadata: metadata.optional(),
    ...wireFields,
  })
  .superRefine((body, context) => {
    // The spec's rule lists these seven; tags alone are not a signal.
    const hasSignal = generalSignals.some((field) => {
      const value = body[field];
      return Array.isArray(value) ? value.length > 0 : value !== undefined && value !== '';
    });
    if (!hasSignal)
      context.addIssue({
        code: 'custom',
        path: [],
        message: `Feedback must include at least one meaningful signal: ${generalSignals.join(', ')}.`,
      });
    else if (body.endpoint === 'search' && !isSubstantiveSearchFeedback(body))
      context.addIssue({ code: 'custom', path: [], message: searchRuleMessage });
  });

/** The body of `POST /v2/search/{jobId}/feedback`, as the official SDK's searchFeedback() sends it. */
export const searchFeedbackRequestSchema = z
  .strictObject({
    rating,
    valuableSources: valuableSources.optional(),
    missingContent: missingContent.optional(),
    querySuggestions: querySuggestions.optional(),
    ...wireFields,
  })
  .superRefine((body, context) => {
    if (!isSubstantiveSearchFeedback(body))
      context.addIssue({ code: 'custom', path: [], message: searchRuleMessage });
  });

/** What a caller sends to `POST /v2/feedback`. */
export type FeedbackRequest = z.input<typeof feedbackRequestSchema>;
/** What a caller sends to `POST /v2/search/{jobId}/feedback`. */
export type SearchFeedbackRequest = z.input<typeof searchFeedbackRequestSchema>;

/** Settings of feedback and its refunds. */
export const feedbackSettingsSchema = z.strictObject({
  /**
   * Most credits feedback gives a team back in one UTC day.
   * @default 50
   */
  dailyRefundCap: z.number().int().min(0).default(50),
  /**
   * The same cap for search feedback, counted on the same day's refunds.
   * @default 100
   */
  searchDailyRefundCap: z.number().int().min(0).default(100),
  /**
   * How long after a job starts feedback on it is taken, in ms.
   * @default 120000 (the hosted service's 120 s)
   */
  windowMs: z.number().int().min(1).default(120_000),
  /**
   * Teams whose feedback is refused with TEAM_OPTED_OUT.
   * @default []
   */
  optedOutTeams: z.array(z.string().min(1)).default([]),
});

/** What callers pass to configure feedback. */
export type FeedbackSettings = z.input<typeof feedbackSettingsSchema>;
/** Feedback settings with every default applied. */
export type ResolvedFeedbackSettings = z.output<typeof feedbackSettingsSchema>;
