/**
 * The format registry: one handler per output format (`formats` in ScrapeOptions). A new format
 * is one new file and one line here.
 */
import type { Document } from '../../document.ts';
import type { RenderRequest } from '../../interfaces/fetcher.ts';
import type { Store } from '../../interfaces/store.ts';
import type { FormatName, FormatSpec } from '../options.ts';
import type { HtmlPage } from '../../convert/page.ts';
import { htmlFormat } from './html.ts';
import { imagesFormat } from './images.ts';
import { linksFormat } from './links.ts';
import { markdownFormat } from './markdown.ts';
import { brandingFormat } from './branding.ts';
import { rawHtmlFormat } from './raw-html.ts';
import { screenshotFormat } from './screenshot.ts';
import { changeTrackingFormat } from './change-tracking.ts';
import { notOffered } from './unavailable.ts';
import type { LlmRunner } from '../../llm/runner.ts';
import { jsonFormat } from './json.ts';
import { summaryFormat } from './summary.ts';
import { questionFormat, queryFormat } from './question.ts';
import { highlightsFormat } from './highlights.ts';
import { attributesFormat } from './attributes.ts';
import { productFormat } from './product.ts';
import { menuFormat } from './menu.ts';

/** What the engine offers a format beyond the page. */
export interface FormatServices {
  /** An LLM provider is configured. */
  hasLlm: boolean;
  /** Where the format sits in the request, for error paths (`['formats', 2]`). */
  path: (string | number)[];
}

/** What a format that needs more than the converted page (a model) reads, after conversion. */
export interface EnrichInput {
  /** Markdown of the page's main content: what a model is shown. */
  text: string;
  /** The model, when one is configured. */
  runner: LlmRunner | undefined;
  /** Warnings to add to the document. */
  warnings: string[];
}

/** What a format that compares with earlier scrapes reads once the document is whole. */
export interface RecallInput {
  /** Where earlier scrapes are remembered; none in a library call without a store. */
  store: Store | undefined;
  /** Whose scrapes these are: one team never sees another's history. */
  team: string;
  /** A zero-data-retention scrape: it leaves no trace, so nothing is remembered of it. */
  zeroDataRetention: boolean;
}

/** Produces one format of a document from a page. */
export interface FormatHandler {
  /**
   * Validates the format's settings and throws a clear error, before any fetch, when this engine
   * cannot produce the format (no LLM configured …).
   */
  ensureAvailable?(format: FormatSpec, services: FormatServices): void;
  /** Asynchronous work after conversion: LLM calls. Model failures become warnings. */
  enrich?(input: EnrichInput, document: Document, format: FormatSpec): Promise<void>;
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
  /**
   * The format compares the live page with what was scraped before, so a cached copy would
   * answer the wrong question: the page cache is not read when it is asked for.
   */
  readonly needsLivePage?: boolean;
  /** Last step, on the whole document: compare it with the store's memory and move that on. */
  recall?(input: RecallInput, document: Document, format: FormatSpec): Promise<void>;
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
  json: jsonFormat,
  summary: summaryFormat,
  question: questionFormat,
  query: queryFormat,
  highlights: highlightsFormat,
  product: productFormat,
  menu: menuFormat,
  changeTracking: changeTrackingFormat,
  attributes: attributesFormat,
  audio: notOffered('audio'),
  video: notOffered('video'),
  rawBase64: notOffered('rawBase64'),
};

/**
 * Checks every requested format before any work starts.
 * @throws BAD_REQUEST, CAPABILITY_UNAVAILABLE, NOT_CONFIGURED
 */
export function ensureFormatsAvailable(formats: readonly FormatSpec[], hasLlm = false): void {
  formats.forEach((format, index) =>
    formatHandlers[format.type].ensureAvailable?.(format, { hasLlm, path: ['formats', index] }),
  );
}
