/**
 * The format registry: one handler per output format (`formats` in ScrapeOptions). A new format
 * is one new file and one line here.
 */
import type { Document } from '../../document.ts';
import type { FormatName, FormatSpec } from '../options.ts';
import type { HtmlPage } from '../page.ts';
import { htmlFormat } from './html.ts';
import { imagesFormat } from './images.ts';
import { linksFormat } from './links.ts';
import { markdownFormat } from './markdown.ts';
import { rawHtmlFormat } from './raw-html.ts';
import { needsBrowser, needsChangeTracking, needsLlm, notOffered } from './unavailable.ts';

/** Produces one format of a document from a page. */
export interface FormatHandler {
  /** Throws a clear error, before any fetch, when this engine cannot produce the format. */
  ensureAvailable?(format: FormatSpec): void;
  /** The format reads the whole page before cleaning (links, images). */
  readonly pageWide?: 'links' | 'images';
  /** Writes the format's field on the document. */
  apply(page: HtmlPage, document: Document, format: FormatSpec): void;
}

/** Every format by name. */
export const formatHandlers: Record<FormatName, FormatHandler> = {
  markdown: markdownFormat,
  html: htmlFormat,
  rawHtml: rawHtmlFormat,
  links: linksFormat,
  images: imagesFormat,
  screenshot: needsBrowser('screenshot'),
  branding: needsBrowser('branding'),
  json: needsLlm('json'),
  summary: needsLlm('summary'),
  question: needsLlm('question'),
  highlights: needsLlm('highlights'),
  product: needsLlm('product'),
  menu: needsLlm('menu'),
  changeTracking: needsChangeTracking,
  attributes: notOffered('attributes'),
  audio: notOffered('audio'),
  video: notOffered('video'),
  rawBase64: notOffered('rawBase64'),
};

/** Checks every requested format before any work starts. @throws CAPABILITY_UNAVAILABLE, NOT_CONFIGURED */
export function ensureFormatsAvailable(formats: readonly FormatSpec[]): void {
  for (const format of formats) formatHandlers[format.type].ensureAvailable?.(format);
}
