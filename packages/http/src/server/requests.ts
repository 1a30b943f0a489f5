/**
 * Request bodies of the /v2 endpoints: core's option schemas extended by what the wire adds (`url`
 * or `urls`, `webhook`, and `origin` / `integration`, which the official SDK puts in every body).
 * Each body is parsed once: the route gets the wire fields apart and the options already
 * resolved by core's schema, which core then runs without parsing again. Strict:
 * unknown keys are a 400 naming the key.
 */
import {
  batchScrapeOptionsSchema,
  crawlOptionsSchema,
  mapOptionsSchema,
  scrapeOptionsSchema,
  searchOptionsSchema,
} from '@trawl/core';
import { parseRequest, webhookMetadataSchema } from '@trawl/core/server';
import { z } from 'zod';

/** Fields the official SDK adds to every body (`origin`), and integrations add (`integration`). */
export const wireFields = {
  origin: z.string().max(1000).optional(),
  integration: z.string().max(1000).nullish(),
};

const url = z.string().min(1, 'url is required').max(8192);

/** A job's webhook: a URL, or the object form with the job kind's own events. */
export function webhookSchema<Event extends string>(events: readonly [Event, ...Event[]]) {
  return z.union([
    z.url(),
    z.strictObject({
      url: z.url(),
      headers: z.record(z.string(), z.string()).optional(),
      metadata: webhookMetadataSchema(z.unknown()).optional(),
      events: z.array(z.enum(events)).optional(),
    }),
  ]);
}

/** A crawl or batch webhook. */
const jobWebhookSchema = webhookSchema(['completed', 'failed', 'page', 'started']);

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a path's id can name a job at all: anything else is a 404 without a store read. */
export const isJobId = (id: string): boolean => uuidPattern.test(id);

/** The `webhook` field of a crawl or batch-scrape request. */
export type WebhookInput = z.output<typeof jobWebhookSchema>;

/**
 * A request: the whole body's schema (core's options schema extended by the wire's own fields;
 * the OpenAPI document is built from it) and `parse`, which reads a body once and hands the
 * options over resolved by `options`.
 */
function requestKind<
  Request extends z.ZodType<Record<string, unknown>>,
  Options extends z.ZodType,
  Field extends string,
>(schema: Request, options: Options, fields: readonly Field[], what: string) {
  const keys = [...fields, ...(Object.keys(wireFields) as (keyof typeof wireFields)[])];
  return {
    schema,
    /** @throws BAD_REQUEST naming the first bad field */
    parse: (body: unknown) => parseRequest(schema, options, keys, body, what),
  };
}

export const scrapeRequest = requestKind(
  scrapeOptionsSchema.safeExtend({ url, ...wireFields }),
  scrapeOptionsSchema,
  ['url'],
  'scrape request',
);

export const mapRequest = requestKind(
  mapOptionsSchema.safeExtend({ url, ...wireFields }),
  mapOptionsSchema,
  ['url'],
  'map request',
);

export const crawlRequest = requestKind(
  crawlOptionsSchema.safeExtend({ url, webhook: jobWebhookSchema.optional(), ...wireFields }),
  crawlOptionsSchema,
  ['url', 'webhook'],
  'crawl request',
);

export const batchScrapeRequest = requestKind(
  batchScrapeOptionsSchema.safeExtend({
    urls: z.array(z.string().max(8192)).min(1, 'urls needs at least one URL').max(10_000),
    webhook: jobWebhookSchema.optional(),
    appendToId: z.uuid().optional(),
    ...wireFields,
  }),
  batchScrapeOptionsSchema,
  ['urls', 'webhook', 'appendToId'],
  'batch scrape request',
);

/** The query is one of core's search options (trimmed and checked there); the body is the rest. */
export const searchRequest = requestKind(
  searchOptionsSchema.safeExtend(wireFields),
  searchOptionsSchema,
  [],
  'search request',
);
