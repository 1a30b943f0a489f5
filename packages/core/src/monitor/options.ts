/**
 * Monitor request shapes: the zod schemas of creating and updating a monitor (reference-behaviour
 * (d)), shared by `MonitorService` and `POST`/`PATCH /v2/monitor`. Every constraint of the spec's
 * PATCH table is here once: name ≤ 256, 1–50 targets, retentionDays 1–365, goal ≤ 2000, status
 * active|paused, schedule with cron or text (never both).
 */
import { z } from 'zod';
import { crawlerOptionsSchema, pageScrapeOptionsSchema } from '../crawl/options.ts';
import { scrapeOptionsSchema } from '../scrape/options.ts';
import { webhookMetadataSchema } from '../defaults/webhook-metadata.ts';

/** Events a monitor's webhook can carry (reference-behaviour (e)). */
export const monitorWebhookEvents = ['monitor.page', 'monitor.check.completed'] as const;

/** The schedule as a request gives it: exactly one of cron or text, and an IANA timezone. */
export const monitorScheduleInputSchema = z
  .strictObject({
    cron: z.string().min(1).max(128).optional().describe('A 5-field numeric cron expression.'),
    text: z
      .string()
      .min(1)
      .max(128)
      .optional()
      .describe("A plain-language schedule such as 'every 15 minutes starting at :07'."),
    timezone: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .describe('IANA timezone the schedule is read in. @default UTC'),
  })
  .refine((schedule) => (schedule.cron === undefined) !== (schedule.text === undefined), {
    message: 'give either cron or text, not both (and not neither)',
  });

const targetUrl = z.string().min(1).max(8192);

/**
 * ScrapeOptions of a monitor target. The profile is allowed (a logged-in page watched with its
 * saved browser state); `maxAge` is forced to 0 when the check runs.
 */
const monitorScrapeOptionsSchema = scrapeOptionsSchema;

/** A target watching a list of pages. A lone `url` is read as `urls: [url]`, as the hosted service does. */
export const monitorScrapeTargetSchema = z
  .strictObject({
    id: z.uuid().optional(),
    type: z.literal('scrape'),
    urls: z.array(targetUrl).min(1, 'a scrape target needs at least one URL').max(50).optional(),
    url: targetUrl.optional(),
    scrapeOptions: monitorScrapeOptionsSchema.optional(),
  })
  .refine((target) => (target.urls === undefined) !== (target.url === undefined), {
    message: 'a scrape target gives urls (or a single url)',
    path: ['urls'],
  });

/** A target watching a whole site: its pages appear as `new` and disappear as `removed`. */
export const monitorCrawlTargetSchema = z.strictObject({
  id: z.uuid().optional(),
  type: z.literal('crawl'),
  url: targetUrl,
  crawlOptions: crawlerOptionsSchema.optional(),
  scrapeOptions: pageScrapeOptionsSchema.optional(),
});

/** How far back a search target looks, as the hosted service names it. */
export const searchWindows = ['5m', '15m', '1h', '6h', '24h', '7d'] as const;

const hostName = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9.-]+$/, 'expected a bare host name such as example.com')
  .max(253);

/**
 * A target watching search results: each check runs the queries, and results not seen by an
 * earlier check become its `new` pages. Its goal requirement spans fields of the monitor and
 * is checked by the service (`searchTargetGoalProblem`).
 */
export const monitorSearchTargetSchema = z
  .strictObject({
    id: z.uuid().optional(),
    type: z.literal('search'),
    queries: z
      .array(z.string().trim().min(1).max(256))
      .min(1, 'a search target needs at least one query')
      .max(12, 'a search target has at most 12 queries'),
    searchWindow: z
      .enum(searchWindows)
      .default('24h')
      .describe('How far back results are looked for. @default 24h'),
    includeDomains: z.array(hostName).max(50).optional(),
    excludeDomains: z.array(hostName).max(50).optional(),
    maxResults: z.number().int().min(1).max(50).default(10).describe('Results per query.'),
  })
  .refine((target) => !(target.includeDomains?.length && target.excludeDomains?.length), {
    message: 'give includeDomains or excludeDomains, not both',
    path: ['includeDomains'],
  });

/** One target of a monitor. */
export const monitorTargetSchema = z.discriminatedUnion('type', [
  monitorScrapeTargetSchema,
  monitorCrawlTargetSchema,
  monitorSearchTargetSchema,
]);

/** Why a monitor's search targets lack the goal they need, or undefined when they don't. */
export function searchTargetGoalProblem(monitor: {
  targets: readonly { type: string }[];
  goal?: string | null | undefined;
  judgeEnabled?: boolean | undefined;
}): string | undefined {
  if (monitor.judgeEnabled === false) return undefined;
  if (!monitor.targets.some((target) => target.type === 'search')) return undefined;
  return monitor.goal?.trim() ? undefined : 'A search target requires a non-empty goal';
}

