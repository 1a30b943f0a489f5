/**
 * The pure half of scraping: HTML text in, Document fields out. No network, no cache; `scrape()`
 * calls it after fetching, and `htmlToDocument` exposes it for HTML the caller already has.
 */
import { z } from 'zod';
import type { Document } from '../document.ts';
import { ValidationError } from '../errors.ts';
import { parseOrThrow } from '../internal/zod.ts';
import { validateSelectors } from '../convert/clean.ts';
import { ensureFormatsAvailable, formatHandlers } from './formats/index.ts';
import { scrapeOptionsShape, type ResolvedScrapeOptions } from './options.ts';
import { HtmlPage } from '../convert/page.ts';
import { maxElementDepth } from '../convert/dom.ts';
import type { PageMetadata } from '../convert/metadata.ts';
import { redactText, resolveRedaction, type Redaction } from '../convert/redact.ts';

/** The options that shape conversion, a subset of ScrapeOptions. */
export type ConversionOptions = Pick<
  ResolvedScrapeOptions,
  | 'formats'
  | 'onlyMainContent'
  | 'onlyCleanContent'
  | 'includeTags'
  | 'excludeTags'
  | 'removeBase64Images'
  | 'blockAds'
  | 'redactPII'
>;

/**
 * Checks everything about conversion that can fail before a fetch (`hasLlm`: a model is
 * configured for the LLM formats). Returns the redaction to apply.
 */
export function prepareConversion(
  options: ConversionOptions,
  hasLlm = false,
): Redaction | undefined {
  ensureFormatsAvailable(options.formats, hasLlm);
  validateSelectors(options.includeTags, 'includeTags');
  validateSelectors(options.excludeTags, 'excludeTags');
  return resolveRedaction(options.redactPII);
}

/** What converting one page gives: the requested formats, the page's metadata, its links. */
export interface Conversion {
  content: Omit<Document, 'metadata'>;
  pageMetadata: PageMetadata;
  /** Every link of the page, unredacted, when the caller asked to collect them (crawls). */
  links?: string[];
  /** Markdown of the main content, when a format will show it to a model. */
  llmText?: string;
  /** What the caller should know about how the page was read (nesting flattened). */
  warning?: string;
}

/**
 * Converts decoded HTML into the requested formats plus the page's own metadata. `collectLinks`
 * gathers the page's links in the same parse, whatever the formats (a crawl needs them).
 */
export function convertHtml(
  html: string,
  pageUrl: string,
  options: ConversionOptions,
  redaction: Redaction | undefined,
  collectLinks = false,
): Conversion {
  const wanted = new Set(options.formats.map((format) => format.type));
  const page = new HtmlPage(
    html,
    pageUrl,
    { ...options, redaction },
    {
      links: wanted.has('links') || collectLinks,
      images: wanted.has('images'),
    },
  );
  const content: Document = { metadata: {} as Document['metadata'] };
  for (const format of options.formats) formatHandlers[format.type].apply?.(page, content, format);
  // markdown and html were made from a redacted tree; the raw page and link URLs are strings.
  if (redaction) {
    if (content.rawHtml !== undefined) content.rawHtml = redactText(content.rawHtml, redaction);
    if (content.links) content.links = content.links.map((link) => redactText(link, redaction));
  }
  // Formats may add metadata keys (`productSource`) beside the page's own.
  const { metadata: added, ...fields } = content;
  const conversion: Conversion = { content: fields, pageMetadata: { ...page.metadata, ...added } };
  if (collectLinks) conversion.links = page.links;
  if (page.flattened)
    conversion.warning = `Elements nested more than ${maxElementDepth} levels deep were flattened into their ancestor at that depth.`;
  if (options.formats.some((format) => formatHandlers[format.type].enrich !== undefined))
    conversion.llmText = page.markdown;
  return conversion;
}

/**
 * Converts a text response (JSON, XML, Markdown, plain text): it is its own content, so markdown
 * is the text as is (Markdown) or in a fenced block, html a `<pre>` of it. `language` names the
 * fence ('' for plain text).
 */
export function convertText(
  text: string,
  language: string,
  options: Pick<ConversionOptions, 'formats'>,
  redaction: Redaction | undefined,
): Conversion {
  const redacted = redaction ? redactText(text, redaction) : text;
  const content: Conversion['content'] = {};
  for (const { type } of options.formats) {
    if (type === 'markdown') {
      content.markdown =
        language === 'markdown'
          ? redacted.trim()
          : `\`\`\`${language}\n${redacted.trimEnd()}\n\`\`\``;
    } else if (type === 'html') {
      content.html = `<pre>${redacted.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</pre>`;
    } else if (type === 'rawHtml') {
      content.rawHtml = redacted;
    } else if (type === 'links' || type === 'images') {
      content[type] = [];
    }
  }
  return { content, pageMetadata: {} };
}

const htmlToDocumentOptionsSchema = z.strictObject({
  // Any non-empty string: HTML kept under a label (`hard::1`, a file name) still converts, and
  // only a URL that can be a base resolves relative links.
  url: z
    .string()
    .min(1)
    .describe(
      'The URL the HTML came from; resolves relative links. Not a URL: links stay as written.',
    ),
  formats: scrapeOptionsShape.formats,
  onlyMainContent: scrapeOptionsShape.onlyMainContent,
  onlyCleanContent: scrapeOptionsShape.onlyCleanContent,
  includeTags: scrapeOptionsShape.includeTags,
  excludeTags: scrapeOptionsShape.excludeTags,
  removeBase64Images: scrapeOptionsShape.removeBase64Images,
  blockAds: scrapeOptionsShape.blockAds,
  redactPII: scrapeOptionsShape.redactPII,
});

/** Options of `htmlToDocument`. */
export type HtmlToDocumentOptions = z.input<typeof htmlToDocumentOptionsSchema>;

/**
 * Converts HTML you already have into a Document, exactly as `scrape()` would convert the same
 * page. Metadata carries the page's own tags, and `url`/`sourceURL` are the given URL. `url`
 * resolves relative links (after the page's `<base href>`); when it is no URL to resolve against
 * (a label such as `hard::12` or a file name), relative links and images stay as written.
 *
 * @throws BAD_REQUEST for invalid options (an empty `url`), CAPABILITY_UNAVAILABLE / NOT_CONFIGURED for formats
 * that need a browser or an LLM
 * @example
 * const doc = htmlToDocument('<h1>Hi</h1><p>There</p>', { url: 'https://example.com/' });
 * console.log(doc.markdown); // "# Hi\n\nThere"
 */
export function htmlToDocument(html: string, options: HtmlToDocumentOptions): Document {
  const resolved = parseOrThrow(htmlToDocumentOptionsSchema, options, 'htmlToDocument options');
  const live = resolved.formats.find((format) => formatHandlers[format.type].render !== undefined);
  if (live) {
    throw new ValidationError(
      `The '${live.type}' format needs the page live in a browser, not HTML text: scrape the URL instead`,
      { details: [{ path: ['formats'], message: `format '${live.type}' needs a live page` }] },
    );
  }
  const redaction = prepareConversion(resolved);
  const { content, pageMetadata, warning } = convertHtml(html, resolved.url, resolved, redaction);
  return {
    ...content,
    ...(warning ? { warning } : {}),
    metadata: {
      ...pageMetadata,
      sourceURL: resolved.url,
      url: resolved.url,
      statusCode: 200,
      scrapeId: crypto.randomUUID(),
    },
  };
}
