/** `trawl scrape <url>`: one page to stdout. */
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { scrape, SqliteStore, ValidationError, type ScrapeOptions } from '@trawl/core';
import { loadConfig } from '../config.ts';
import type { Command } from './index.ts';

const outputFormats = ['markdown', 'html', 'rawHtml', 'links', 'images', 'json'] as const;
type OutputFormat = (typeof outputFormats)[number];

const usage = `Usage: trawl scrape <url> [options]

Fetches one page and prints it.

Options:
  --format <f>           markdown (default), html, rawHtml, links, images, or json
                         (the whole document with metadata)
  --no-main-content      keep navigation, headers, footers and sidebars
  --include-tags <sel>   CSS selector to keep (repeat, or comma-separate)
  --exclude-tags <sel>   CSS selector to remove (repeat, or comma-separate)
  --clean                onlyCleanContent: drop link URLs, images and furniture lines
  --timeout <ms>         time budget of the whole scrape (default 60000)
  --mobile               fetch as a mobile device
  --header <name:value>  extra request header (repeatable)
  --language <tag>       Accept-Language tag (repeatable)
  --country <code>       location country (two letters)
  --max-age <ms>         serve a cached copy younger than this (default 2 days; 0 = fresh)
  --no-cache             neither read nor write the page cache
  --lockdown             serve only from the page cache, never fetch
  --redact-pii           replace e-mails, phone, card and ID numbers
  --keep-base64-images   keep inline base64 images
  --no-block-ads         keep ad and tracker elements
  --insecure             accept invalid TLS certificates (skipTlsVerification)
  --proxy <mode>         auto (default) or basic (uses TRAWL_PROXY_URL)
  -h, --help             show this help

The page cache lives in $TRAWL_DATA_DIR (default ./.trawl).
`;

/** The scrape command. */
export const scrapeCommand: Command = {
  name: 'scrape',
  summary: 'Scrape one page to markdown, html, links or JSON',
  usage,
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      allowNegative: true,
      options: {
        format: { type: 'string', default: 'markdown' },
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
      },
    });
    const [url, ...extra] = positionals;
    if (!url || extra.length > 0)
      throw new ValidationError(
        `give exactly one URL (got ${positionals.length}); see 'trawl scrape --help'`,
      );
    const format = values.format as OutputFormat;
    if (!outputFormats.includes(format)) {
      throw new ValidationError(
        `--format must be one of ${outputFormats.join(', ')} (got '${values.format}')`,
      );
    }

    const options: ScrapeOptions = {
      formats: format === 'json' ? ['markdown', 'links', 'images'] : [format],
      onlyMainContent: values['main-content'],
      removeBase64Images: !values['keep-base64-images'],
      blockAds: values['block-ads'],
    };
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
    if (values.lockdown) options.lockdown = true;
    if (values['redact-pii']) options.redactPII = true;
    if (values.insecure) options.skipTlsVerification = true;
    if (values.proxy) options.proxy = values.proxy as ScrapeOptions['proxy'] & string;

    const config = loadConfig({ env: io.env });
    const store =
      values.cache || values.lockdown
        ? new SqliteStore({ path: join(config.dataDir, 'trawl.db') })
        : undefined;
    try {
      const document = await scrape(url, options, {
        config: config.engine,
        ...(store ? { store } : {}),
      });
      if (format === 'json') io.stdout(`${JSON.stringify(document, null, 2)}\n`);
      else if (format === 'links' || format === 'images')
        io.stdout(`${(document[format] ?? []).join('\n')}\n`);
      else io.stdout(`${document[format] ?? ''}\n`);
      return 0;
    } finally {
      await store?.close();
    }
  },
};

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

function toInteger(value: string, flag: string): number {
  const number = Number(value);
  if (!Number.isInteger(number))
    throw new ValidationError(`${flag} takes a whole number of milliseconds (got '${value}')`);
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
