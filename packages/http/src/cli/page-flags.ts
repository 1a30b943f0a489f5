/**
 * The one table of flags the page commands share, so that a flag has one name and one meaning
 * on `trawl scrape`, `crawl`, `batch` and `map`: the page flags (how each page is fetched and
 * converted), the output flags (`--format`, with `--formats` as its other spelling, and
 * `--quiet`) and the site flags of crawl and map (`--limit`, `--sitemap`, `--subdomains`,
 * `--ignore-query`).
 */
import type { ParseArgsOptionsConfig } from 'node:util';
import { ValidationError, type EngineConfig, type ScrapeOptions } from '@trawl/core';
import { UsageError } from './args.ts';
import type { CliIo } from './index.ts';

/** parseArgs definitions of the page flags. */
export const pageFlagOptions = {
  'main-content': { type: 'boolean', default: true },
  'include-tags': { type: 'string', multiple: true },
  'exclude-tags': { type: 'string', multiple: true },
  clean: { type: 'boolean' },
  timeout: { type: 'string' },
  mobile: { type: 'boolean' },
  header: { type: 'string', multiple: true },
  language: { type: 'string', multiple: true },
  country: { type: 'string' },
  'max-age': { type: 'string' },
  cache: { type: 'boolean', default: true },
  lockdown: { type: 'boolean' },
  'redact-pii': { type: 'boolean' },
  'keep-base64-images': { type: 'boolean' },
  'block-ads': { type: 'boolean', default: true },
  insecure: { type: 'boolean' },
  proxy: { type: 'string' },
} as const satisfies ParseArgsOptionsConfig;

/** The help lines of the page flags. */
export const pageFlagsHelp = `  --no-main-content      keep navigation, headers, footers and sidebars
  --include-tags <sel>   CSS selector to keep (repeat, or comma-separate)
  --exclude-tags <sel>   CSS selector to remove (repeat, or comma-separate)
  --clean                onlyCleanContent: drop link URLs, images and furniture lines
  --timeout <ms>         time budget of one page's scrape (default 60000)
  --mobile               fetch as a mobile device
  --header <name:value>  extra request header (repeatable)
  --language <tag>       Accept-Language tag (repeatable)
  --country <code>       location country (two letters)
  --max-age <ms>         serve a cached copy younger than this (default 172800000 = 2 days;
                         0 = always fetch, and refresh the cache)
  --no-cache             neither read nor write the page cache (always fetch)
  --lockdown             serve only from the page cache, never fetch
  --redact-pii           replace e-mails, phone, card and ID numbers
  --keep-base64-images   keep inline base64 images
  --no-block-ads         keep ad and tracker elements
  --insecure             accept invalid TLS certificates (skipTlsVerification)
  --proxy <mode>         auto (default) or basic (uses TRAWL_PROXY_URL)`;

/** Why a second scrape can show old text: the help of every command that reads the cache. */
export const pageCacheHelp = `Page cache: a page scraped in the last 2 days is served from the cache in
$TRAWL_DATA_DIR (default ./.trawl) without fetching it, so a page edited since shows its
old text. --max-age 0 fetches it again (and refreshes the cache); --no-cache neither reads
nor writes the cache.`;

/** Output flags: which formats, and whether to report progress. */
export const outputFlagOptions = {
  format: { type: 'string', multiple: true },
  formats: { type: 'string', multiple: true },
  quiet: { type: 'boolean', short: 'q' },
} as const satisfies ParseArgsOptionsConfig;

/** The formats of each page of a crawl or batch scrape (their output is always JSON lines). */
export const jobPageFormats = ['markdown', 'html', 'rawHtml', 'links', 'images'] as const;

/** `-q`/`--quiet` for the commands without the page flags. */
export const quietFlagOption = { quiet: { type: 'boolean', short: 'q' } } as const;

/**
 * What a command writes with `--quiet`: stdout as it is, stderr dropped. Errors still reach the
 * user, since the CLI prints them through its own handle once the command throws.
 */
export function quietable(io: CliIo, quiet: boolean | undefined): CliIo {
  return quiet ? { ...io, stderr: () => undefined } : io;
}

/** The help line of `--quiet`. */
export const quietHelp = `  -q, --quiet            no progress, summary or warnings on stderr (errors only)`;

/** Site flags of `trawl crawl` and `trawl map`, named after the same /v2 options. */
export const siteFlagOptions = {
  limit: { type: 'string' },
  sitemap: { type: 'string' },
  subdomains: { type: 'boolean' },
  'ignore-query': { type: 'boolean' },
} as const satisfies ParseArgsOptionsConfig;

/**
 * The formats asked for with `--format` or `--formats` (the same flag, repeatable, and each
 * value may be a comma-separated list), checked against what the command offers.
 */
