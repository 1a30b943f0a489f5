/**
 * Item templates: the page's own repetition. Three or more siblings made from one template (same
 * tag and class words, or the same inner structure) are the items of a collection: the results of
 * a listing, the products of a category, the cards of a programme catalogue, or, on a product's
 * own page, the carousels of other products. Which one they are is decided by the page around
 * them (choose.ts, furniture.ts, products.ts); this file only finds them.
 */
import { isTag, walkElements, type Element, type ParentNode } from '../dom.ts';
import type { TextStats } from './stats.ts';

/** Siblings from one template, and their text together. */
export interface ItemGroup {
  items: Element[];
  text: number;
  linkText: number;
}

// Class words that say what state an item is in, not which template it comes from.
const stateWord =
  /^(?:active|selected|current|first|last|odd|even|open|hidden|visible|disabled|is-.*|has-.*|js-.*)$/;
// Tags that are items by themselves (a list's entries, a table's rows, a feed's articles).
const itemTags = new Set(['li', 'article', 'tr', 'dt', 'dd']);

/**
 * The template an element comes from: its tag and class words (state words and words with digits,
 * which number the items, left out), or for an element without classes its tag and the tags of
 * its first children. Undefined for what no template makes (text-only divs, inline elements).
 */
export function itemSignature(element: Element): string | undefined {
  const classes = element.attribs['class'];
  if (classes) {
    const words = classes
      .split(/\s+/)
      .filter((word) => word !== '' && !/\d/.test(word) && !stateWord.test(word))
      .sort();
    if (words.length > 0) return `${element.name}.${words.join('.')}`;
  }
  if (itemTags.has(element.name)) return element.name;
  if (element.name !== 'div' && element.name !== 'section' && element.name !== 'a')
    return undefined;
  let shape = '';
  let seen = 0;
  for (const child of element.children) {
    if (!isTag(child)) continue;
    shape += `>${child.name}`;
    if (++seen === 3) break;
  }
  return seen > 0 ? `${element.name}${shape}` : undefined;
}

/** The groups of three or more template siblings directly under `parent` that hold text. */
export function itemGroupsOf(parent: ParentNode, stats: Map<Element, TextStats>): ItemGroup[] {
  let groups: Map<string, ItemGroup> | undefined;
  let elements = 0;
  for (const child of parent.children) {
    if (!isTag(child)) continue;
    elements++;
    const childStats = stats.get(child);
    if (!childStats || childStats.text === 0) continue;
    const signature = itemSignature(child);
    if (signature === undefined) continue;
    groups ??= new Map();
    let group = groups.get(signature);
    if (!group) groups.set(signature, (group = { items: [], text: 0, linkText: 0 }));
    group.items.push(child);
    group.text += childStats.text;
    group.linkText += childStats.linkText;
  }
  if (!groups || elements < 3) return [];
  return [...groups.values()].filter((group) => group.items.length >= 3);
}

/** The item group below `root` (itself included) holding the most text, if any. */
export function largestItemGroup(
  root: ParentNode,
  stats: Map<Element, TextStats>,
): ItemGroup | undefined {
  const search: { stats: Map<Element, TextStats>; best: ItemGroup | undefined } = {
    stats,
    best: undefined,
  };
  considerGroups(root, search);
  walkElements(root, considerGroupsOf, search);
  return search.best;
}

function considerGroups(
  parent: ParentNode,
  search: { stats: Map<Element, TextStats>; best: ItemGroup | undefined },
): void {
  for (const group of itemGroupsOf(parent, search.stats))
    if (group.text > (search.best?.text ?? 0)) search.best = group;
}

/** A function of the module, not a closure per page (see stats.ts). */
function considerGroupsOf(
  element: Element,
  search: { stats: Map<Element, TextStats>; best: ItemGroup | undefined },
): boolean {
  // A group needs three children with text: smaller elements hold none.
  if ((search.stats.get(element)?.text ?? 0) === 0) return false;
  considerGroups(element, search);
  return true;
}
