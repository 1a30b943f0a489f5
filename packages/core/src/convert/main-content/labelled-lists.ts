/**
 * A labelled list of links to other sites: a short line ending in a colon ("Empfehlungen von
 * Dennis:", "Sources:", "Ingredients from:") and a list right after it whose every link leaves
 * the page's site. The author's own selection — products, sources, tools — is part of the text;
 * the lists that are furniture ("More on this:", "Read also:") lead to the site's own pages.
 */
import { collapsedText, isTag, isText, walkElements, type Element } from '../dom.ts';

// A label is a line, not a sentence that happens to end in a colon before a list.
const maxLabelLength = 100;

/**
 * The site of a page or link: its host without `www.`, reduced to the last two labels (three
 * when those two are short, as in `co.uk` or `com.au`), so that a blog's subdomain counts as
 * the same site. Undefined for what is not an http(s) URL.
 */
export function siteOf(url: string): string | undefined {
  if (!URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
  const labels = parsed.hostname.split('.');
  const shortPair = labels.length >= 3 && labels.slice(-2).every((label) => label.length <= 3);
  return labels.slice(shortPair ? -3 : -2).join('.');
}

/** True when every link of `list` leaves `site`, and it has at least one. */
function linksLeave(list: Element, site: string): boolean {
  let links = 0;
  let leaving = 0;
  walkElements(list, (element) => {
    if (element.name !== 'a') return true;
    links++;
    const target = siteOf(element.attribs['href'] ?? '');
    if (target !== undefined && target !== site) leaving++;
    return false;
  });
  return links > 0 && leaving === links;
}

/** The element right before `element`, when only white space stands between them. */
function previousElement(element: Element): Element | undefined {
  for (let node = element.prev; node; node = node.prev) {
    if (isTag(node)) return node;
    if (isText(node) && node.data.trim() !== '') return undefined;
  }
  return undefined;
}

/**
 * True when `element` is a `<ul>` or `<ol>` introduced by a short label ending in a colon, all
 * of whose links leave `site` (the page's, from `siteOf`). Never without a site to compare.
 */
export function isLabelledOffSiteList(element: Element, site: string | undefined): boolean {
  if (site === undefined || (element.name !== 'ul' && element.name !== 'ol')) return false;
  const label = previousElement(element);
  if (!label) return false;
  const text = collapsedText(label).trim();
  if (text.length === 0 || text.length > maxLabelLength || !text.endsWith(':')) return false;
  return linksLeave(element, site);
}
