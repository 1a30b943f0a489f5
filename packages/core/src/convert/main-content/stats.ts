/**
 * Per-element text statistics for main-content extraction, computed bottom-up in one walk.
 */
import { isTag, isText, type AnyNode, type Element, type ParentNode, type Text } from '../dom.ts';
import { visibleLength } from './text-scan.ts';
import type { Removal } from './tree.ts';

/** Per-element text statistics, computed once per extraction, bottom-up. */
export interface TextStats {
  /** Characters of visible text (white space runs count as one). */
  text: number;
  /** Characters of that text inside links. */
  linkText: number;
  /** Paragraph-like blocks with real prose (a sentence-sized text run). */
  paragraphs: number;
  /** Links (`<a>` elements) inside. */
  links: number;
}

export function textLength(node: AnyNode): number {
  if (isText(node)) return node.data.trim().length;
  if (!isTag(node)) return 0;
  let total = 0;
  for (const child of node.children) total += textLength(child);
  return total;
}

/**
 * Visible lengths of text nodes, kept across the statistics passes of one extraction: the text
 * of a node does not change between them, and measuring it was most of a pass.
 */
export type TextLengths = Map<Text, number>;

export function computeStats(
  root: ParentNode,
  lengths: TextLengths = new Map(),
): Map<Element, TextStats> {
  const stats = new Map<Element, TextStats>();
  const rootStats = statsOf(root, false, stats, lengths);
  // The body itself may be a plain container (includeTags) — record it too.
  stats.set(root as Element, rootStats);
  return stats;
}

/**
 * The statistics of `node`, recorded for it and every element below it into `stats`. A function
 * of the module, not a closure per call: V8 keeps a closure's optimised code only while that
 * closure lives, so a walker made per page was compiled again after every full GC of the
 * conversion thread. The same holds for the other walkers of main-content/.
 */
function statsOf(
  node: ParentNode,
  inLink: boolean,
  stats: Map<Element, TextStats>,
  lengths: TextLengths,
): TextStats {
  for (const child of node.children) {
    if (isTag(child)) statsOf(child, inLink || isPlainLink(child), stats, lengths);
  }
  const total = sumOfChildren(node, inLink, stats, lengths);
  if (isTag(node)) stats.set(node, total);
  return total;
}

/**
 * Brings `stats` (computed on `root`) up to date after `removals`: what was removed loses its
 * entries, and each element above a removal is summed again from its children, deepest first.
 * The result equals `computeStats(root)` on the tree as it now stands; a full pass after
 * removing the page's furniture was a third of what the statistics cost a crawl.
 */
export function updateStatsAfterRemovals(
  root: ParentNode,
  stats: Map<Element, TextStats>,
  lengths: TextLengths,
  removals: readonly Removal[],
): void {
  if (removals.length === 0) return;
  // Each element above a removal, by its distance below `root`.
  const depths = new Map<ParentNode, number>();
  for (const { element, parent } of removals) {
    forgetSubtree(element, stats);
    const chain = ancestorsUpTo(parent, root) ?? [];
    for (let index = 0; index < chain.length; index++) {
      depths.set(chain[index]!, chain.length - 1 - index);
    }
  }
  const dirty = [...depths.keys()].sort((a, b) => depths.get(b)! - depths.get(a)!);
  for (const node of dirty) {
    stats.set(node as Element, sumOfChildren(node, isInLink(node, root), stats, lengths));
  }
}

/** `node` and its ancestors up to `root`, nearest first; undefined when `root` is not one. */
function ancestorsUpTo(node: ParentNode, root: ParentNode): ParentNode[] | undefined {
  const chain: ParentNode[] = [];
  for (let current: ParentNode | null = node; current; current = current.parent) {
    chain.push(current);
    if (current === root) return chain;
  }
  // A parent that was itself taken out (or lies outside `root`) needs nothing.
  return undefined;
}

function forgetSubtree(element: Element, stats: Map<Element, TextStats>): void {
  stats.delete(element);
  for (const child of element.children) if (isTag(child)) forgetSubtree(child, stats);
}

