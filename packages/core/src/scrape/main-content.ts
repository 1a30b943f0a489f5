/**
 * Main-content extraction (`onlyMainContent`): keeps what a reader came for and drops the page's
 * furniture. Unlike article extractors that pick one best block (and so lose forum posts, product
 * specs or listing items), this works by removal: find the content root, then strip boilerplate
 * blocks inside it, guarded so that no block holding a large share of the page's text or its main
 * heading is ever removed.
 *
 * Method and measured quality: bench/README.md ("Main content").
 */
import { Element as DomElement, Text as DomText } from 'domhandler';
import {
  collapsedText,
  detach,
  idAndClass,
  isTag,
  isText,
  walkElements,
  type AnyNode,
  type Element,
  type ParentNode,
} from './dom.ts';

/** Per-element text statistics, computed once per extraction, bottom-up. */
interface TextStats {
  /** Characters of visible text (white space runs count as one). */
  text: number;
  /** Characters of that text inside links. */
  linkText: number;
  /** Paragraph-like blocks with real prose (a sentence-sized text run). */
  paragraphs: number;
  /** Links (`<a>` elements) inside. */
  links: number;
}

// Elements that are furniture by their tag or ARIA role, wherever they stand.
const boilerplateTags = new Set(['nav', 'aside', 'menu', 'form']);
const boilerplateRoles = new Set([
  'navigation',
  'banner',
  'contentinfo',
  'complementary',
  'search',
  'dialog',
  'alertdialog',
  'menu',
  'menubar',
  'toolbar',
  'tablist',
]);

// Furniture by class or id, in two strengths. Strong words mark furniture wherever they stand in
// a class name (`site-footer`, `share-buttons`, `cookie-banner`); weak words only as a whole class
// token, because as part of a name they often label content (`posting-categories`, `toc-entry`).
const strongWords = [
  'cookies?',
  'consent',
  'gdpr',
  'newsletter',
  'subscribe',
  'subscription',
  'signup',
  'sign-up',
  'share',
  'sharing',
  'sharethis',
  'social',
  'related',
  'recommended',
  'recommendations',
  'more-stories',
  'most-popular',
  'most-read',
  'trending',
  'promo',
  'promotion',
  'sponsor',
  'sponsored',
  'breadcrumbs?',
  'sidebar',
  'side-bar',
  'widget-area',
  'skip-link',
  'skip-to-content',
  'skiplink',
  'navbar',
  'nav',
  'navigation',
  'menu',
  'mega-menu',
  'masthead',
  'site-header',
  'site-footer',
  'global-header',
  'global-footer',
  'page-footer',
  'footer',
  'comments',
  'comment-section',
  'comments-area',
  'comment-list',
  'comment-respond',
  'disqus_thread',
  'disqus',
  'author-bio',
  'byline',
  'tagline',
  'entry-meta',
  'post-meta',
  'article-meta',
  'flat-list',
  'signature',
  'postprofile',
  'poster-info',
  'user-info',
  'userinfo',
  'author-box',
  'about-author',
  'pagination',
  'post-navigation',
  'outbrain',
  'taboola',
  'sr-only',
  'visually-hidden',
  'screen-reader-text',
  'print-only',
  'edit-this-page',
  'app-promo',
  'download-app',
];
const weakWords = [
  'popular',
  'author',
  'buttons',
  'score',
  'expand',
  'widget',
  'widgets',
  'respond',
  'pager',
  'toolbar',
  'modal',
  'popup',
  'overlay',
  'banner',
  'toc',
  'table-of-contents',
  'edit-link',
  'feedback',
  'rating-widget',
  'tags',
  'tag-list',
  'post-tags',
  'meta-tags',
  'categories',
  'post-categories',
];
const boilerplatePattern = new RegExp(
  `(?:^|[\\s_-])(?:${strongWords.join('|')})(?:$|[\\s_-]|\\d)|(?:^|\\s)(?:${weakWords.join('|')})(?:$|\\s)`,
);

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

/** A block holding at least this share of the page's text is content, whatever its name says. */
const protectedShare = 0.4;

/**
 * Reduces `body` to its main content, in place, and returns the element to convert. The page's
 * main heading (its first `<h1>`) is kept even when it stands outside the content root.
 */
