/**
 * What a fetched body is and how it becomes a page: HTML decoded by its charset, a document
 * (PDF, DOCX, XLSX …) turned into HTML, anything binary refused; and a cached page converted by
 * its kind.
 */
import { ContentTooLargeError, TimeoutError, UnsupportedTypeError } from '../errors.ts';
import type { FetchResponse } from '../interfaces/fetcher.ts';
import { detectKind, type FileKind } from '../convert/detect.ts';
import { toHtml, type DocumentHtml } from '../convert/to-html.ts';
import { withoutUserinfo } from '../internal/url.ts';
import type { CachedPage } from './cache.ts';
import type { Conversion } from './convert.ts';
import { convertHtmlPooled, convertTextPooled } from './convert-pool.ts';
import { decodeHtml } from '../convert/decode.ts';
import { ocrModeOf, pdfParserSettings, type ResolvedScrapeOptions } from './options.ts';
import type { Redaction } from '../convert/redact.ts';

export async function toCachedPage(
  response: FetchResponse,
  requested: URL,
  options: ResolvedScrapeOptions,
  startedAt: number,
): Promise<CachedPage> {
  const contentType = response.headers['content-type'];
  const documentKind = detectDocument(response.body, contentType, response.url);
  if (documentKind) {
    const pdfParser = pdfParserSettings(options.parsers);
    if (documentKind === 'pdf' && !pdfParser)
      throw new UnsupportedTypeError(
        `${requested.href} is a PDF and parsers leaves pdf out: add 'pdf' to parsers to read it`,
        { details: { contentType: contentType ?? null, kind: documentKind } },
      );
    // A document is parsed once, at fetch time; the cache keeps its HTML, like a page's.
    let parsed: DocumentHtml;
    try {
      parsed = await toHtml(documentKind, response.body, {
        deadline: startedAt + options.timeout,
        ocr: ocrModeOf(pdfParser?.mode ?? 'auto'),
        ...(pdfParser?.maxPages ? { maxPages: pdfParser.maxPages } : {}),
      });
    } catch (error) {
      if (error instanceof ContentTooLargeError || error instanceof TimeoutError) throw error;
      // The file is the site's, not the caller's: an unreadable one is not a bad request.
      throw new UnsupportedTypeError(`${requested.href}: ${(error as Error).message}`, {
        cause: error,
        details: { contentType: contentType ?? null, kind: documentKind },
      });
    }
    return {
      url: withoutUserinfo(response.url.href),
      status: response.status,
      contentType: 'text/html; charset=utf-8',
      text: parsed.html,
      charset: 'utf-8',
      fetchedAt: Date.now(),
      parsedFrom: documentKind,
      ...(parsed.numPages !== undefined ? { numPages: parsed.numPages } : {}),
      ...(parsed.warning ? { warning: parsed.warning } : {}),
      ...(pdfParser?.maxPages !== undefined ? { partial: true } : {}),
    };
  }
  const kind = classifyBody(contentType, response.body);
  if (kind.type === 'unsupported') {
    throw new UnsupportedTypeError(`${requested.href} ${kind.reason}`, {
      details: { contentType: contentType ?? null },
    });
  }
  const decoded = decodeHtml(response.body, contentType);
  // The page's URL is the base its links resolve against: a password in it would be in each.
  const page: CachedPage = {
    url: withoutUserinfo(response.url.href),
    status: response.status,
    contentType,
    text: decoded.text,
    charset: decoded.charset,
    fetchedAt: Date.now(),
  };
  if (decoded.charset === 'utf-8') decodedFrom.set(page, response.body);
  return page;
}

/**
 * The UTF-8 bytes a fetched page's text was decoded from, for the conversion thread to take
 * instead of the text encoded again (convert-pool.ts). Beside the page, not in it: the page cache
 * stores the page as JSON, and a page read back from it has no bytes.
 */
const decodedFrom = new WeakMap<CachedPage, Uint8Array>();

const encoder = new TextEncoder();

type BodyKind =
  { type: 'html' } | { type: 'text'; language: string } | { type: 'unsupported'; reason: string };