/** Whether statsOf counted the text directly in `node` as link text. */
function isInLink(node: ParentNode, root: ParentNode): boolean {
  for (
    let current: ParentNode | null = node;
    current && current !== root;
    current = current.parent
  ) {
    if (isTag(current) && isPlainLink(current)) return true;
  }
  return false;
}

// What a card link wraps besides its title: a summary paragraph.
const cardTextTags = new Set(['p', 'h2', 'h3', 'h4', 'h5', 'h6']);

/**
 * A link whose text is link text. A card, an `<a>` wrapping a title and a summary paragraph (a
 * listing's items, a news index's stories), is a whole item made clickable: its text is read,
 * not clicked, and a listing made of such cards has prose like any page.
 */
function isPlainLink(element: Element): boolean {
  if (element.name !== 'a') return false;
  return !isCardLink(element);
}

// Decided once per element, on the page as written: removals inside a card later (its summary
// taken as furniture) do not turn its remaining text into link text between two passes.
const cardLinks = new WeakMap<Element, boolean>();

/** An `<a>` wrapping a title and a summary: a listing's or a teaser's whole item. */
export function isCardLink(element: Element): boolean {
  if (element.name !== 'a') return false;
  let card = cardLinks.get(element);
  if (card === undefined) {
    card = wrapsTitleAndSummary(element);
    cardLinks.set(element, card);
  }
  return card;
}

function wrapsTitleAndSummary(element: Element): boolean {
  const count = { paragraphs: 0 };
  countTextBlocks(element, 0, count);
  return count.paragraphs >= 2;
}

// How deep below a link its title and summary are looked for: CMS cards wrap them in a column
// and a field (`a > div.listing-right > div.field > p`).
const cardDepth = 4;

/**
 * Counts the paragraphs and headings below `node`, through wrapping divs and spans. A menu link
 * wraps one label, maybe with a subtitle in spans; a card wraps a title and a summary.
 */
function countTextBlocks(node: Element, depth: number, count: { paragraphs: number }): void {
  for (const child of node.children) {
    if (!isTag(child)) continue;
    if (cardTextTags.has(child.name)) count.paragraphs++;
    else if ((child.name === 'div' || child.name === 'span') && depth < cardDepth)
      countTextBlocks(child, depth + 1, count);
    if (count.paragraphs >= 2) return;
  }
}

/** The statistics of one node from its text and its child elements' entries in `stats`. */
function sumOfChildren(
  node: ParentNode,
  inLink: boolean,
  stats: Map<Element, TextStats>,
  lengths: TextLengths,
): TextStats {
  const total: TextStats = { text: 0, linkText: 0, paragraphs: 0, links: 0 };
  let directText = 0;
  for (const child of node.children) {
    if (isText(child)) {
      let length = lengths.get(child);
      if (length === undefined) {
        length = visibleLength(child.data);
        lengths.set(child, length);
      }
      total.text += length;
      directText += length;
      if (inLink) total.linkText += length;
    } else if (isTag(child)) {
      const childStats = stats.get(child);
      if (!childStats) continue;
      total.text += childStats.text;
      total.linkText += childStats.linkText;
      total.paragraphs += childStats.paragraphs;
      total.links += childStats.links + (child.name === 'a' ? 1 : 0);
    }
  }
  // Text written straight into a container (Blogger posts: text and <br>, no <p>) is prose too.
  if (isTag(node) && (isProseBlock(node, total) || (!inLink && directText >= 120))) {
    total.paragraphs += 1;
  }
  return total;
}

export function isProseBlock(element: Element, stats: TextStats): boolean {
  if (
    element.name !== 'p' &&
    element.name !== 'pre' &&
    element.name !== 'blockquote' &&
    element.name !== 'li' &&
    element.name !== 'td' &&
    element.name !== 'dd'
  ) {
    return false;
  }
  return stats.text >= 80 && stats.linkText / stats.text < 0.5;
}
