/**
 * Request bodies of the /v2 endpoints: core's option shapes plus what the wire adds (`url` or
 * `urls`, and `origin` / `integration`, which the official SDK puts in every body). Strict:
 * unknown keys are a 400 naming the key.
 */
import {
  batchScrapeOptionsShape,
  crawlOptionsShape,
  mapOptionsShape,
  scrapeOptionsShape,
} from '@trawl/core';
import { z } from 'zod';

/** Fields the official SDK adds to every body (`origin`), and integrations add (`integration`). */
export const wireFields = {
  origin: z.string().max(1000).optional(),
  integration: z.string().max(1000).nullish(),
};

const url = z.string().min(1, 'url is required').max(8192);

/** A crawl or batch webhook: a URL, or the object form. */
const webhookSchema = z.union([
  z.url(),
  z.strictObject({
    url: z.url(),
    headers: z.record(z.string(), z.string()).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    events: z.array(z.enum(['completed', 'failed', 'page', 'started'])).optional(),
  }),
]);

/** The `webhook` field of a crawl or batch-scrape request. */
export type WebhookInput = z.output<typeof webhookSchema>;

export const scrapeRequestSchema = z.strictObject({ url, ...scrapeOptionsShape, ...wireFields });

export const mapRequestSchema = z.strictObject({ url, ...mapOptionsShape, ...wireFields });

export const crawlRequestSchema = z.strictObject({
  url,
  ...crawlOptionsShape,
  webhook: webhookSchema.optional(),
  ...wireFields,
});

export const batchScrapeRequestSchema = z.strictObject({
  urls: z.array(z.string().max(8192)).min(1, 'urls needs at least one URL').max(10_000),
  ...batchScrapeOptionsShape,
  webhook: webhookSchema.optional(),
  appendToId: z.uuid().optional(),
  ...wireFields,
});

/**
 * The body as the client sent it, without the wire-only fields: core validates it again and
 * applies its own defaults. Only call on a body the request schema accepted.
 */
export function coreOptions<Options>(body: unknown, ...also: string[]): Options {
  const options: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    if (key === 'origin' || key === 'integration' || also.includes(key)) continue;
    options[key] = value;
  }
  return options as Options;
}
