/**
 * Main-content extraction (`onlyMainContent`): keeps what a reader came for and drops the page's
 * furniture. Unlike article extractors that pick one best block (and so lose forum posts, product
 * specs or listing items), this works by removal: find the content root, then strip boilerplate
 * blocks inside it, guarded so that no block holding a large share of the page's text or its main
 * heading is ever removed.
 *
 * Method and measured quality: bench/README.md ("Main content").
 */
import { walkElements, type Element, type ParentNode } from '../dom.ts';
import {
  boilerplateTags,
  removeBoilerplate,
  removeLabelledFurniture,
  removeReadAlsoLines,
} from './furniture.ts';
import { pruneLinkLists } from './link-lists.ts';
import { chooseCandidate } from './choose.ts';
import { isImplausible } from './plausibility.ts';
import { chooseRoot } from './root.ts';
import { isProductPage, removeOtherProducts } from './products.ts';
import { findScoredCandidate } from './scored.ts';
import { computeStats, textLength, updateStatsAfterRemovals, type TextLengths } from './stats.ts';
import { findLead } from './lead.ts';
import { summaryFromHead } from './head-summary.ts';
import { siteOf } from './labelled-lists.ts';
import { trimTrailingBoilerplate } from './paragraphs.ts';
import { contains, withLeading } from './tree.ts';

/**
 * Reduces `body` to its main content, in place, and returns the element to convert, or
 * undefined when the result is not plausibly the page's content (then run `fallbackContent` on
 * a fresh copy of the page). `productNames` are those the page's JSON-LD describes
 * (`productNamesIn`, read before cleaning). The page's main heading (its first `<h1>`) is kept even when it
 * stands outside the content root. `pageUrl` tells links to other sites from the site's own.
 */
export function extractMainContent(
  body: ParentNode,
  pageUrl = '',
  productNames: readonly string[] = [],
): ParentNode | undefined {
  const site = siteOf(pageUrl);
  const heading = findMainHeading(body);
  const lengths: TextLengths = new Map();
  const stats = computeStats(body, lengths);
  const pageStats = stats.get(body as Element);
  const pageText = pageStats?.text ?? 0;
  const pageProse = pageStats ? pageStats.text - pageStats.linkText : 0;
  if (pageText === 0) return summaryFromHead(body) ?? body;

  // The scored candidate is found before any removal, so that no furniture rule can take the
  // page's best prose away (it is protected below).
  const scored = findScoredCandidate(body, stats);
  const keep = scored && (stats.get(scored.top)?.text ?? 0) >= 400 ? scored.top : undefined;

  // Strip furniture page-wide first, so that choosing the root is not misled by a mega-menu.
  const removals = removeBoilerplate(body, stats, pageText, heading, keep);
  updateStatsAfterRemovals(body, stats, lengths, removals);
  if (isProductPage(heading, productNames))
    updateStatsAfterRemovals(body, stats, lengths, removeOtherProducts(body, stats, heading));

  removeLabelledFurniture(body, stats, pageText);
  removeReadAlsoLines(body, stats);
  const root = chooseCandidate(body, chooseRoot(body, stats) ?? body, scored, stats, heading);
  const rootText = stats.get(root as Element)?.text ?? 0;
  pruneLinkLists(root, stats, rootText, heading, site);

  const leading: Element[] = [];
  if (heading && root !== body && !contains(root, heading)) leading.push(heading);
  const lead = root !== body ? findLead(root, stats, heading) : undefined;
  if (lead) leading.push(lead);
  const content = leading.length > 0 ? withLeading(root, leading) : root;
  trimTrailingBoilerplate(content, site);
  return isImplausible(content, { prose: pageProse, text: pageText }, lengths)
    ? undefined
    : content;
}

function findMainHeading(body: ParentNode): Element | undefined {
  let heading: Element | undefined;
  walkElements(body, (element) => {
    if (heading) return false;
    if (boilerplateTags.has(element.name) && element.name !== 'form') return false;
    if (element.name === 'h1' && textLength(element) > 0) {
      heading = element;
      return false;
    }
    return true;
  });
  return heading;
}

export { fallbackContent } from './plausibility.ts';
export { productNamesIn } from './products.ts';
