/**
 * The removal design's candidate: the content root that markup conventions point at (`<main>`,
 * `articleBody`, `<article>`, `#content`-like names), holding enough of the page's text.
 */
import { idAndClass, isTag, walkElements, type Element, type ParentNode } from '../dom.ts';
import type { TextStats } from './stats.ts';
import { contains } from './tree.ts';
import { furnitureNames, isStrongFurnitureName } from './furniture-names.ts';

// Containers that conventionally hold the content, strongest signal first.
const contentRootSelectors: ((element: Element) => boolean)[] = [
  (element) => element.name === 'main' || element.attribs['role'] === 'main',
  (element) =>
    element.attribs['itemprop'] === 'articleBody' || element.attribs['itemprop'] === 'mainEntity',
  (element) => element.name === 'article',
  (element) =>
    /(?:^|\s)(?:#?(?:main-content|maincontent|content|main|primary|page-content|post-content|entry-content|article-content|article-body|story-body|post-body|markdown-body|documentation|doc-content|docs-content|theme-doc-markdown)|mw-parser-output|rst-content|md-content)(?:\s|$)/.test(
      idAndClass(element),
    ),
];

// Refining inside a root trusts only the strong signals (main, articleBody, article), not class
// names such as Magento's `column main`.
const articleSignals = 3;

export function chooseRoot(
  body: ParentNode,
  stats: Map<Element, TextStats>,
): ParentNode | undefined {
  const bodyText = stats.get(body as Element)?.text ?? 0;
  if (bodyText === 0) return undefined;
  // A "main" that holds little of the page is a decoy (a hero box): a root must hold a third.
  const found = findRoot(body, stats, 0, bodyText * 0.35);
  if (!found) return undefined;
  // Inside <main>, one <article> or article body holding most of it is the closer root (a
  // repository page: the README beside a file table).
  const rootText = stats.get(found.root)?.text ?? 0;
  const refined = findRoot(found.root, stats, found.signal + 1, rootText * 0.6, articleSignals);
  return refined?.root ?? found.root;
}

/** The first content-root signal, from `fromSignal` on, whose match holds at least `minText`. */
function findRoot(
  container: ParentNode,
  stats: Map<Element, TextStats>,
  fromSignal: number,
  minText: number,
  untilSignal = contentRootSelectors.length,
): { root: Element; signal: number } | undefined {
  for (let signal = fromSignal; signal < untilSignal; signal++) {
    const search = { matches: contentRootSelectors[signal]!, candidates: [] as Element[] };
    walkElements(container, collectOutermostMatch, search);
    let { candidates } = search;
    // Cards in a block named as furniture (a related-posts list of <article> teasers that holds
    // too much of the page's text for the furniture pass to remove) are that block's items, not
    // the page's content.
    if (candidates.length > 1) candidates = candidates.filter((c) => !inFurniture(c, container));
    if (candidates.length === 0) continue;
    // Several matches (a list of <article> cards, say): take the closest common ancestor, so a
    // listing keeps all its items.
    const root = candidates.length === 1 ? candidates[0] : commonAncestor(candidates);
    if (root && root !== container && (stats.get(root)?.text ?? 0) >= minText)
      return { root, signal };
  }
  return undefined;
}

/** Keeps `element` when it matches, without looking inside it (a function of the module: tree.ts). */
function collectOutermostMatch(
  element: Element,
  search: { matches: (element: Element) => boolean; candidates: Element[] },
): boolean {
  if (!search.matches(element)) return true;
  search.candidates.push(element);
  return false;
}

function inFurniture(element: Element, container: ParentNode): boolean {
  for (let node = element.parent; node && node !== container && isTag(node); node = node.parent)
    if (isStrongFurnitureName(furnitureNames(node))) return true;
  return false;
}

function commonAncestor(elements: Element[]): Element | undefined {
  const first = elements[0];
  if (!first) return undefined;
  const chain: Element[] = [];
  for (let node: ParentNode | null = first; node && isTag(node); node = node.parent) {
    chain.push(node);
  }
  return chain.find((ancestor) => elements.every((element) => contains(ancestor, element)));
}
