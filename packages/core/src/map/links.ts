/**
 * Link-only reading of an HTML page for map: one streaming pass with htmlparser2 that keeps the
 * links, the title and the description, and builds no tree and no markdown.
 */
import { Parser } from 'htmlparser2';
import { toAbsoluteUrl } from '../internal/url.ts';

/** What map needs from a page. */
export interface PageLinks {
  links: string[];
  title?: string;
  description?: string;
}

/** Reads links (resolved against `<base href>` or `pageUrl`), title and description. */
export function readLinks(html: string, pageUrl: string): PageLinks {
  let base = pageUrl;
  const hrefs: string[] = [];
  let title: string | undefined;
  let inTitle = false;
  let description: string | undefined;
  let ogDescription: string | undefined;
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (name === 'a' && attributes['href'] !== undefined) hrefs.push(attributes['href']);
        else if (name === 'base' && attributes['href'] && hrefs.length === 0) {
          base = toAbsoluteUrl(attributes['href'], pageUrl) ?? base;
        } else if (name === 'title' && title === undefined) {
          inTitle = true;
          title = '';
        } else if (name === 'meta') {
          const key = (attributes['name'] ?? attributes['property'] ?? '').toLowerCase();
          if (key === 'description') description ??= attributes['content'];
          if (key === 'og:description') ogDescription ??= attributes['content'];
        }
      },
      ontext(text) {
        if (inTitle) title += text;
      },
      onclosetag(name) {
        if (name === 'title') inTitle = false;
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.end(html);
  const links: string[] = [];
  for (const href of hrefs) {
    const absolute = toAbsoluteUrl(href, base);
    if (absolute && /^https?:/.test(absolute)) links.push(absolute);
  }
  const result: PageLinks = { links };
  const cleanTitle = title?.replace(/\s+/g, ' ').trim();
  if (cleanTitle) result.title = cleanTitle;
  const cleanDescription = (description ?? ogDescription)?.replace(/\s+/g, ' ').trim();
  if (cleanDescription) result.description = cleanDescription;
  return result;
}
