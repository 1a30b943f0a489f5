/**
 * Options of `extract()` (the SDK's `extract()` body): pages, or `/*` wildcards meaning
 * "map the site and pick the pages the prompt is about", and what to read off them.
 */
import { z } from 'zod';
import { scrapeOptionsSchema } from '../scrape/options.ts';

/** Longest prompt or system prompt, in characters. */
const maxPromptChars = 10_000;

export const extractOptionsSchema = z
  .strictObject({
    urls: z
      .array(z.string().min(1).max(8192))
      .min(1)
      .max(100)
      .describe('Pages to read; `https://site/*` maps the site and picks the relevant pages.'),
    prompt: z.string().max(maxPromptChars).optional().describe('What to extract, in words.'),
    schema: z.record(z.string(), z.unknown()).optional().describe('JSON Schema of the answer.'),
    systemPrompt: z
      .string()
      .max(maxPromptChars)
      .optional()
      .describe('Extra instructions, added to the task (page text stays data).'),
    showSources: z.boolean().default(false).describe('Answer which pages each field came from.'),
    ignoreInvalidURLs: z
      .boolean()
      .default(true)
      .describe('Skip URLs that are not valid (listed in invalidURLs) instead of refusing.'),
    allowExternalLinks: z.boolean().default(false).describe('Accepted; wildcards stay on site.'),
    enableWebSearch: z.boolean().default(false).describe('Not offered: no search provider.'),
    includeSubdomains: z.boolean().default(true).describe('Wildcard maps include subdomains.'),
    scrapeOptions: scrapeOptionsSchema.optional().describe('How each page is scraped.'),
    /**
     * Pages a `/*` wildcard contributes, best matches of the prompt first.
     * @default 10
     */
    maxPagesPerWildcard: z.number().int().min(1).max(100).default(10),
  })
  .refine((options) => options.prompt !== undefined || options.schema !== undefined, {
    message: 'give a prompt, a schema, or both',
    path: ['prompt'],
  });

/** What callers pass to `extract()`. */
export type ExtractOptions = z.input<typeof extractOptionsSchema>;
/** Extract options with defaults applied. */
export type ResolvedExtractOptions = z.output<typeof extractOptionsSchema>;
