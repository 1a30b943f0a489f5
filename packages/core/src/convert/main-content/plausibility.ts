/**
 * The last word on an extraction: is the chosen text plausibly the page's content? A content
 * root picked wrong (a logo link, a "Log in" bar, a teaser list) gives near-empty or link-only
 * markdown, and nothing before this point notices. Judged against what the page offered a reader
 * before any removal: its prose (text outside links).
 */
import { detach, isTag, walkElements, type Element, type ParentNode } from '../dom.ts';
import { isOverlayOrConsent } from './furniture.ts';
import { findGoodProse, findGoodProseHolder } from './good-prose.ts';
import { trimTrailingBoilerplate } from './paragraphs.ts';
import { findScoredCandidate } from './scored.ts';
import { summaryFromHead } from './head-summary.ts';
import { computeStats, type TextLengths, type TextStats } from './stats.ts';

/** What the page offered before extraction. */
export interface PageProse {
  /** Characters of text outside links, over the whole cleaned page. */
  prose: number;
  /** Characters of text, links included, over the whole cleaned page. */
  text: number;
}

// Below this many characters, a result is "near-empty" whatever the page.
const nearEmpty = 200;

/**
 * True when `root` holds too little of the page's prose to be its content: near-empty while the
 * page has several times more to read, or a small share of a page that is mostly prose.
 */
export function isImplausible(root: ParentNode, page: PageProse, lengths?: TextLengths): boolean {
  const stats = computeStats(root, lengths);
  const own = stats.get(root as Element);
  const text = own?.text ?? 0;
  const prose = own ? own.text - own.linkText : 0;
  // Nothing at all is never the content of a page that shows something, even if only links
  // (an article its scripts fill in): the reader gets the page rather than an empty answer.
  if (text === 0) return page.text > 0;
  if (page.prose < nearEmpty) return false;
  if (text < nearEmpty) return page.prose >= nearEmpty * 2;
  // Mostly links, while the page has real prose elsewhere: a teaser list or a menu was taken.
  if (prose < text * 0.3 && page.prose > prose * 4) return true;
  return prose < page.prose * 0.1 && prose < 500;
}

// Furniture by tag or role alone: the only removal the fallback trusts.
const furnitureTags = new Set(['nav', 'header', 'footer', 'aside', 'menu']);
const furnitureRoles = new Set(['navigation', 'banner', 'contentinfo', 'complementary', 'search']);

/**
 * The fallback for a page whose extraction was implausible, run on a fresh, cleaned copy of the
 * page: the scored candidate when it holds a fair share of the prose, else the whole page less
 * its navigation, header, footer and asides. Never empty when the page has text.
 */
export function fallbackContent(body: ParentNode): ParentNode {
  const stats = computeStats(body);
  const own = stats.get(body as Element);
  const pageProse = own ? own.text - own.linkText : 0;
  if (!own || own.text === 0) return summaryFromHead(body) ?? body;
  const scored = findScoredCandidate(body, stats);
  // The paragraph classifier's second opinion: the scored candidate must hold the page's good
  // prose, else the block that does is the content (song lyrics in short lines score little,
  // and a sidebar's support box and archive outscore them).
  const good = findGoodProse(body);
  const goodTotal = good.within.get(body) ?? 0;
  // The top alone: it is what this fallback returns.
  const scoredGood = scored ? (good.within.get(scored.top) ?? 0) : 0;
  if (goodTotal >= nearEmpty && scoredGood < goodTotal * 0.5) {
    const holder = findGoodProseHolder(good, body, (node) => stats.get(node as Element)?.text ?? 0);
    if (holder && holder !== body) {
      trimTrailingBoilerplate(holder);
      return holder;
    }
  }
  if (scored) {
    const prose = scored.members.reduce((total, member) => total + proseOf(stats, member), 0);
    if (prose >= pageProse * 0.3 && prose >= nearEmpty) return scored.top;
  }
  const doomed: Element[] = [];
  walkElements(body, (element) => {
    const role = element.attribs['role'];
    // A dialog or a consent manager goes whatever share of the page it holds.
    if (isOverlayOrConsent(element)) {
      doomed.push(element);
      return false;
    }
    const isFurniture =
      furnitureTags.has(element.name) || (role !== undefined && furnitureRoles.has(role));
    // Keep a furniture block that holds most of the page's prose: it is the content. Blocks of
    // links without prose go too: a page that reaches the fallback has prose to show instead.
    const s = stats.get(element);
    const isLinkBlock =
      s !== undefined && s.links >= 3 && s.paragraphs === 0 && s.linkText > s.text * 0.8;
    if ((isFurniture || isLinkBlock) && proseOf(stats, element) < pageProse * 0.5) {
      doomed.push(element);
      return false;
    }
    return true;
  });
  const before = own?.text ?? 0;
  const removed = doomed.reduce((total, element) => total + (stats.get(element)?.text ?? 0), 0);
  // If the furniture was everything, the page is its furniture: keep it whole.
  if (removed < before) for (const element of doomed) detach(element);
  return body;
}

function proseOf(stats: Map<Element, TextStats>, element: Element): number {
  const s = stats.get(element);
  return s && isTag(element) ? s.text - s.linkText : 0;
}
