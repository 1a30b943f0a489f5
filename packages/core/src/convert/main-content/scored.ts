/**
 * The scored candidate, a second opinion next to the removal design's root: blocks of prose vote
 * for the containers around them (the nearest most, farther ones less), class and id names and
 * link density weigh the votes, and the best container is taken together with those of its
 * siblings that read like more of the same text. This is the idea behind Readability's scoring,
 * written here for the domhandler tree and the statistics we already have.
 */
import {
  headingTags,
  idAndClass,
  isTag,
  isText,
  walkElements,
  type AnyNode,
  type Element,
} from '../dom.ts';
import type { ParentNode } from '../dom.ts';
import { isOverlay } from './furniture.ts';
import type { TextStats } from './stats.ts';
import { countCommas as countTextCommas } from './text-scan.ts';

/** The best-scored container and the siblings that continue it. */
export interface ScoredCandidate {
  top: Element;
  /** `top` plus the siblings merged with it, in document order. */
  members: Element[];
  score: number;
}

// Names that say "content" or "furniture"; matched anywhere in the id and class string.
const positiveNames =
  /article|body|content|entry|hentry|main|page|post|text|blog|story|prose|artikel|beitrag|inhalt|noticia|nota/;
const negativeNames =
  /comment|komment|footer|sidebar|share|social|related|widget|promo|sponsor|byline|author|nav|menu|masthead|outbrain|taboola|skyscraper|tags|tool|popup|newsletter|subscribe|breadcrumb|teaser|rating|gallery|caption|hidden|banner|cookie|login|signup/;

// Votes only go to containers; a vote for a list item or a heading says little about the page,
// and the body is no candidate: "the whole page" is what the removal design gives anyway.
const containerTags = new Set([
  'div',
  'section',
  'article',
  'main',
  'td',
  'form',
  'font',
  'center',
  'span',
]);

// Blocks whose own text is a unit of prose.
const proseTags = new Set(['p', 'pre', 'td', 'blockquote', 'dd']);
// Elements that end a "leaf" container: a div holding one of these is a wrapper, not prose.
const blockTags = new Set([
  'p',
  'div',
  'section',
  'article',
  'table',
  'ul',
  'ol',
  'dl',
  'pre',
  'blockquote',
  ...headingTags,
  'header',
  'footer',
  'main',
  'aside',
  'nav',
  'figure',
  'form',
]);

// Blocks that continue an article's text when they stand between its paragraphs.
const continuationTags = new Set([
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'pre',
  'table',
  'figure',
  'blockquote',
  'ul',
  'ol',
  'dl',
  'img',
]);

/** How far up a block's vote reaches, and how much of it each level gets. */
const voteLevels = 5;

function nameWeight(element: Element): number {
  const names = idAndClass(element);
  if (!names) return 0;
  let weight = 0;
  if (positiveNames.test(names)) weight += 25;
  if (negativeNames.test(names)) weight -= 25;
  return weight;
}

function tagWeight(name: string): number {
  if (name === 'div' || name === 'article' || name === 'main') return 5;
  if (name === 'td' || name === 'blockquote' || name === 'pre') return 3;
  if (name === 'form') return -3;
  return 0;
}

/** A block of prose: a paragraph-like tag, or a container with text and no block inside. */
function isProseCarrier(element: Element, stats: TextStats): boolean {
  if (stats.text < 25) return false;
  if (proseTags.has(element.name)) return true;
  if (element.name !== 'div' && element.name !== 'section' && element.name !== 'span') return false;
  return !element.children.some((child) => isTag(child) && blockTags.has(child.name));
}

/** Commas (any script's) in a block: a rough count of clauses, as Readability counts them. */
function countCommas(node: AnyNode): number {
  if (isText(node)) return countTextCommas(node.data);
  if (!isTag(node)) return 0;
  let total = 0;
  for (const child of node.children) total += countCommas(child);
  return total;
}

/**
 * A prose block's vote for the containers above it, as Readability gives it (a function of the
 * module rather than a closure per page: see tree.ts).
 */