const documentTypes =
  /^application\/(?:pdf|msword|vnd\.openxmlformats|vnd\.ms-|vnd\.oasis|rtf|epub)/;

/**
 * The document kind of a response, when it is a document: by content type, by a document's
 * magic bytes (PDF, ZIP packages), or by a document extension on a binary response.
 */
function detectDocument(
  body: Uint8Array,
  contentType: string | undefined,
  url: URL,
): FileKind | undefined {
  const mime = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const magic = body.length >= 4 && (body[0] === 0x25 || body[0] === 0x50);
  if (!documentTypes.test(mime) && !magic) return undefined;
  const kind = detectKind(body, mime, url.pathname);
  const documentKinds: FileKind[] = ['pdf', 'docx', 'xlsx', 'pptx', 'odt', 'ods', 'odp', 'epub'];
  if (documentKinds.includes(kind)) return kind;
  // A document content type on bytes we cannot place: say so rather than show binary.
  return documentTypes.test(mime) ? 'unknown' : undefined;
}

function classifyBody(contentType: string | undefined, body: Uint8Array): BodyKind {
  const mime = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (documentTypes.test(mime)) {
    return {
      type: 'unsupported',
      reason: `is a document (${mime}): documents are read by the parse capability, which this Trawl build does not include yet`,
    };
  }
  if (looksBinary(body)) {
    return {
      type: 'unsupported',
      reason: `returned binary content${mime ? ` (served as ${mime})` : ''}, which cannot be turned into a document`,
    };
  }
  if (mime === 'text/html' || mime === 'application/xhtml+xml' || mime === '') {
    return mime === '' && !/^\s*</.test(new TextDecoder().decode(body.subarray(0, 512)))
      ? { type: 'text', language: '' }
      : { type: 'html' };
  }
  if (mime === 'application/json' || mime.endsWith('+json'))
    return { type: 'text', language: 'json' };
  if (mime.endsWith('/xml') || mime.endsWith('+xml')) return { type: 'text', language: 'xml' };
  if (mime === 'text/markdown' || mime === 'text/x-markdown')
    return { type: 'text', language: 'markdown' };
  if (mime.startsWith('text/')) return { type: 'text', language: '' };
  return { type: 'unsupported', reason: `is ${mime}, which cannot be turned into a document` };
}

/** NUL bytes or many control characters in the first 4 KiB: not text, whatever the header says. */
function looksBinary(body: Uint8Array): boolean {
  const sample = body.subarray(0, 4096);
  if (sample.length === 0) return false;
  let suspicious = 0;
  for (const byte of sample) {
    if (byte === 0) return true;
    if (byte < 32 && byte !== 9 && byte !== 10 && byte !== 13 && byte !== 12 && byte !== 27)
      suspicious++;
  }
  return suspicious / sample.length > 0.1;
}

/** Where an HTML page converts: the pool's size (0: on this thread) and the page's deadline. */
export interface ConversionPlace {
  threads: number;
  /** Epoch ms. */
  deadline: number;
}

/** Converts a cached page by its kind, HTML or text, on the conversion pool. */
export async function convertByType(
  page: CachedPage,
  options: ResolvedScrapeOptions,
  redaction: Redaction | undefined,
  collectLinks: boolean,
  place: ConversionPlace,
): Promise<Conversion> {
  const kind = classifyBody(page.contentType, encoder.encode(page.text.slice(0, 512)));
  const convert = (conversionOptions: ResolvedScrapeOptions) =>
    convertHtmlPooled(
      page.text,
      page.url,
      conversionOptions,
      redaction,
      collectLinks,
      place.threads,
      place.deadline,
      decodedFrom.get(page),
    );
  // A parsed document is all content: main-content extraction is for web pages.
  if (page.parsedFrom) return convert({ ...options, onlyMainContent: false });
  if (kind.type !== 'text') return convert(options);
  // A text response is its own content; redacting it is work for the pool, like a page's.
  return convertTextPooled(
    page.text,
    kind.language,
    options,
    redaction,
    place.threads,
    place.deadline,
  );
}
