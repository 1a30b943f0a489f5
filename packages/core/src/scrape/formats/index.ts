/**
 * The format registry: one handler per output format (`formats` in ScrapeOptions). A new format
 * is one new file and one line here.
 */
import type { Document } from '../../document.ts';
import type { RenderRequest } from '../../interfaces/fetcher.ts';
import type { FormatName, FormatSpec } from '../options.ts';
import type { HtmlPage } from '../page.ts';
import { htmlFormat } from './html.ts';
import { imagesFormat } from './images.ts';
import { linksFormat } from './links.ts';
import { markdownFormat } from './markdown.ts';
import { brandingFormat } from './branding.ts';
import { rawHtmlFormat } from './raw-html.ts';
import { screenshotFormat } from './screenshot.ts';
import { changeTrackingFormat } from './change-tracking.ts';
import { needsLlm, notOffered } from './unavailable.ts';

/** Produces one format of a document from a page. */
export interface FormatHandler {
  /** Throws a clear error, before any fetch, when this engine cannot produce the format. */
  ensureAvailable?(format: FormatSpec): void;
  /** The format reads the whole page before cleaning (links, images). */
  readonly pageWide?: 'links' | 'images';
  /** Writes the format's field on the document from the converted page. */
  apply?(page: HtmlPage, document: Document, format: FormatSpec): void;
  /**
   * What the format asks of the browser (a screenshot, computed styles): such a format needs a
   * live page and makes the engine render it. Validates the format's settings (BAD_REQUEST).
   */
  render?(format: FormatSpec): Partial<RenderRequest>;
  /** Writes the format's field from what the browser captured (files already as URLs). */
  applyRendered?(rendered: RenderedFields, document: Document): void;
}

/** Browser captures as they land in a Document: files as URLs (server) or data URIs (library). */
export interface RenderedFields {
  screenshot?: string;
  branding?: Record<string, unknown>;
}

/** Every format by name. */
export const formatHandlers: Record<FormatName, FormatHandler> = {
  markdown: markdownFormat,
  html: htmlFormat,
  rawHtml: rawHtmlFormat,
  links: linksFormat,
  images: imagesFormat,
  screenshot: screenshotFormat,
  branding: brandingFormat,
  json: needsLlm('json'),
  summary: needsLlm('summary'),
  question: needsLlm('question'),
  highlights: needsLlm('highlights'),
  product: needsLlm('product'),
  menu: needsLlm('menu'),
  changeTracking: changeTrackingFormat,
  attributes: notOffered('attributes'),
  audio: notOffered('audio'),
  video: notOffered('video'),
  rawBase64: notOffered('rawBase64'),
};

/** Checks every requested format before any work starts. @throws CAPABILITY_UNAVAILABLE, NOT_CONFIGURED */
export function ensureFormatsAvailable(formats: readonly FormatSpec[]): void {
  for (const format of formats) formatHandlers[format.type].ensureAvailable?.(format);
}
