/**
 * Search options: the single zod schema of `POST /v2/search` without `origin` and `integration`,
 * with the hosted service's defaults (reference-behaviour (a)).
 */
import { z } from 'zod';
import {
  formatSchema,
  hostedOnlyShape,
  ignoredScrapeKeysShape,
  scrapeOptionsShape,
} from '../scrape/options.ts';

const sourceTypes = ['web', 'news', 'images'] as const;
const categoryTypes = ['github', 'research', 'pdf', 'developer'] as const;

/** A bare host name (`example.com`), as the hosted service takes them. */
const domainSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9.-]+$/, 'expected a bare host name such as example.com')
  .max(253);

/**
 * The official SDKs forward `sources` and not `source`, so `local` among them is how a client
 * asks for the built-in index (whose results are web results).
 */
const sourceNames = [...sourceTypes, 'local'] as const;

/**
 * The hosted service's catalogue of data providers (`alexandria`, once `exchange`): firecrawl-mcp
 * adds it to every search it makes with a key. Trawl has no such catalogue, so the name is taken
 * and dropped, and the other sources are searched.
 */
const catalogueNames = ['alexandria', 'exchange'] as const;
type SourceName = (typeof sourceNames)[number];
const isSearched = (name: string): name is SourceName =>
  (sourceNames as readonly string[]).includes(name);

/** A `sources` entry: a name, or `{ type, … }` (the per-source settings are accepted and unused). */
const sourceSchema = z
  .union([
    z.enum([...sourceNames, ...catalogueNames]),
    z.looseObject({ type: z.enum([...sourceNames, ...catalogueNames]) }),
  ])
  .transform((source) => (typeof source === 'string' ? source : source.type));

const categorySchema = z
  .union([z.enum(categoryTypes), z.strictObject({ type: z.enum(categoryTypes) })])
  .transform((category) => (typeof category === 'string' ? category : category.type));

/** `tbs`: qdr:h|d|w|m|y, or a custom range `cdr:1,cd_min:M/D/YYYY,cd_max:M/D/YYYY`. */
export const tbsPattern =
  /^(qdr:[hdwmy]|cdr:1(,cd_min:\d{1,2}\/\d{1,2}\/\d{4})?(,cd_max:\d{1,2}\/\d{1,2}\/\d{4})?)$/;

/** Scrape options of the results: those of scrape, except that no formats means no scraping. */
const resultScrapeOptionsSchema = z.strictObject({
  ...scrapeOptionsShape,
  formats: z
    .array(formatSchema)
    .max(20)
    .default([])
    .describe('Formats each result is scraped in; empty: results are not scraped.'),
  // Search-internal scrapes accept a copy up to three days old (reference-behaviour, maxAge).
  maxAge: scrapeOptionsShape.maxAge.unwrap().default(259_200_000),
});

