/**
 * Link lists inside the content root: tag clouds, "more in this section", link farms. Dropped
 * unless they are the content (the items of a listing).
 */
import { isTag, type Element, type ParentNode } from '../dom.ts';
import { furnitureNames } from './furniture-names.ts';
import { isCardLink, type TextStats } from './stats.ts';
import { isLabelledOffSiteList } from './labelled-lists.ts';
import { contains, countHeadings, removeWhere, type Verdict } from './tree.ts';

const itemTags = new Set(['li', 'article', 'tr']);

/**
 * Three or more siblings of the same tag and class: an item of a collection (cards, results).
 * Bare <p> and <div> siblings are everywhere, so they need a class to count.
 */
function isRepeatedItem(element: Element): boolean {
  const signature = element.attribs['class'] ?? '';
  if (!signature && !itemTags.has(element.name)) return false;
  let count = 0;
  for (const sibling of element.parent?.children ?? []) {
    if (
      isTag(sibling) &&
      sibling.name === element.name &&
      (sibling.attribs['class'] ?? '') === signature
    )
      count++;
    if (count >= 3) return true;
  }
  return false;
}

const teaserName = /(?:^|[\s_-])teaser(?:$|[\s_-]|\d)/;

/**
 * A teaser: a block named so whose link leads to another story ("ICE im S-Bahn-Takt", a card
 * set in the body). A lone one inside an article points away from it; a listing's teasers come
 * three or more in a row and are kept above as items of a collection.
 */
function isTeaser(element: Element, stats: TextStats, rootText: number): boolean {
  // A teaser is often one big link: the <a> is the card, whose text counts as read, not clicked
  // (stats.ts), yet here it points away from the story like any link.
  const links = stats.links + (element.name === 'a' ? 1 : 0);
  const card = isCardLink(element) || element.children.some((c) => isTag(c) && isCardLink(c));
  if (links === 0 || stats.text >= rootText * 0.2) return false;
  if (!card && stats.linkText < stats.text * 0.3) return false;
  return teaserName.test(furnitureNames(element));
}

const linkListTags = new Set(['ul', 'ol', 'div', 'section', 'table', 'dl', 'p']);

/**
 * Drops blocks that are mostly links and hold no prose (tag clouds, "more in this section", link
 * farms) — unless they are a large share of the content, as the items of a listing page are, or
 * a labelled list of links to other sites (`site`: the page's, from `siteOf`).
 */
export function pruneLinkLists(
  root: ParentNode,
  stats: Map<Element, TextStats>,
  rootText: number,
  heading: Element | undefined,
  site: string | undefined,
): void {
  removeWhere(root, judgeLinkList, { stats, rootText, heading, site });
}

/** What pruneLinkLists decides for one element (a function of the module: see tree.ts). */
function judgeLinkList(
  element: Element,
  {
    stats,
    rootText,
    heading,
    site,
  }: {
    stats: Map<Element, TextStats>;
    rootText: number;
    heading: Element | undefined;
    site: string | undefined;
  },
): Verdict {
  const elementStats = stats.get(element);
  if (!elementStats) return 'descend';
  // Items of a collection are judged together, by their list: never one card at a time.
  if (isRepeatedItem(element)) return 'keep';
  if (isTeaser(element, elementStats, rootText) && !(heading && contains(element, heading)))
    return 'remove';
  if (!linkListTags.has(element.name)) return 'descend';
  if (isLabelledOffSiteList(element, site)) return 'keep';
  if (elementStats.text === 0 || elementStats.paragraphs > 0) return 'descend';
  if (heading && contains(element, heading)) return 'descend';
  // One or two links (a title, an author) are not a link list.
  if (elementStats.links < 3) return 'descend';
  const density = elementStats.linkText / elementStats.text;
  if (density <= 0.75) return 'descend';
  // A link-dense block that is a large share of the content is the content (a listing): keep
  // it whole rather than pruning its groups one by one.
  if (elementStats.text >= rootText * 0.4 || countHeadings(element) >= 2) return 'keep';
  return 'remove';
}
