/**
 * Per-element text statistics for main-content extraction, computed bottom-up in one walk.
 */
import { isTag, isText, type AnyNode, type Element, type ParentNode, type Text } from '../dom.ts';
import { visibleLength } from './text-scan.ts';

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
 * of a node does not change between them, and measuring it was most of a pass (issue 17).
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
 * conversion thread (issue 17). The same holds for the other walkers of main-content/.
 */
function statsOf(
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
      const childStats = statsOf(child, inLink || child.name === 'a', stats, lengths);
      total.text += childStats.text;
      total.linkText += childStats.linkText;
      total.paragraphs += childStats.paragraphs;
      total.links += childStats.links + (child.name === 'a' ? 1 : 0);
    }
  }
  if (isTag(node)) {
    const element = node;
    // Text written straight into a container (Blogger posts: text and <br>, no <p>) is prose too.
    if (isProseBlock(element, total) || (!inLink && directText >= 120)) total.paragraphs += 1;
    stats.set(element, total);
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
