/**
 * A product's own page: its title, price, variants, description and specifications are the
 * content; the rows of other products around them (recommendations, "similar items", sponsored
 * carousels) are not. Such a row is an item group (items.ts) whose every card links away and
 * shows a price. On a category page the same cards are the content, so the rule runs only on a
 * page that says it is about one product.
 */
import {
  collapsedText,
  isTag,
  isText,
  walkElements,
  type Element,
  type ParentNode,
} from '../dom.ts';
import { itemGroupsOf, type ItemGroup } from './items.ts';
import type { TextStats } from './stats.ts';
import { contains, removeWhere, type Removal, type Verdict } from './tree.ts';

// schema.org's types for one thing on sale.
const productTypes = new Set([
  'Product',
  'ProductGroup',
  'IndividualProduct',
  'ProductModel',
  'Vehicle',
  'Car',
]);
// A JSON-LD block larger than this is not read (real ones are a few KB; see structured-data.ts).
const maxJsonLd = 256 * 1024;

/**
 * The names of the products the page's JSON-LD describes, read from the page as parsed (cleaning
 * removes the scripts). Read before cleaning by `HtmlPage`, only when main content is asked for.
 */
export function productNamesIn(document: ParentNode): string[] {
  const names: string[] = [];
  walkElements(document, collectProductNames, names);
  return names;
}

function collectProductNames(element: Element, names: string[]): boolean {
  if (element.name !== 'script') return true;
  if (element.attribs['type'] !== 'application/ld+json') return false;
  const text = element.children.map((child) => (isText(child) ? child.data : '')).join('');
  if (
    text.length > maxJsonLd ||
    (!text.includes('Product') && !text.includes('Vehicle') && !text.includes('Car'))
  )
    return false;
  try {
    visitJsonLd(JSON.parse(text) as unknown, names, 0);
  } catch {
    // A broken block says nothing.
  }
  return false;
}

function visitJsonLd(value: unknown, names: string[], depth: number): void {
  if (depth > 8 || names.length > 50 || typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) visitJsonLd(item, names, depth + 1);
    return;
  }
  const node = value as Record<string, unknown>;
  const type = node['@type'];
  const types = Array.isArray(type) ? type : [type];
  const name = node['name'];
  if (
    typeof name === 'string' &&
    types.some((t) => typeof t === 'string' && productTypes.has(t.replace(/^.*[/#:]/, '')))
  )
    names.push(name);
  for (const [key, child] of Object.entries(node))
    if (key !== '@context' && typeof child === 'object') visitJsonLd(child, names, depth + 1);
}

const fold = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

/**
 * True when the page is about one product: its main heading names a product its JSON-LD
 * describes (`productNames`, from `productNamesIn`), or stands inside a microdata Product. A
 * category page names no product in its heading.
 */
export function isProductPage(
  heading: Element | undefined,
  productNames: readonly string[],
): boolean {
  if (!heading) return false;
  for (let node: ParentNode | null = heading; node && isTag(node); node = node.parent)
    if (
      /schema\.org\/(?:Product|ProductGroup|IndividualProduct)$/i.test(
        node.attribs['itemtype'] ?? '',
      )
    )
      return true;
  const title = fold(collapsedText(heading));
  if (title.length < 4) return false;
  return productNames.some((name) => {
    const folded = fold(name);
    return folded.length >= 4 && (title.includes(folded) || folded.includes(title));
  });
}

// A price as shops print it: a currency sign or code next to a number.
const price =
  /(?:[$€£¥₹₩₽]|\b(?:USD|EUR|GBP|CHF|AUD|CAD|NZD|SEK|NOK|DKK|PLN|CZK|INR|JPY|AED|SGD|HKD|ZAR|MXN|BRL)\b|R\$)\s?\d|\d(?:[\d.,\s]*\d)?\s?(?:[€£$₽]|zł|kr|Kč|\b(?:EUR|USD|GBP|CHF|SEK|NOK|DKK|PLN)\b)/;

// A card of another product is short: a name, a price, a rating.
const maxCardText = 400;

/** True when most items of the group are product cards: a link, a price, little text. */
function isProductRow(group: ItemGroup, stats: Map<Element, TextStats>): boolean {
  if (group.text > group.items.length * maxCardText) return false;
  let cards = 0;
  for (const item of group.items) {
    const links = (stats.get(item)?.links ?? 0) + (item.name === 'a' ? 1 : 0);
    if (links > 0 && price.test(collapsedText(item))) cards++;
  }
  return cards >= group.items.length * 0.6;
}

/**
 * Removes the rows of other products from a product's page, each with the block that holds it
 * and its title ("Similar items"), never the block holding the page's main heading. Returns what
 * it removed, for the statistics to follow.
 */
export function removeOtherProducts(
  body: ParentNode,
  stats: Map<Element, TextStats>,
  heading: Element | undefined,
): Removal[] {
  const search = { stats, heading, doomed: new Set<Element>() };
  walkElements(body, findProductRow, search);
  return search.doomed.size > 0 ? removeWhere(body, removeIfIn, search.doomed) : [];
}

const removeIfIn = (element: Element, doomed: Set<Element>): Verdict =>
  doomed.has(element) ? 'remove' : 'descend';

interface RowSearch {
  stats: Map<Element, TextStats>;
  heading: Element | undefined;
  doomed: Set<Element>;
}

/** Adds to `doomed` the block of a row of product cards directly under `element`. */
function findProductRow(element: Element, search: RowSearch): boolean {
  const { stats, heading, doomed } = search;
  const elementStats = stats.get(element);
  if (!elementStats || elementStats.text === 0) return false;
  const row = itemGroupsOf(element, stats).find((group) => isProductRow(group, stats));
  if (!row) return true;
  if (heading && contains(element, heading)) {
    // The product's own block holds the row: only the cards go.
    for (const item of row.items) doomed.add(item);
    return false;
  }
  // Up to the block that holds the row, its title and its controls, and little else.
  let block = element;
  const most = row.text * 1.5 + 100;
  for (let parent = block.parent; parent && isTag(parent); parent = parent.parent) {
    if ((stats.get(parent)?.text ?? Infinity) > most) break;
    if (heading && contains(parent, heading)) break;
    block = parent;
  }
  doomed.add(block);
  return false;
}
