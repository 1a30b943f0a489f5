/**
 * The standfirst: a summary paragraph set in its own block just before the article body
 * (`teaser-text`, `article-lead`, `chapo`, `itemprop="description"`). A root found by its name
 * (`articleBody`) or by its prose leaves it outside, yet it is the first thing a reader reads.
 */
import { isTag, type Element, type ParentNode } from '../dom.ts';
import { furnitureNames } from './furniture-names.ts';
import type { TextStats } from './stats.ts';
import { contains } from './tree.ts';

const leadName =
  /(?:^|[\s_-])(?:lead|lede|intro|standfirst|teaser-text|summary|abstract|chapo|excerpt|deck|dek|subline|description)(?:$|[\s_-])/;
const leadItemprop = new Set(['description', 'abstract', 'alternativeHeadline']);

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
  let node: Element = root;
  for (let level = 0; level < levels; level++) {
    let sibling = node.prev;
    for (let seen = 0; sibling && seen < siblingsBack; sibling = sibling.prev) {
      if (!isTag(sibling)) continue;
      seen++;
      if (isLead(sibling, stats, rootText) && !(heading && contains(sibling, heading)))
        return sibling;
    }
    const parent = node.parent;
    if (!parent || !isTag(parent)) return undefined;
    node = parent;
  }
  return undefined;
}

function isLead(element: Element, stats: Map<Element, TextStats>, rootText: number): boolean {
  const s = stats.get(element);
  if (!s || s.text < 50 || s.text > 1000 || s.text >= rootText) return false;
  if (s.linkText > s.text * 0.3) return false;
  const itemprop = element.attribs['itemprop'];
  if (itemprop && leadItemprop.has(itemprop)) return true;
  return leadName.test(furnitureNames(element));
}
