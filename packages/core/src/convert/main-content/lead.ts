/**
 * The standfirst: a summary paragraph set in its own block just before the article body
 * (`teaser-text`, `article-lead`, `chapo`, `itemprop="description"`). A root found by its name
 * (`articleBody`) or by its prose leaves it outside, yet it is the first thing a reader reads.
 * Many standfirsts have no telling name (a bare `<p>` in the article header): those are known by
 * where they stand, between the title and the text.
 */
import { collapsedText, isTag, type Element, type ParentNode } from '../dom.ts';
import { furnitureNames } from './furniture-names.ts';
import type { TextStats } from './stats.ts';
import { contains } from './tree.ts';

const leadName =
  /(?:^|[\s_-])(?:lead|lede|intro|standfirst|teaser-text|summary|abstract|chapo|excerpt|deck|dek|subline|description)(?:$|[\s_-])/;
const leadItemprop = new Set(['description', 'abstract', 'alternativeHeadline']);

// The last character of a sentence, a closing quote after one counted.
const sentenceEnd = /[.!?…"“”»]$/;

// How far up from the root, and how many blocks back at each level, a lead is looked for.
const levels = 3;
const siblingsBack = 3;

/**
 * The lead block that stands before `root` (a preceding sibling of the root or of one of its
 * close ancestors), or undefined. A lead is prose: short, few links, smaller than the root.
 */
export function findLead(
  root: ParentNode,
  stats: Map<Element, TextStats>,
  heading: Element | undefined,
): Element | undefined {
  if (!isTag(root)) return undefined;
  const rootText = stats.get(root)?.text ?? 0;
  // An unnamed prose block counts only once the heading is found before it: it then stands
  // between the title and the text, where a standfirst stands.
  let unnamed: Element | undefined;
  let node: Element = root;
  for (let level = 0; level < levels; level++) {
    let sibling = node.prev;
    for (let seen = 0; sibling && seen < siblingsBack; sibling = sibling.prev) {
      if (!isTag(sibling)) continue;
      seen++;
      if (heading && contains(sibling, heading)) {
        // The title is reached: what stood between it and the root was the standfirst, if any
        // block there reads as one; else it may sit just after the title in the same header.
        if (sibling === heading) return unnamed;
        return unnamed ?? proseAfter(heading, sibling, stats, rootText);
      }
      if (isLead(sibling, stats, rootText)) return sibling;
      if (!unnamed && isUnnamedLead(sibling, stats, rootText)) unnamed = sibling;
    }
    const parent = node.parent;
    if (!parent || !isTag(parent)) return undefined;
    node = parent;
  }
  return undefined;
}

/** The first prose block after `heading` inside `container` (an article header). */
function proseAfter(
  heading: Element,
  container: Element,
  stats: Map<Element, TextStats>,
  rootText: number,
): Element | undefined {
  let node: Element = heading;
  while (node.parent && node.parent !== container && isTag(node.parent)) node = node.parent;
  for (let next = node.next; next; next = next.next) {
    if (isTag(next) && isUnnamedLead(next, stats, rootText)) return next;
  }
  return undefined;
}

/**
 * A standfirst with no telling name: a paragraph of prose (sentence-sized, ending as a sentence
 * ends, almost no links), smaller than the text it introduces. Trusted only between the title and
 * the root, never elsewhere on the page.
 */
function isUnnamedLead(
  element: Element,
  stats: Map<Element, TextStats>,
  rootText: number,
): boolean {
  const s = stats.get(element);
  if (!s || s.text < 80 || s.text > 1000 || s.text >= rootText * 0.5) return false;
  if (s.linkText > s.text * 0.1) return false;
  return sentenceEnd.test(collapsedText(element));
}

function isLead(element: Element, stats: Map<Element, TextStats>, rootText: number): boolean {
  const s = stats.get(element);
  if (!s || s.text < 50 || s.text > 1000 || s.text >= rootText) return false;
  if (s.linkText > s.text * 0.3) return false;
  const itemprop = element.attribs['itemprop'];
  if (itemprop && leadItemprop.has(itemprop)) return true;
  return leadName.test(furnitureNames(element));
}