export function formatsFrom(
  values: { format?: string[] | undefined; formats?: string[] | undefined },
  allowed: readonly string[],
  fallback: string,
): string[] {
  const given = [...(values.format ?? []), ...(values.formats ?? [])]
    .flatMap((value) => value.split(','))
    .map((format) => format.trim())
    .filter(Boolean);
  for (const format of given) {
    if (!allowed.includes(format))
      throw new UsageError(`--format takes ${allowed.join(', ')} (got '${format}')`);
  }
  return given.length > 0 ? [...new Set(given)] : [fallback];
}

/**
 * Refuses, before any work, a page option whose setting is missing (rather than failing on the
 * first page, or quietly doing without).
 */
export function checkPageSettings(
  options: Pick<ScrapeOptions, 'proxy'>,
  config: Pick<EngineConfig, 'proxyUrl'>,
): void {
  if (options.proxy === 'basic' && !config.proxyUrl)
    throw new UsageError('--proxy basic needs a proxy: set TRAWL_PROXY_URL');
}

/** The values parseArgs gives for the page flags. */
export interface PageFlagValues {
  'main-content'?: boolean;
  'include-tags'?: string[];
  'exclude-tags'?: string[];
  clean?: boolean;
  timeout?: string;
  mobile?: boolean;
  header?: string[];
  language?: string[];
  country?: string;
  'max-age'?: string;
  cache?: boolean;
  lockdown?: boolean;
  'redact-pii'?: boolean;
  'keep-base64-images'?: boolean;
  'block-ads'?: boolean;
  insecure?: boolean;
  proxy?: string;
}

/** Scrape options (without formats) from the page flags; validation is the core schema's. */
export function pageOptionsFrom(
  values: PageFlagValues,
): Omit<ScrapeOptions, 'formats' | 'profile'> {
  // Unset flags stay unset: the schema holds the defaults.
  const options: Omit<ScrapeOptions, 'formats' | 'profile'> = {
    removeBase64Images: !values['keep-base64-images'],
  };
  if (values['main-content'] !== undefined) options.onlyMainContent = values['main-content'];
  if (values['block-ads'] !== undefined) options.blockAds = values['block-ads'];
  const include = splitSelectors(values['include-tags']);
  const exclude = splitSelectors(values['exclude-tags']);
  if (include) options.includeTags = include;
  if (exclude) options.excludeTags = exclude;
  if (values.clean) options.onlyCleanContent = true;
  if (values.timeout !== undefined) options.timeout = toInteger(values.timeout, '--timeout');
  if (values.mobile) options.mobile = true;
  if (values.header) options.headers = parseHeaders(values.header);
  if (values.language || values.country) {
    options.location = {
      ...(values.country ? { country: values.country } : {}),
      ...(values.language ? { languages: values.language } : {}),
    };
  }
  if (values['max-age'] !== undefined) options.maxAge = toInteger(values['max-age'], '--max-age');
  if (values.cache === false) {
    options.maxAge = 0;
    options.storeInCache = false;
  }
  if (values.lockdown) options.lockdown = true;
  if (values['redact-pii']) options.redactPII = true;
  if (values.insecure) options.skipTlsVerification = true;
  if (values.proxy) options.proxy = values.proxy as ScrapeOptions['proxy'] & string;
  return options;
}

function splitSelectors(values: string[] | undefined): string[] | undefined {
  if (!values) return undefined;
  // Commas inside :is(a, b) belong to the selector; css-select accepts the list as one string
  // anyway, so only split where the value is a plain list.
  return values.flatMap((value) =>
    /[()]/.test(value)
      ? [value]
      : value
          .split(',')
          .map((part) => part.trim())
          .filter(Boolean),
  );
}

/**
 * Says on stderr that a URL given without a scheme is fetched over https (as the engine takes
 * it), so a TLS error from a plain-HTTP site does not come as a surprise.
 */
export function noteMissingScheme(url: string, io: CliIo, quiet: boolean | undefined): void {
  if (quiet || /^[a-z][a-z0-9+.-]*:\/\//i.test(url.trim())) return;
  io.stderr(
    `note: '${url}' has no scheme: fetching https://${url.trim()} (write http:// for a site without TLS)\n`,
  );
}

/** A whole number from a flag's text, or a usage error naming the flag. */
export function toInteger(value: string, flag: string, unit = 'milliseconds'): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isInteger(number))
    throw new UsageError(`${flag} takes a whole number of ${unit} (got '${value}')`);
  return number;
}

function parseHeaders(values: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const value of values) {
    const colon = value.indexOf(':');
    if (colon <= 0) throw new ValidationError(`--header takes 'Name: value' (got '${value}')`);
    headers[value.slice(0, colon).trim()] = value.slice(colon + 1).trim();
  }
  return headers;
}
