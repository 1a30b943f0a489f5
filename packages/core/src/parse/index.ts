/**
 * `parse()`: a document's bytes to a Document — detect the kind, turn it into HTML, and run the
 * scrape pipeline's conversion on it. Markdown input is kept as it is.
 */
import { z } from 'zod';
import { resolveEngineConfig, type EngineContext } from '../config.ts';
import type { Document } from '../document.ts';
import { enrichDocument } from '../scrape/enrich.ts';
import { ContentTooLargeError, TrawlError, ValidationError } from '../errors.ts';
import { parseOrThrow } from '../internal/zod.ts';
import { prepareConversion } from '../scrape/convert.ts';
import { convertHtmlPooled } from '../scrape/convert-pool.ts';
import {
  ignoredScrapeKeysShape,
  ocrModeOf,
  pdfParserSettings,
  scrapeOptionsShape,
} from '../scrape/options.ts';
import { delimitedDialectSchema } from '../convert/delimited.ts';
import { detectKind } from '../convert/detect.ts';
import { isolatedToHtml } from '../convert/isolated.ts';

/** Options only a browser or a proxy can honour: a file upload has no page to act on. */
const browserOnlyOptions = ['actions', 'waitFor', 'location', 'mobile', 'proxy'] as const;
const browserOnlyFormats = new Set(['screenshot', 'changeTracking', 'branding', 'audio', 'video']);

/**
 * Parse options: what the file is, and the spec's parse options. Options that need a live page
 * are accepted by the schema only so they can be refused with PARSE_UNSUPPORTED_OPTIONS rather
 * than as unknown keys.
 */
export const parseOptionsSchema = z.strictObject({
  filename: z.string().max(1024).optional().describe('The file name; its extension is a hint.'),
  contentType: z.string().max(256).optional().describe('The MIME type; a hint after the bytes.'),
  formats: scrapeOptionsShape.formats,
  csv: delimitedDialectSchema.optional(),
  onlyMainContent: z
    .boolean()
    .default(true)
    .describe('HTML inputs only: keep the main content (other kinds are all content).'),
  includeTags: scrapeOptionsShape.includeTags,
  excludeTags: scrapeOptionsShape.excludeTags,
  headers: scrapeOptionsShape.headers,
  parsers: scrapeOptionsShape.parsers,
  blockAds: scrapeOptionsShape.blockAds,
  removeBase64Images: scrapeOptionsShape.removeBase64Images,
  skipTlsVerification: scrapeOptionsShape.skipTlsVerification,
  redactPII: scrapeOptionsShape.redactPII,
  timeout: scrapeOptionsShape.timeout,
  zeroDataRetention: scrapeOptionsShape.zeroDataRetention,
  origin: z.string().max(256).optional(),
  integration: z.string().max(256).optional(),
  actions: z.array(z.unknown()).optional(),
  waitFor: z.number().optional(),
  location: z.unknown().optional(),
  mobile: z.boolean().optional(),
  proxy: z.string().optional(),
  ...ignoredScrapeKeysShape,
});

function refuseBrowserOnly(options: z.output<typeof parseOptionsSchema>): void {
  const refused: string[] = [];
  for (const key of browserOnlyOptions) {
    const value = options[key];
    if (value === undefined || value === false || (key === 'waitFor' && value === 0)) continue;
    if (key === 'proxy' && (value === 'auto' || value === 'basic')) continue;
    if (key === 'actions' && Array.isArray(value) && value.length === 0) continue;
    refused.push(key);
  }
  for (const format of options.formats)
    if (browserOnlyFormats.has(format.type)) refused.push(`formats: ${format.type}`);
  if (refused.length)
    throw new ValidationError(
      `Parse does not support these options (they need a live page; scrape a URL instead): ${refused.join(', ')}`,
      { code: 'PARSE_UNSUPPORTED_OPTIONS', details: { unsupported: refused } },
    );
}

/**
 * A reader library's own exception (a malformed file it did not expect) as a refusal of the
 * file: the caller's input is at fault, and a 500 would say the engine is.
 */
function readerError(error: unknown, kind: string): TrawlError {
  if (error instanceof TrawlError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof RangeError || /allocation failed|out of memory|too large/i.test(message))
    return new ContentTooLargeError(
      `The ${kind} file cannot be read within memory limits: ${message}`,
      {
        cause: error,
      },
    );
  return new ValidationError(`The ${kind} file is damaged or cannot be read: ${message}`, {
    cause: error,
  });
}

/** What the engine's operator decides for every parse, not the caller (EngineConfig). */
export interface ParseSettings {
  /** LibreOffice's soffice, for DOC, XLS and PPT; `config.sofficePath`, then the usual paths. */
  sofficePath?: string | undefined;
}

/** The engine a parse runs on: its LLM for the json and summary formats, and the settings. */
export type ParseContext = EngineContext & ParseSettings;

const wordsOf = (markdown: string | undefined) =>
  (markdown ?? '').match(/[\p{L}\p{N}]+/gu)?.length ?? 0;

