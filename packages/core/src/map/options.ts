/**
 * Map options: the single zod schema of `POST /v2/map`, without `url`, `origin` and
 * `integration`, with the hosted service's defaults.
 */
import { z } from 'zod';
import { hostedOnlyShape, scrapeOptionsShape } from '../scrape/options.ts';

/** The fields of a map request. */
export const mapOptionsShape = {
  search: z
    .string()
    .min(1)
    .max(1000)
    .optional()
    .describe('Rank the URLs by relevance to this text; best matches first.'),
  sitemap: z
    .enum(['include', 'skip', 'only'])
    .default('include')
    .describe('include: sitemap and links. skip: links only. only: sitemap URLs only.'),
  includeSubdomains: z.boolean().default(true).describe('Include URLs on subdomains of the site.'),
  ignoreQueryParameters: z
    .boolean()
    .default(true)
    .describe('Drop query strings, so a path appears once.'),
  limit: z.number().int().min(1).max(100_000).default(5000).describe('Most URLs returned.'),
  timeout: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('Milliseconds to spend; what was found by then is returned.'),
  location: scrapeOptionsShape.location,
  ...hostedOnlyShape,
} as const;

/** Map options as a strict object. */
export const mapOptionsSchema = z.strictObject(mapOptionsShape);

/** What callers pass to `map()`. */
export type MapOptions = z.input<typeof mapOptionsSchema>;
/** Map options with every default applied. */
export type ResolvedMapOptions = z.output<typeof mapOptionsSchema>;
