/**
 * Page metadata from the head: title, description, language, keywords, og:* and twitter:* tags,
 * other named meta tags, favicon and canonical link. Read from the raw tree before cleaning,
 * because cleaning removes `<head>`.
 */
import type { DocumentMetadata } from '../document.ts';
import { collapsedText, walkElements, type HtmlDocument } from './dom.ts';
import { toAbsoluteUrl } from '../internal/url.ts';

/** The page-derived part of `DocumentMetadata`. */
export type PageMetadata = Partial<
  Omit<DocumentMetadata, 'sourceURL' | 'url' | 'statusCode' | 'scrapeId'>
>;

// http-equiv and charset metas describe the transport, not the page: not metadata.
const ignoredMetaNames = new Set(['viewport', 'charset', 'content-type', 'x-ua-compatible']);

/**
 * Bounds on what a page may declare: a `<title>` of megabytes or a million meta tags would
 * otherwise be copied into every result (and every stored and indexed document). A value past
 * the length limit is cut and ends in `…`; meta tags past the count limit are not read.
 */
export const metadataLimits = { maxValueChars: 4096, maxMetaTags: 1000 };

/** `text` cut to the value limit, the cut marked. */
function capped(text: string): string {
  return text.length > metadataLimits.maxValueChars
    ? `${text.slice(0, metadataLimits.maxValueChars)}…`
    : text;
}

/** Everything metadata-like a page declares about itself. */
export interface PageHead {
  metadata: PageMetadata;
  /** `<base href>` resolved against the page URL, when present. */
  baseUrl?: string;
}

/** Reads the page's metadata; `pageUrl` resolves relative icon and canonical links. */
export function readPageHead(dom: HtmlDocument, pageUrl: string): PageHead {
  const metadata: PageMetadata = {};
  let baseUrl: string | undefined;
  let title: string | undefined;
  let icon: { href: string; rank: number } | undefined;
  let metaTags = 0;

  walkElements(dom, (element) => {
    switch (element.name) {
      case 'html': {
        const lang = element.attribs['lang'] ?? element.attribs['xml:lang'];
        if (lang?.trim()) metadata.language = lang.trim();
        return true;
      }
      case 'title':
        // The first <title> wins; SVG titles live inside <svg> which we do not enter.
        title ??= capped(collapsedText(element));
        return false;
      case 'base': {
        const href = element.attribs['href'];
        if (href && baseUrl === undefined) baseUrl = toAbsoluteUrl(href, pageUrl);
        return false;
      }
      case 'meta': {
        const content = element.attribs['content'];
        const name = (
          element.attribs['property'] ??
          element.attribs['name'] ??
          element.attribs['itemprop'] ??
          element.attribs['http-equiv'] ??
          ''
        ).trim();
        if (!name || content === undefined) return false;
        if (++metaTags > metadataLimits.maxMetaTags) return false;
        const key = name.toLowerCase();
        if (ignoredMetaNames.has(key)) return false;
        if (key === 'content-language') {
          metadata.language ??= capped(content.trim());
          return false;
        }
        // Keep og:title-style keys as the page writes them; the reference service does too.
        const previous = metadata[name];
        const value = capped(content.trim());
        if (previous === undefined) metadata[name] = value;
        else if (Array.isArray(previous)) previous.push(value);
        else metadata[name] = [String(previous), value];
        return false;
      }
      case 'link': {
        const rel = (element.attribs['rel'] ?? '').toLowerCase().split(/\s+/);
        const href = element.attribs['href'];
        if (!href) return false;
        if (rel.includes('canonical')) metadata.canonicalUrl ??= toAbsoluteUrl(href, pageUrl);
        const rank = rel.includes('icon')
          ? rel.includes('shortcut')
            ? 1
            : 2
          : rel.includes('apple-touch-icon')
            ? 0
            : -1;
        if (rank >= 0 && (!icon || rank > icon.rank)) icon = { href, rank };
        return false;
      }
      case 'body':
        // Meta tags in the body are rare and usually widgets' own; the head has what we need,
        // and stopping here keeps this pass cheap on large pages.
        return false;
      default:
        return true;
    }
  });

  if (title) metadata.title = title;
  metadata.description ??= stringMeta(metadata['og:description']);
  if (typeof metadata['description'] !== 'string') delete metadata.description;
  if (metadata.title === undefined) {
    const ogTitle = stringMeta(metadata['og:title']);
    if (ogTitle) metadata.title = ogTitle;
  }
  const keywords = metadata['keywords'];
  if (Array.isArray(keywords)) metadata.keywords = keywords.join(', ');
  const favicon = icon
    ? toAbsoluteUrl(icon.href, baseUrl ?? pageUrl)
    : toAbsoluteUrl('/favicon.ico', pageUrl);
  if (favicon) metadata.favicon = favicon;
  return baseUrl === undefined ? { metadata } : { metadata, baseUrl };
}

function stringMeta(value: unknown): string | undefined {
  return typeof value === 'string' ? value : Array.isArray(value) ? String(value[0]) : undefined;
}