/**
 * Main content that kept no words, or under a tenth of a short document's words: main-content
 * removal misread the document (a page of only a nav list or a footer), not trimmed its chrome.
 */
function isImplausiblyShort(main: string | undefined, whole: string | undefined): boolean {
  const kept = wordsOf(main);
  const total = wordsOf(whole);
  if (total === 0) return false;
  return kept === 0 || (total <= 300 && kept * 10 < total);
}

/** What callers pass to `parse()`. */
export type ParseOptions = z.input<typeof parseOptionsSchema>;

/** Largest input `parse()` takes: the /v2/parse upload limit. */
export const maxParseBytes = 50 * 1024 * 1024;

/**
 * Parses a document into markdown (and html, links, images): PDF, DOCX, XLSX, PPTX, ODT, ODS,
 * ODP, EPUB, DOC, XLS and PPT (through LibreOffice, when the machine has it), HTML, CSV, TSV, Markdown, JSON, XML and plain text. The kind comes from the bytes first, then `contentType`,
 * then `filename`.
 *
 * @throws BAD_REQUEST for an empty, unreadable or over-large file; UNSUPPORTED_FILE_TYPE for a
 * kind not handled (yet); CONTENT_TOO_LARGE for a zip bomb; NOT_CONFIGURED for DOC, XLS or PPT
 * without LibreOffice.
 * @example
 * const doc = await parse(await readFile('report.docx'), { filename: 'report.docx' });
 */
export async function parse(
  bytes: Uint8Array,
  options: ParseOptions = {},
  context: ParseContext = {},
): Promise<Document> {
  const resolved = parseOrThrow(parseOptionsSchema, options, 'parse options');
  refuseBrowserOnly(resolved);
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
  const pdfParser = pdfParserSettings(resolved.parsers);
  if (kind === 'pdf' && !pdfParser)
    return {
      // `parsers` without pdf asks for the file as it is.
      rawHtml: Buffer.from(bytes).toString('base64'),
      metadata,
      warning:
        'PDF parsing is off (parsers does not include pdf): the file is returned base64-encoded in rawHtml.',
    };
  const deadline = Date.now() + resolved.timeout;
  const documentHtml = await isolatedToHtml(kind, bytes, {
    deadline,
    ocr: ocrModeOf(pdfParser?.mode ?? 'auto'),
    ...(pdfParser?.maxPages ? { maxPages: pdfParser.maxPages } : {}),
    sofficePath: context.sofficePath ?? context.config?.sofficePath,
    ...(resolved.csv ? { csv: resolved.csv } : {}),
  }).catch((error: unknown) => {
    throw readerError(error, kind);
  });
  const html = documentHtml.html;
  const warnings = [documentHtml.warning];
  // A document is all content: main-content extraction is for web pages.
  const conversionOptions = {
    ...resolved,
    onlyMainContent: kind === 'html' && resolved.onlyMainContent,
    onlyCleanContent: false,
    blockAds: kind === 'html',
  };
  const redaction = prepareConversion(conversionOptions, context.llm !== undefined);
  const config = context.config ?? resolveEngineConfig();
  // On the conversion pool under the request's deadline, as a scraped page converts: an upload
  // is as much the caller's to shape as a page is, selectors and redaction included.
  const convert = (options: typeof conversionOptions) =>
    convertHtmlPooled(html, sourceURL, options, redaction, false, config.convertThreads, deadline);
  let { content, pageMetadata, llmText, warning: readWarning } = await convert(conversionOptions);
  // An uploaded HTML file is the document the caller wants read: when main-content removal took
  // (almost) all of its text, the whole cleaned body is the better answer.
  const textOf = (converted: typeof content) => converted.markdown ?? converted.html;
  if (conversionOptions.onlyMainContent && wordsOf(textOf(content)) < 300) {
    const whole = await convert({ ...conversionOptions, onlyMainContent: false });
    if (isImplausiblyShort(textOf(content), textOf(whole.content))) {
      ({ content, pageMetadata, llmText, warning: readWarning } = whole);
      warnings.push('Main-content extraction left almost nothing; the whole document is returned.');
    }
  }
  warnings.push(readWarning);
  // An uploaded file has no site: a favicon guessed from its file:// address means nothing.
  delete pageMetadata.favicon;
  const pageTitle = typeof pageMetadata.title === 'string' ? pageMetadata.title : undefined;
  const title = pageTitle || resolved.filename;
  const warning = warnings.filter(Boolean).join(' ');
  const document: Document = {
    ...content,
    metadata: {
      ...pageMetadata,
      ...metadata,
      ...(title ? { title } : {}),
      ...(documentHtml.numPages !== undefined ? { numPages: documentHtml.numPages } : {}),
    },
    ...(warning ? { warning } : {}),
  };
  // The LLM formats (json, summary …) read the document as they read a page.
  await enrichDocument(document, resolved, llmText ?? '', context, config);
  return document;
}
