/**
 * Scrape options: the single zod schema of the spec's ScrapeOptions, with its defaults. The HTTP
 * layer builds its request bodies from these schemas, so defaults and checks live only here.
 */
import { z } from 'zod';
import { actionsSchema, screenshotShape, waitedMs } from '../browser/actions.ts';

/** Formats this engine can produce, or knows by name and will explain when it cannot. */
export const formatNames = [
  'markdown',
  'html',
  'rawHtml',
  'links',
  'images',
  'screenshot',
  'json',
  'summary',
  'changeTracking',
  'branding',
  'attributes',
  'question',
  'highlights',
  'product',
  'menu',
  'query',
  'audio',
  'video',
  'rawBase64',
] as const;

/** The name of one output format. */
export type FormatName = (typeof formatNames)[number];

const formatNameSchema = z.enum(formatNames);

// Object forms carry per-format settings (json schema …); they are kept loose here because
// their inner fields belong to the capability that produces the format. The screenshot's
// settings are the browser's, checked here.
const formatObjectSchema = z.looseObject({ type: formatNameSchema.exclude(['screenshot']) });
const screenshotFormatSchema = z.strictObject({
  type: z.literal('screenshot'),
  ...screenshotShape,
});

/** One entry of `formats`: a name, or an object with `type` and that format's settings. */
export const formatSchema = z
  .union([formatNameSchema, screenshotFormatSchema, formatObjectSchema])
  .transform((format) => (typeof format === 'string' ? { type: format } : format));

/** A format entry after normalisation: always an object. */
export type FormatSpec = z.output<typeof formatSchema>;

const piiEntities = ['PERSON', 'EMAIL', 'PHONE', 'LOCATION', 'FINANCIAL', 'SECRET'] as const;
/** A kind of personal data that `redactPII` can remove. */
export type PiiEntity = (typeof piiEntities)[number];

/** `redactPII` in its object form. */
export const redactPiiSchema = z.strictObject({
  /** How hard to look. Regex detection serves all modes here; `accurate` is the default name. @default 'accurate' */
  mode: z.enum(['accurate', 'aggressive', 'fast']).default('accurate'),
  /** Which kinds to redact. @default all kinds this engine detects */
  entities: z.array(z.enum(piiEntities)).min(1).optional(),
  /** `tag` writes `[EMAIL]`, `mask` writes asterisks, `remove` deletes. @default 'tag' */
  replaceStyle: z.enum(['tag', 'mask', 'remove']).default('tag'),
});