export function extractMainContent(body: ParentNode): ParentNode {
  const heading = findMainHeading(body);
  let stats = computeStats(body);
  const pageText = stats.get(body as Element)?.text ?? 0;

  // Strip furniture page-wide first, so that choosing the root is not misled by a mega-menu.
  removeBoilerplate(body, stats, pageText, heading);
  stats = computeStats(body);

  removeLabelledFurniture(body, stats, pageText);
  const root = chooseRoot(body, stats) ?? body;
  const rootText = stats.get(root as Element)?.text ?? 0;
  pruneLinkLists(root, stats, rootText, heading);

  if (heading && root !== body && !contains(root, heading)) {
    return withHeading(root, heading);
  }
  return root;
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

function textLength(node: AnyNode): number {
  if (isText(node)) return node.data.trim().length;
  if (!isTag(node)) return 0;
  let total = 0;
  for (const child of node.children) total += textLength(child);
  return total;
}

function computeStats(root: ParentNode): Map<Element, TextStats> {
  const stats = new Map<Element, TextStats>();
  const visit = (node: ParentNode, inLink: boolean): TextStats => {
    const total: TextStats = { text: 0, linkText: 0, paragraphs: 0, links: 0 };
    let directText = 0;
    for (const child of node.children) {
      if (isText(child)) {
        const length = visibleLength(child.data);
        total.text += length;
        directText += length;
        if (inLink) total.linkText += length;
      } else if (isTag(child)) {
        const childStats = visit(child, inLink || child.name === 'a');
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
  };
  const rootStats = visit(root, false);
  // The body itself may be a plain container (includeTags) — record it too.
  stats.set(root as Element, rootStats);
  return stats;
}

function visibleLength(text: string): number {
  // Counting collapsed white space as one char keeps indentation-heavy markup from inflating
  // blocks, without the cost of building strings.
  let length = 0;
  let inSpace = true;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    const isSpace = code === 32 || code === 10 || code === 9 || code === 13 || code === 160;
    if (isSpace) {
      if (!inSpace) length++;
      inSpace = true;
    } else {
      length++;
      inSpace = false;
    }
  }
  return length;
}

function isProseBlock(element: Element, stats: TextStats): boolean {
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

function isBoilerplateElement(element: Element): boolean {
  if (boilerplateTags.has(element.name)) {
    // A form wrapping the page (ASP.NET WebForms) is not furniture; small forms are.
    return element.name !== 'form';
  }
  if (element.name === 'header' || element.name === 'footer') {
    // An article's own header holds its title and byline; in a listing of several articles,
    // each one's footer holds its date.
    const article = closestArticle(element);
    if (!article) return true;
    return element.name === 'footer' && !hasSiblingArticle(article);
  }
  const role = element.attribs['role'];
  if (role && boilerplateRoles.has(role)) return true;
  const names = idAndClass(element);
  return names !== '' && boilerplatePattern.test(names) && !isInReviews(element);
}

/** Product reviews are content, even when the shop software files them as comments. */
function isInReviews(element: Element): boolean {
  let node: Element | null = element;
  for (let depth = 0; node && depth < 4; depth++) {
    if (idAndClass(node).includes('review')) return true;
    node = node.parent && isTag(node.parent) ? node.parent : null;
  }
  return false;
}

function removeBoilerplate(
  root: ParentNode,
  stats: Map<Element, TextStats>,
  pageText: number,
  heading: Element | undefined,
): void {
  removeWhere(root, (element): Verdict => {
    const elementStats = stats.get(element);
    if (!elementStats) return 'descend';
    if (element.name === 'form') {
      // Search boxes and sign-ups hold no prose; a form that does is a wrapper (ASP.NET pages)
      // or holds posts (Reddit-style comment forms).
      const isFurniture = elementStats.paragraphs === 0 && elementStats.text < pageText * 0.2;
      return isFurniture ? 'remove' : 'descend';
    }
    if (isCopyrightLine(element, elementStats) || isActionLink(element, elementStats)) {
      return 'remove';
    }
    if (!isBoilerplateElement(element)) return 'descend';
    const isProtected =
      (heading !== undefined &&
        contains(element, heading) &&
        !isNavigationLike(element, elementStats)) ||
      (elementStats.text >= pageText * protectedShare &&
        elementStats.linkText < elementStats.text * 0.5 &&
        element.name !== 'nav');
    if (isProtected) {
      // A <header> that holds the article's title keeps the title but loses its nav/widgets.
      return 'descend';
    }
    return 'remove';
  });
}

const actionClass = /(?:^|[\s_-])(?:btn|button|action|cta)(?:$|[\s_-])/;

/** "Add to cart", "Compare", "Apply": a short link styled as a button is a control, not content. */
function isActionLink(element: Element, stats: TextStats): boolean {
  if (element.name !== 'a' || stats.text > 40) return false;
  return element.attribs['role'] === 'button' || actionClass.test(element.attribs['class'] ?? '');
}

// Headings that announce furniture rather than content.
const furnitureHeading =
  /^(?:related\b|(?:products|articles|posts|stories) related|customers (?:who .*)?also|(?:you|we think you) (?:may|might) (?:also )?like|recommended\b|more (?:from|stories|articles|in|like this)|read (?:next|more)\b|up next|popular\b|trending\b|most (?:read|popular)|sponsored\b|frequently bought together|who is online|users browsing)/i;

/**
 * Removes blocks announced by a furniture heading ("Products related to this item", "More from
 * the author"): the smallest ancestor that starts with the heading and is a small share of the
 * page.
 */
function removeLabelledFurniture(
  body: ParentNode,
  stats: Map<Element, TextStats>,
  pageText: number,
): void {
  const blocks = new Set<Element>();
  walkElements(body, (element) => {
    if (!headingTags.has(element.name) || element.name === 'h1') return true;
    if (furnitureHeading.test(collapsedText(element))) {
      const block = blockIntroducedBy(element, body);
      if (block !== element && (stats.get(block)?.text ?? 0) < pageText * 0.3) blocks.add(block);
    }
    return false;
  });
  removeWhere(body, (element) => (blocks.has(element) ? 'remove' : 'descend'));
}

/** The largest ancestor (up to four levels) that starts with `heading`: the block it titles. */
function blockIntroducedBy(heading: Element, body: ParentNode): Element {
  let block = heading;
  for (let depth = 0; depth < 4; depth++) {
    const parent = block.parent;
    if (!parent || !isTag(parent) || parent === body) break;
    const first = parent.children.find(
      (child) => isTag(child) || (isText(child) && child.data.trim() !== ''),
    );
    if (first !== block) break;
    block = parent;
  }
  return block;
}

const copyrightStart = /^(?:©|\(c\)\s*\d{4}|copyright\b)/i;
const lineTags = new Set(['p', 'div', 'small', 'span', 'section']);

/** "© 2024 Example. All rights reserved." — a legal line, even inside the article. */
function isCopyrightLine(element: Element, stats: TextStats): boolean {
  return (
    stats.text > 0 &&
    stats.text < 200 &&
    lineTags.has(element.name) &&
    copyrightStart.test(collapsedText(element))
  );
}

function closestArticle(element: Element): Element | undefined {
  for (let parent = element.parent; parent && isTag(parent); parent = parent.parent) {
    if (parent.name === 'article') return parent;
  }
  return undefined;
}

function hasSiblingArticle(article: Element): boolean {
  return (article.parent?.children ?? []).some(
    (sibling) => sibling !== article && isTag(sibling) && sibling.name === 'article',
  );
}

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

function isNavigationLike(element: Element, stats: TextStats): boolean {
  return (
    element.name === 'nav' ||
    (stats.text > 0 && stats.linkText / stats.text > 0.8 && stats.paragraphs === 0)
  );
}

function chooseRoot(body: ParentNode, stats: Map<Element, TextStats>): ParentNode | undefined {
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
    const matches = contentRootSelectors[signal]!;
    const candidates: Element[] = [];
    walkElements(container, (element) => {
      if (matches(element)) {
        candidates.push(element);
        return false;
      }
      return true;
    });
    if (candidates.length === 0) continue;
    // Several matches (a list of <article> cards, say): take the closest common ancestor, so a
    // listing keeps all its items.
    const root = candidates.length === 1 ? candidates[0] : commonAncestor(candidates);
    if (root && root !== container && (stats.get(root)?.text ?? 0) >= minText)
      return { root, signal };
  }
  return undefined;
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

function contains(ancestor: ParentNode, node: AnyNode): boolean {
  for (let current: ParentNode | null = node.parent; current; current = current.parent) {
    if (current === ancestor) return true;
  }
  return node === ancestor;
}

const linkListTags = new Set(['ul', 'ol', 'div', 'section', 'table', 'dl', 'p']);

/**
 * Drops blocks that are mostly links and hold no prose (tag clouds, "more in this section", link
 * farms) — unless they are a large share of the content, as the items of a listing page are.
 */
function pruneLinkLists(
  root: ParentNode,
  stats: Map<Element, TextStats>,
  rootText: number,
  heading: Element | undefined,
): void {
  removeWhere(root, (element): Verdict => {
    const elementStats = stats.get(element);
    if (!elementStats) return 'descend';
    // Items of a collection are judged together, by their list: never one card at a time.
    if (isRepeatedItem(element)) return 'keep';
    if (!linkListTags.has(element.name)) return 'descend';
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
  });
}

/** What a removal pass decides for one element. */
type Verdict = 'remove' | 'keep' | 'descend';

/** Walks the tree and removes what `judge` condemns; a kept or removed block is not entered. */
function removeWhere(root: ParentNode, judge: (element: Element) => Verdict): void {
  const doomed: Element[] = [];
  walkElements(root, (element) => {
    const verdict = judge(element);
    if (verdict === 'remove') doomed.push(element);
    return verdict === 'descend';
  });
  // Detached after the walk, so the walk never sees a tree that changes under it.
  for (const element of doomed) detach(element);
}

const headingTags = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

/** Cards of a listing carry a heading per item; a menu has none, a link list one title at most. */
function countHeadings(element: Element): number {
  let count = 0;
  walkElements(element, (child) => {
    if (headingTags.has(child.name)) count++;
    return count < 2;
  });
  return count;
}

/** A new container holding the heading (moved) followed by the root. */
function withHeading(root: ParentNode, heading: Element): ParentNode {
  detach(heading);
  const container = new DomElement('div', {}, []);
  const children: AnyNode[] = [heading, new DomText('\n'), root];
  for (const child of children) {
    if (child === root && root.parent) detach(root);
    child.parent = container;
  }
  container.children = children;
  children.forEach((child, index) => {
    child.prev = children[index - 1] ?? null;
    child.next = children[index + 1] ?? null;
  });
  return container;
}
