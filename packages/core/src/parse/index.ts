/**
 * `parse()`: a document's bytes to a Document — detect the kind, turn it into HTML, and run the
 * scrape pipeline's conversion on it. Markdown input is kept as it is.
 */
import { z } from 'zod';
import type { Document } from '../document.ts';
import { ValidationError } from '../errors.ts';
import { parseOrThrow } from '../internal/zod.ts';
import { convertHtml, prepareConversion } from '../scrape/convert.ts';
import { scrapeOptionsShape } from '../scrape/options.ts';
import { detectKind } from './detect.ts';
import { toHtml } from './to-html.ts';

/** Parse options: what the file is, and the page options that apply to documents. */
export const parseOptionsSchema = z.strictObject({
  filename: z.string().max(1024).optional().describe('The file name; its extension is a hint.'),
  contentType: z.string().max(256).optional().describe('The MIME type; a hint after the bytes.'),
  formats: scrapeOptionsShape.formats,
  onlyMainContent: z
    .boolean()
    .optional()
    .describe('HTML inputs only: keep the main content (default true for HTML).'),
  includeTags: scrapeOptionsShape.includeTags,
  excludeTags: scrapeOptionsShape.excludeTags,
  removeBase64Images: scrapeOptionsShape.removeBase64Images,
  redactPII: scrapeOptionsShape.redactPII,
});

/** What callers pass to `parse()`. */
export type ParseOptions = z.input<typeof parseOptionsSchema>;

/** Largest input `parse()` takes: the /v2/parse upload limit. */
export const maxParseBytes = 50 * 1024 * 1024;

/**
 * Parses a document into markdown (and html, links, images): DOCX, XLSX, HTML, CSV, TSV,
 * Markdown, JSON, XML and plain text. The kind comes from the bytes first, then `contentType`,
 * then `filename`.
 *
 * @throws BAD_REQUEST for an empty, unreadable or over-large file; UNSUPPORTED_FILE_TYPE for a
 * kind not handled (yet); CONTENT_TOO_LARGE for a zip bomb.
 * @example
 * const doc = await parse(await readFile('report.docx'), { filename: 'report.docx' });
 */
export async function parse(bytes: Uint8Array, options: ParseOptions = {}): Promise<Document> {
  const resolved = parseOrThrow(parseOptionsSchema, options, 'parse options');
  if (bytes.length === 0) throw new ValidationError('The file is empty');
  if (bytes.length > maxParseBytes)
    throw new ValidationError(
      `The file exceeds the maximum size of ${maxParseBytes / 1024 / 1024}MB`,
    );
  const kind = detectKind(bytes, resolved.contentType, resolved.filename);
  const sourceURL = `file:///${encodeURIComponent(resolved.filename ?? 'document')}`;
  const metadata = {
    sourceURL,
    url: sourceURL,
    statusCode: 200,
    contentType: kind,
    scrapeId: crypto.randomUUID(),
  };
  if (kind === 'markdown') {
    const markdown = new TextDecoder('utf-8')
      .decode(bytes)
      .replace(/^\uFEFF/, '')
      .trim();
    return {
      markdown,
      metadata: { ...metadata, ...(resolved.filename ? { title: resolved.filename } : {}) },
    };
  }
  const html = await toHtml(kind, bytes);
  // A document is all content: main-content extraction is for web pages.
  const conversionOptions = {
    ...resolved,
    onlyMainContent: kind === 'html' ? (resolved.onlyMainContent ?? true) : false,
    onlyCleanContent: false,
    blockAds: kind === 'html',
  };
  const redaction = prepareConversion(conversionOptions);
  const { content, pageMetadata } = convertHtml(html, sourceURL, conversionOptions, redaction);
  const pageTitle = typeof pageMetadata.title === 'string' ? pageMetadata.title : undefined;
  const title = pageTitle || resolved.filename;
  return {
    ...content,
    metadata: { ...pageMetadata, ...metadata, ...(title ? { title } : {}) },
  };
}