const locationSchema = z.strictObject({
  /** ISO 3166-1 alpha-2 country code (any case), or `us-generic`. @default 'us-generic' */
  country: z
    .string()
    .regex(/^([a-zA-Z]{2}|us-generic|us-whitelist)$/, 'expected a two-letter country code')
    .default('us-generic'),
  /** Accept-Language tags, most preferred first. */
  languages: z
    .array(z.string().regex(/^[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*$|^\*$/, 'expected a language tag'))
    .max(20)
    .optional(),
});

const pdfParserSchema = z.strictObject({
  type: z.literal('pdf'),
  /** `fast`: the text layer only; `auto`: OCR for pages without one; `ocr`: OCR every page. */
  mode: z.enum(['fast', 'auto', 'ocr']).default('auto'),
  maxPages: z.number().int().min(1).max(10_000).optional(),
});

const parserSchema = z.union([
  z.enum(['pdf', 'image']),
  pdfParserSchema,
  z.strictObject({ type: z.literal('image') }),
]);

/** Which PDF pages OCR reads for a parser mode: `fast` never, `auto` scans only, `ocr` all. */
export const ocrModeOf = (mode: 'fast' | 'auto' | 'ocr') =>
  mode === 'fast' ? 'never' : mode === 'ocr' ? 'always' : 'scanned';

/** The PDF parser's settings from `parsers`, or undefined when the list leaves PDF out. */
export function pdfParserSettings(
  parsers: z.output<typeof parserSchema>[],
): { mode: 'fast' | 'auto' | 'ocr'; maxPages?: number | undefined } | undefined {
  for (const parser of parsers) {
    if (parser === 'pdf') return { mode: 'auto' };
    if (typeof parser === 'object' && parser.type === 'pdf') return parser;
  }
  return undefined;
}

/** How the OpenAPI document and `--help` mark a key that is taken and then not acted on. */
export const ignoredKeyNote = 'Accepted for compatibility with the official SDKs; ignored.';

/**
 * Hosted threat scanning and audit tags: the official SDKs forward them on scrape, map, search,
 * extract and agent requests. This engine scans nothing and audits nothing, so they are taken
 * whatever their inner fields and ignored.
 */
export const hostedOnlyShape = {
  threatProtection: z.looseObject({}).optional().describe(ignoredKeyNote),
  auditMetadata: z.looseObject({}).optional().describe(ignoredKeyNote),
} as const;

/**
 * Scrape keys the official SDKs (JS 4.x, Python 3.x and 4.x) put in requests that have no meaning
 * for this engine: `fastMode` (firecrawl-py sends `false` on every request), `useMock`, the
 * hosted "tools" catalogue (`domainTools`, `toolDetail`), `safeMode`. Refusing them would fail
 * every call of those SDKs, so they are accepted and ignored.
 */
export const ignoredScrapeKeysShape = {
  fastMode: z.boolean().optional().describe(ignoredKeyNote),
  useMock: z.string().max(1000).optional().describe(ignoredKeyNote),
  safeMode: z.boolean().optional().describe(ignoredKeyNote),
  domainTools: z.boolean().optional().describe(ignoredKeyNote),
  toolDetail: z.enum(['compact', 'summary', 'full']).optional().describe(ignoredKeyNote),
  ...hostedOnlyShape,
} as const;

/** Fields of the spec's ScrapeOptions, every default as the reference service has it. */
export const scrapeOptionsShape = {
  formats: z
    .array(formatSchema)
    .max(20)
    .default([{ type: 'markdown' }])
    .describe('Output formats: markdown, html, rawHtml, links, images, and more.'),
  onlyMainContent: z
    .boolean()
    .default(true)
    .describe('Drop navigation, headers, footers, sidebars, banners and ads.'),
  onlyCleanContent: z
    .boolean()
    .default(false)
    .describe('Also drop leftover boilerplate lines (short link lists, empty headings).'),
  includeTags: z
    .array(z.string().min(1))
    .max(100)
    .optional()
    .describe('CSS selectors: keep only what they match.'),
  excludeTags: z
    .array(z.string().min(1))
    .max(100)
    .optional()
    .describe('CSS selectors: remove what they match.'),
  maxAge: z
    .number()
    .int()
    .min(0)
    .default(172_800_000)
    .describe('Serve a cached copy younger than this many ms; 0 always fetches.'),
  minAge: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('Cache only: serve a cached copy at least this many ms old, never fetch.'),
  headers: z
    .record(z.string(), z.string())
    .optional()
    .describe('Extra request headers. Turns storeInCache off.'),
  waitFor: z
    .number()
    .int()
    .min(0)
    .max(60_000)
    .default(0)
    .describe('Milliseconds to wait after load (browser engine).'),
  mobile: z.boolean().default(false).describe('Fetch as a mobile device.'),
  skipTlsVerification: z
    .boolean()
    .optional()
    .describe('Accept invalid TLS certificates. Default true, false when headers are given.'),
  timeout: z
    .number()
    .int()
    .min(1000)
    .max(300_000)
    .default(60_000)
    .describe('Milliseconds for the whole scrape.'),
  parsers: z
    .array(parserSchema)
    .default(['pdf'])
    .describe('Document parsers to apply to files (pdf, image).'),
  actions: actionsSchema
    .optional()
    .describe(
      'Browser actions run in order before capture: wait, click, write, press, scroll, screenshot, scrape, executeJavascript, pdf.',
    ),
  location: locationSchema.optional().describe('Country and languages to request the page for.'),
  removeBase64Images: z
    .boolean()
    .default(true)
    .describe('Replace inline base64 images with a placeholder that keeps their alt text.'),
  blockAds: z.boolean().default(true).describe('Drop ad and tracker elements and iframes.'),
  proxy: z
    .enum(['basic', 'auto', 'stealth', 'enhanced'])
    .default('auto')
    .describe('basic: through the configured proxy; auto: direct, then the proxy on failure.'),
  storeInCache: z.boolean().default(true).describe('Write the result to the page cache.'),
  lockdown: z
    .boolean()
    .default(false)
    .describe('Serve only from the page cache; never touch the network.'),
  redactPII: z
    .union([z.boolean(), redactPiiSchema])
    .default(false)
    .describe('Replace e-mails, phone, card and ID numbers.'),
  profile: z
    .strictObject({ name: z.string().min(1).max(128), saveChanges: z.boolean().default(true) })
    .optional()
    .describe('Persistent browser profile (browser engine).'),
  zeroDataRetention: z
    .boolean()
    .default(false)
    .describe('Keep nothing after delivery: no cache write.'),
  ...ignoredScrapeKeysShape,
} as const;

/** ScrapeOptions as a strict object: unknown keys are errors, not silently dropped. */
export const scrapeOptionsSchema = z
  .strictObject(scrapeOptionsShape)
  .superRefine((options, context) => {
    const types = options.formats.map((format) => format.type);
    if (types.filter((type) => type === 'screenshot').length > 1) {
      context.addIssue({
        code: 'custom',
        path: ['formats'],
        message: 'only one screenshot format may be given',
      });
    }
    if (types.includes('changeTracking') && !types.includes('markdown')) {
      context.addIssue({
        code: 'custom',
        path: ['formats'],
        message: 'changeTracking needs the markdown format too',
      });
    }
    if (types.includes('rawBase64') && types.length > 1) {
      context.addIssue({
        code: 'custom',
        path: ['formats'],
        message: 'rawBase64 must be the only format',
      });
    }
    // Waiting is capped as the hosted service caps it (reference-behaviour (c), waitFor).
    if (options.waitFor + waitedMs(options.actions ?? []) > 60_000) {
      context.addIssue({
        code: 'custom',
        path: ['actions'],
        message: 'waitFor and the wait actions together may wait at most 60000 ms',
      });
    }
    if (options.waitFor > options.timeout / 2) {
      context.addIssue({
        code: 'custom',
        path: ['waitFor'],
        message: `waitFor (${options.waitFor} ms) must be at most half of timeout (${options.timeout} ms)`,
      });
    }
  });

/** What callers pass to `scrape()`. */
export type ScrapeOptions = z.input<typeof scrapeOptionsSchema>;
/** Scrape options with every default applied and formats normalised to objects. */
export type ResolvedScrapeOptions = z.output<typeof scrapeOptionsSchema>;
/** The object form of `redactPII`, defaults applied. */
export type RedactPiiOptions = z.output<typeof redactPiiSchema>;