/** The fields of a search request. */
export const searchOptionsShape = {
  limit: z.number().int().min(1).max(100).default(10).describe('Most results per source.'),
  sources: z
    .array(sourceSchema)
    .min(1)
    .max(5)
    .refine((names) => names.some(isSearched), {
      message:
        'alexandria (the hosted provider catalogue) is not in Trawl: name web, news, images or local',
    })
    .transform((names) => names.filter(isSearched))
    .default(['web'])
    .describe(
      'Result kinds: web, news, images (names or { type } objects); local: web results from the built-in index; alexandria (the hosted provider catalogue) is accepted and ignored.',
    ),
  categories: z
    .array(categorySchema)
    .max(4)
    .default([])
    .describe('Narrow web results: github, research, pdf, developer.'),
  includeDomains: z
    .array(domainSchema)
    .max(100)
    .default([])
    .describe('Only results on these hosts (and their subdomains).'),
  excludeDomains: z
    .array(domainSchema)
    .max(100)
    .default([])
    .describe('No results on these hosts (or their subdomains).'),
  tbs: z
    .string()
    .regex(tbsPattern, 'expected qdr:h, qdr:d, qdr:w, qdr:m, qdr:y or cdr:1,cd_min:…,cd_max:…')
    .optional()
    .describe('Time filter: qdr:h|d|w|m|y, or cdr:1,cd_min:M/D/YYYY,cd_max:M/D/YYYY.'),
  filter: z.string().max(1000).optional().describe('Accepted for compatibility; unused.'),
  lang: z
    .string()
    .regex(/^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})?$/, 'expected a language code such as en or pt-BR')
    .optional()
    .describe('Language of the results (also filters the built-in index).'),
  country: z
    .string()
    .regex(/^[a-zA-Z]{2}$/, 'expected an ISO 3166-1 alpha-2 code such as us')
    .optional()
    .describe('Country to geo-target the results for.'),
  location: z.string().min(1).max(200).optional().describe('Place to geo-target the results for.'),
  timeout: z
    .number()
    .int()
    .min(1)
    .max(300_000)
    .default(60_000)
    .describe('Milliseconds for the whole search, scraping included.'),
  ignoreInvalidURLs: z
    .boolean()
    .default(false)
    .describe('Drop results whose URL this engine could not scrape.'),
  highlights: z
    .boolean()
    .default(true)
    .describe('Describe built-in index results by an excerpt around the matched words.'),
  scrapeOptions: resultScrapeOptionsSchema
    .optional()
    .describe('Scrape each result in these formats (formats default [] = no scraping).'),
  enterprise: z
    .array(z.enum(['default', 'anon', 'zdr']))
    .max(3)
    .optional()
    .describe('Accepted for compatibility; zdr keeps scraped results out of cache and index.'),
  source: z
    .enum(['local', 'web', 'all'])
    .optional()
    .describe(
      'Trawl extension. local: the built-in index; web: the web providers; all: both, fused. Default: web when a web provider is configured, else local; local when sources names local.',
    ),
  domainTools: ignoredScrapeKeysShape.domainTools,
  toolDetail: ignoredScrapeKeysShape.toolDetail,
  ...hostedOnlyShape,
} as const;

/** The whole request: the query plus the fields. */
export const searchOptionsSchema = z
  .strictObject({
    query: z
      .string()
      .trim()
      .min(1, 'query cannot be empty')
      .max(2000, 'query is longer than 2000 characters')
      .describe('What to search for.'),
    ...searchOptionsShape,
  })
  .superRefine((options, context) => {
    if (options.includeDomains.length > 0 && options.excludeDomains.length > 0) {
      context.addIssue({
        code: 'custom',
        path: ['excludeDomains'],
        message: 'includeDomains and excludeDomains cannot both be specified',
      });
    }
    if (options.sources.includes('local') && options.source === 'web') {
      context.addIssue({
        code: 'custom',
        path: ['sources'],
        message: 'sources names local (the built-in index) but source is web',
      });
    }
  });

/** What callers pass to `search()` besides the query. */
export type SearchOptions = Omit<z.input<typeof searchOptionsSchema>, 'query'>;
/** The request with every default applied. */
export type ResolvedSearchOptions = z.output<typeof searchOptionsSchema>;

/** A result kind of the interface: what `sources` names once `local` is read as a provider. */
export type SearchKind = (typeof sourceTypes)[number];

/**
 * Which providers a search asks (`source`) and which result kinds it returns. `local` in
 * `sources` picks the built-in index (both, fused, when `web` is named too) unless `source`
 * says otherwise, and stands for its kind of results, web.
 */
export function providersAndKinds(options: ResolvedSearchOptions): {
  source: 'local' | 'web' | 'all' | undefined;
  kinds: SearchKind[];
} {
  const named = options.sources;
  if (!named.includes('local')) return { source: options.source, kinds: named as SearchKind[] };
  const kinds = [...new Set(named.map((name) => (name === 'local' ? 'web' : name)))];
  return { source: options.source ?? (named.includes('web') ? 'all' : 'local'), kinds };
}