const headerName = z
  .string()
  .min(1)
  .refine((name) => !/^x-firecrawl-/i.test(name), {
    message: 'X-Firecrawl-* headers are set by the server and cannot be given',
  });

/** Where a monitor's events go: a URL, or the object form. */
export const monitorWebhookSchema = z.union([
  z.url({ protocol: /^https?$/ }),
  z.strictObject({
    url: z.url({ protocol: /^https?$/ }),
    headers: z.record(headerName, z.string()).optional(),
    metadata: webhookMetadataSchema(z.string()).optional(),
    events: z.array(z.enum(monitorWebhookEvents)).optional(),
  }),
]);

/** E-mail digests of a monitor's checks. */
export const monitorNotificationSchema = z.strictObject({
  email: z
    .strictObject({
      enabled: z.boolean().default(false).describe('Send a digest e-mail after a check.'),
      recipients: z.array(z.email()).max(25).default([]).describe('Up to 25 addresses.'),
      includeDiffs: z.boolean().default(false).describe('Put each page diff in the e-mail.'),
    })
    .optional(),
});

/** Fields of `POST /v2/monitor` (without `origin` / `integration`, which the HTTP layer adds). */
export const monitorCreateShape = {
  name: z.string().min(1).max(256).describe('Name of the monitor.'),
  schedule: monitorScheduleInputSchema,
  targets: z
    .array(monitorTargetSchema)
    .min(1, 'a monitor needs at least one target')
    .max(50, 'a monitor has at most 50 targets'),
  webhook: monitorWebhookSchema.optional(),
  notification: monitorNotificationSchema.optional(),
  retentionDays: z
    .number()
    .int()
    .min(1)
    .max(365)
    .default(30)
    .describe('Days checks and snapshots are kept.'),
  goal: z.string().max(2000).nullable().optional().describe('What counts as a meaningful change.'),
  judgeEnabled: z.boolean().optional().describe('Judge changed pages against the goal.'),
} as const;

/** The body that creates a monitor. */
export const monitorCreateSchema = z.strictObject(monitorCreateShape);

/**
 * Fields of `PATCH /v2/monitor/{id}`: any subset of the create fields, plus `status`. No
 * defaults apply (an omitted field stays as it is); `webhook`, `notification` and `goal` may be
 * null to clear them.
 */
export const monitorUpdateShape = {
  name: z.string().min(1).max(256).optional(),
  status: z.enum(['active', 'paused']).optional(),
  schedule: monitorScheduleInputSchema.optional(),
  targets: monitorCreateShape.targets.optional(),
  webhook: monitorWebhookSchema.nullable().optional(),
  notification: monitorNotificationSchema.nullable().optional(),
  retentionDays: z.number().int().min(1).max(365).optional(),
  goal: z.string().max(2000).nullable().optional(),
  judgeEnabled: z.boolean().optional(),
} as const;

/** The body that updates a monitor. */
export const monitorUpdateSchema = z.strictObject(monitorUpdateShape);

/** Paging of monitor and check lists: `limit` 1–100 (default 25), `offset` ≥ 0. */
export const monitorListSchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(25),
  offset: z.coerce.number().int().min(0).default(0),
});

/** Check statuses a list of checks can be filtered by. */
export const checkStatuses = [
  'queued',
  'running',
  'completed',
  'partial',
  'failed',
  'skipped_overlap',
  'skipped_no_credits',
] as const;

/** Page statuses of a check. */
export const pageStatuses = ['same', 'changed', 'new', 'removed', 'error'] as const;

/** Paging of a monitor's checks, optionally one status only. */
export const checkListSchema = monitorListSchema.extend({
  status: z.enum(checkStatuses).optional(),
});

/** Paging of a check's pages: `limit` 1–100 (default 25), `skip` ≥ 0, optionally one status. */
export const checkPagesSchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(25),
  skip: z.coerce.number().int().min(0).default(0),
  status: z.enum(pageStatuses).optional(),
});

/** What callers pass to create a monitor. */
export type MonitorCreateInput = z.input<typeof monitorCreateSchema>;
/** What callers pass to update a monitor. */
export type MonitorUpdateInput = z.input<typeof monitorUpdateSchema>;
/** A create request resolved by its schema (a server parsed it). */
export type ResolvedMonitorCreate = z.output<typeof monitorCreateSchema>;
/** An update request resolved by its schema (a server parsed it). */
export type ResolvedMonitorUpdate = z.output<typeof monitorUpdateSchema>;
/** A target as a request gives it. */
export type MonitorTargetInput = z.input<typeof monitorTargetSchema>;
/** Paging of lists. */
export type MonitorListOptions = z.input<typeof monitorListSchema>;
/** Paging of a monitor's checks. */
export type CheckListOptions = z.input<typeof checkListSchema>;
/** Paging of a check's pages. */
export type CheckPagesOptions = z.input<typeof checkPagesSchema>;