function voteForContainers(
  element: Element,
  { stats, scores }: { stats: Map<Element, TextStats>; scores: Map<Element, number> },
): boolean {
  // An overlay (a consent dialog's long legal text) stands over the page, not in it.
  if (isOverlay(element)) return false;
  const elementStats = stats.get(element);
  if (!elementStats || !isProseCarrier(element, elementStats)) return true;
  // Link text is not prose: a block of links votes nothing.
  if (elementStats.linkText > elementStats.text * 0.5) return false;
  const vote = 1 + countCommas(element) + Math.min(Math.floor(elementStats.text / 100), 3);
  let ancestor = element.parent;
  for (let level = 0; level < voteLevels && ancestor && isTag(ancestor); level++) {
    if (containerTags.has(ancestor.name)) {
      const start = scores.get(ancestor) ?? tagWeight(ancestor.name) + nameWeight(ancestor);
      const share = level === 0 ? 1 : level === 1 ? 0.5 : 1 / (level * 3);
      scores.set(ancestor, start + vote * share);
    }
    ancestor = ancestor.parent;
  }
  return false;
}

/**
 * Scores the page's containers and returns the best one with its continuing siblings, or
 * undefined when the page has no prose at all.
 */
export function findScoredCandidate(
  body: ParentNode,
  stats: Map<Element, TextStats>,
): ScoredCandidate | undefined {
  const scores = new Map<Element, number>();
  walkElements(body, voteForContainers, { stats, scores });

  let top: Element | undefined;
  let best = -Infinity;
  const final = new Map<Element, number>();
  for (const [element, score] of scores) {
    const elementStats = stats.get(element);
    if (!elementStats || elementStats.text === 0) continue;
    const value = score * (1 - elementStats.linkText / elementStats.text);
    final.set(element, value);
    if (value > best) {
      best = value;
      top = element;
    }
  }
  if (!top || best <= 0) return undefined;
  // A container that is its parent's only child says nothing its parent does not.
  while (top.parent && isTag(top.parent) && top.parent !== body && onlyChild(top)) top = top.parent;
  return { top, members: continuingSiblings(top, final, stats, best), score: best };
}

function onlyChild(element: Element): boolean {
  const parent = element.parent;
  if (!parent) return false;
  return parent.children.every(
    (child) =>
      child === element ||
      (isText(child) && child.data.trim() === '') ||
      (!isTag(child) && !isText(child)),
  );
}

/**
 * The top container's siblings that carry on its text: a well-scored sibling, or a paragraph of
 * prose with few links (article bodies split around an ad or a figure).
 */
function continuingSiblings(
  top: Element,
  scores: Map<Element, number>,
  stats: Map<Element, TextStats>,
  topScore: number,
): Element[] {
  const parent = top.parent;
  if (!parent) return [top];
  const threshold = Math.max(10, topScore * 0.2);
  const topClass = top.attribs['class'] ?? '';
  const members: Element[] = [];
  for (const sibling of parent.children) {
    if (!isTag(sibling)) continue;
    if (sibling === top) {
      members.push(sibling);
      continue;
    }
    const siblingStats = stats.get(sibling);
    if (!siblingStats || siblingStats.text === 0) continue;
    const density = siblingStats.linkText / siblingStats.text;
    let score = scores.get(sibling) ?? 0;
    if (topClass !== '' && (sibling.attribs['class'] ?? '') === topClass) score += topScore * 0.2;
    // Headings, code, tables, lists and figures between the paragraphs are part of the text
    // (documentation, recipes); link-heavy or furniture-named blocks are not.
    const isProse =
      nameWeight(sibling) >= 0 &&
      (sibling.name === 'p'
        ? density < 0.5
        : continuationTags.has(sibling.name)
          ? density < 0.5
          : (sibling.name === 'div' || sibling.name === 'section') &&
            density < 0.3 &&
            siblingStats.paragraphs > 0);
    if (score >= threshold || isProse) members.push(sibling);
  }
  return members;
}
