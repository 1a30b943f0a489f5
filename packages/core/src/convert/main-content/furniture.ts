/**
 * Furniture: blocks that are boilerplate by their tag, ARIA role, class or id, by the heading that
 * announces them, or by what they say (copyright lines, button links). Removed in place.
 */
import {
  collapsedText,
  headingTags,
  idAndClass,
  isTag,
  isText,
  walkElements,
  type Element,
  type ParentNode,
} from '../dom.ts';
import { isPhotoCredit } from './credits.ts';
import { furnitureNames, isFurnitureName } from './furniture-names.ts';
import type { TextStats } from './stats.ts';
import { contains, removeWhere, type Removal, type Verdict } from './tree.ts';

// Elements that are furniture by their tag or ARIA role, wherever they stand.
export const boilerplateTags = new Set(['nav', 'aside', 'menu', 'form']);
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

/** A block holding at least this share of the page's text is content, whatever its name says. */
const protectedShare = 0.4;
/** The share a site footer must hold to be the content (see judgeBoilerplate). */
const footerShare = 0.8;

/** The site's own footer: by tag outside any article, or by its landmark role. */
function isSiteFooter(element: Element): boolean {
  if (element.attribs['role'] === 'contentinfo') return true;
  return element.name === 'footer' && closestArticle(element) === undefined;
}

/** A dialog or a modal: what it says is about the page (cookies, sign-ups), not the page. */
export function isOverlay(element: Element): boolean {
  const role = element.attribs['role'];
  return role === 'dialog' || role === 'alertdialog' || element.attribs['aria-modal'] === 'true';
}

function isBoilerplateElement(element: Element): boolean {
  if (boilerplateTags.has(element.name)) {
    // A form wrapping the page (ASP.NET WebForms) is not furniture; small forms are.
    return element.name !== 'form';
  }
  if (element.name === 'header' || element.name === 'footer') {
    // An article's own header holds its title and byline; in a listing of several articles,
    // each one's footer holds its date. A header inside <main> belongs to the content too (the
    // site's banner never stands there): it holds the title and often the standfirst.
    const article = closestArticle(element);
    if (!article) return element.name === 'footer' || !isInsideMain(element);
    return element.name === 'footer' && !hasSiblingArticle(article);
  }
  const role = element.attribs['role'];
  if (role && boilerplateRoles.has(role)) return true;
  const names = furnitureNames(element);
  return names !== '' && isFurnitureName(names) && !isInReviews(element);
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

/** Removes the page's furniture; returns what it removed, for the statistics to follow. */
export function removeBoilerplate(
  root: ParentNode,
  stats: Map<Element, TextStats>,
  pageText: number,
  heading: Element | undefined,
  keep?: Element,
): Removal[] {
  return removeWhere(root, judgeBoilerplate, { stats, pageText, heading, keep });
}

/** What removeBoilerplate decides for one element (a function of the module: see tree.ts). */
function judgeBoilerplate(
  element: Element,
  {
    stats,
    pageText,
    heading,
    keep,
  }: {
    stats: Map<Element, TextStats>;
    pageText: number;
    heading: Element | undefined;
    keep: Element | undefined;
  },
): Verdict {
  const elementStats = stats.get(element);
  if (!elementStats) return 'descend';
  if (element.name === 'form') {
    // Search boxes and sign-ups hold no prose; a form that does is a wrapper (ASP.NET pages)
    // or holds posts (Reddit-style comment forms).
    const isFurniture = elementStats.paragraphs === 0 && elementStats.text < pageText * 0.2;
    return isFurniture ? 'remove' : 'descend';
  }
  if (
    isCopyrightLine(element, elementStats) ||
    isActionLink(element, elementStats) ||
    isPhotoCredit(element, elementStats)
  ) {
    return 'remove';
  }
  if (!isBoilerplateElement(element)) return 'descend';
  // The site's footer (a `<footer>` outside any article, `contentinfo`) holds the page's
  // content only when it holds nearly all of it: legal footnotes under a shop's short page
  // outweigh the page, and read as the best prose there is.
  const footer = isSiteFooter(element);
  if (
    footer &&
    elementStats.text < pageText * footerShare &&
    (heading === undefined || !contains(element, heading))
  )
    return 'remove';
  const isProtected =
    (heading !== undefined &&
      contains(element, heading) &&
      !isNavigationLike(element, elementStats)) ||
    // The scored candidate's text is the page's best prose: a wrapper named like a widget
    // (Blogger's `widget Blog`) does not take it away.
    (keep !== undefined && contains(element, keep) && !isNavigationLike(element, elementStats)) ||
    // A long consent dialog is not the page's content, however much of its text it holds.
    (elementStats.text >= pageText * protectedShare &&
      elementStats.linkText < elementStats.text * 0.5 &&
      element.name !== 'nav' &&
      !isOverlay(element) &&
      !consentName.test(furnitureNames(element)));
  if (isProtected) {
    // A <header> that holds the article's title keeps the title but loses its nav/widgets.
    return 'descend';
  }
  return 'remove';
}

// A consent manager's container (`onetrust-consent-sdk`, `cookie-banner`), named so whether or not
// it is marked up as a dialog.
// A bare "cookie" is not enough: a baking site names its recipes so.
const consentName =
  /(?:^|[\s_-])(?:consent|gdpr|cookie-?(?:banner|notice|bar|law|popup|modal|settings))(?:$|[\s_-]|\d)/;

/** A dialog, or a consent manager's block: about the page, never its content. */
export function isOverlayOrConsent(element: Element): boolean {
  return isOverlay(element) || consentName.test(furnitureNames(element));
}

const actionClass = /(?:^|[\s_-])(?:btn|button|action|cta)(?:$|[\s_-])/;

/** "Add to cart", "Compare", "Apply": a short link styled as a button is a control, not content. */
function isActionLink(element: Element, stats: TextStats): boolean {
  if (element.name !== 'a' || stats.text > 40) return false;
  return element.attribs['role'] === 'button' || actionClass.test(element.attribs['class'] ?? '');
}

// Headings that announce furniture rather than content, in the languages of the evaluation
// pages: related stories, "more on this", tags, comments, author boxes.
const furnitureHeading = new RegExp(
  '^(?:' +
    [
      'related\\b',
      '(?:products|articles|posts|stories) related',
      'customers (?:who .*)?also',
      '(?:you|we think you) (?:may|might) (?:also )?like',
      'recommended\\b',
      'more (?:from|stories|articles|in|like this|on this)',
      'read (?:next|more|also)\\b',
      'see also\\b',
      'up next',
      'popular\\b',
      'trending\\b',
      'most (?:read|popular)',
      'sponsored\\b',
      'frequently bought together',
      // Carousels of other products on a product page.
      'similar (?:items|products)\\b',
      'people who (?:viewed|bought)',
      '(?:customers|shoppers) (?:also )?(?:viewed|bought)',
      'explore related',
      'recently viewed',
      '(?:complete|shop) the look',
      'more from this (?:seller|brand|shop|store)',
      'who is online',
      'users browsing',
      'leave a (?:reply|comment)',
      'post a comment',
      '\\d* ?comments?\\b',
      'about the author',
      'share (?:this|on)\\b',
      'tags:?$',
      'explore further',
      'was this (?:article|page) (?:useful|helpful)',
      'stay up-to-date',
      // German
      'mehr (?:zum thema|zu|aus|von|über|artikel|news)\\b',
      'weitere (?:artikel|beiträge|nachrichten|meldungen|informationen|themen|news)\\b',
      'das könnte sie auch interessieren',
      'auch interessant',
      'lesen sie auch',
      'ähnliche (?:beiträge|artikel)',
      'verwandte (?:beiträge|artikel|themen)',
      'schlagworte',
      'kommentare?\\b',
      'über den autor',
      'themen:?$',
      'weiterführende (?:informationen|links|artikel)',
      'zum weiterlesen',
      'schon gelesen',
      'kommentar(?:e)? (?:schreiben|verfassen|geschlossen)',
      '(?:sharen|teilen) mit',
      'war (?:der|dieser) artikel (?:nützlich|hilfreich)',
      // Spanish, Portuguese, Italian
      '(?:notas|noticias|temas|artículos) relacionad[oa]s',
      'te puede interesar',
      'más (?:sobre|noticias|leídas)',
      'leia (?:também|mais)',
      'leggi anche',
      'articoli correlati',
      // French
      '(?:à )?lire aussi',
      'à découvrir',
      'sur le même sujet',
      'articles? similaires?',
      // Polish
      'zobacz (?:też|także|również)',
      'czytaj (?:też|także|również|więcej)',
    ].join('|') +
    ')',
  'i',
);

// Label elements other than headings: short lines in bold or in their own block.
const labelTags = new Set(['p', 'div', 'span', 'strong', 'b', 'header']);

/**
 * Removes blocks announced by a furniture heading ("Products related to this item", "Mehr zum
 * Thema"): the smallest ancestor that starts with the heading and is a small share of the
 * page, or, when the heading stands alone, the heading and the link lists right after it.
 */
export function removeLabelledFurniture(
  body: ParentNode,
  stats: Map<Element, TextStats>,
  pageText: number,
): void {
  const blocks = new Set<Element>();
  walkElements(body, findLabelledBlock, { body, stats, pageText, blocks });
  removeWhere(body, removeIfIn, blocks);
}

const removeIfIn = (element: Element, blocks: Set<Element>): Verdict =>
  blocks.has(element) ? 'remove' : 'descend';

/** Adds to `blocks` the block a furniture heading or label at `element` announces. */
function findLabelledBlock(
  element: Element,
  {
    body,
    stats,
    pageText,
    blocks,
  }: {
    body: ParentNode;
    stats: Map<Element, TextStats>;
    pageText: number;
    blocks: Set<Element>;
  },
): boolean {
  const isHeading = headingTags.has(element.name) && element.name !== 'h1';
  const isLabel = !isHeading && labelTags.has(element.name) && isShortLabel(element, stats);
  if (!isHeading && !isLabel) return true;
  const text = collapsedText(element);
  if (!furnitureHeading.test(text) || (isLabel && text.length > 60)) return isLabel;
  // A heading titles the block it starts; a bold label in a card ("Most popular") titles
  // nothing, so a label only counts when a list of links follows it.
  const block = isHeading ? blockIntroducedBy(element, body) : element;
  if (block !== element && (stats.get(block)?.text ?? 0) < pageText * 0.3) {
    blocks.add(block);
    return false;
  }
  // A lone heading, or one opening a block too large to go whole: what follows it, while it
  // is a list of links, is what it announces.
  const announced: Element[] = [];
  for (let next = element.next; next && announced.length < 3; next = next.next) {
    if (!isTag(next)) continue;
    const nextStats = stats.get(next);
    if (!nextStats || nextStats.text === 0 || nextStats.linkText < nextStats.text * 0.5) break;
    announced.push(next);
  }
  if (isHeading || announced.length > 0)
    for (const item of [element, ...announced]) blocks.add(item);
  return false;
}

function isShortLabel(element: Element, stats: Map<Element, TextStats>): boolean {
  const text = stats.get(element)?.text ?? 0;
  return text > 0 && text <= 60;
}

// "Lea también: <link>", "VEA TAMBIÉN:", "Lesen Sie auch:": a pointer to another story set in
// the body, always a prefix with a colon.
const readAlsoLine =
  /^(?:lea(?: también| más)?|vea también|ver también|mira|lesen sie (?:auch|mehr)|auch interessant|read (?:also|more)|see also|related|czytaj (?:też|także|również|więcej)|zobacz (?:też|także|również)|(?:à )?lire aussi|leia (?:também|mais)|leggi anche|te puede interesar)\s*:/i;
// Calls to subscribe, follow or sign up set between the paragraphs: short lines that start so.
const callToActionLine =
  /^(?:subscribe\b|sign up\b|to (?:view|read|continue reading) the (?:full|whole|rest)|follow (?:us|the \S+) on\b|already a subscriber|suscr[ií]bete|únete\b|hazte miembro|jetzt (?:abonnieren|anmelden)|abonnieren sie|abonnez-vous|inscrivez-vous)/i;
const lineBlockTags = new Set(['p', 'div', 'li', 'h2', 'h3', 'h4', 'h5', 'h6', 'strong', 'b']);

/**
 * Removes "read also" lines and calls to subscribe inside the text: short blocks that start with
 * such a prefix.
 */
export function removeReadAlsoLines(root: ParentNode, stats: Map<Element, TextStats>): void {
  removeWhere(root, judgeReadAlsoLine, stats);
}

function judgeReadAlsoLine(element: Element, stats: Map<Element, TextStats>): Verdict {
  if (!lineBlockTags.has(element.name)) return 'descend';
  const text = stats.get(element)?.text ?? 0;
  if (text === 0 || text > 300) return 'descend';
  const line = collapsedText(element);
  if (readAlsoLine.test(line)) return 'remove';
  return text <= 200 && callToActionLine.test(line) ? 'remove' : 'descend';
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

function isInsideMain(element: Element): boolean {
  for (let parent = element.parent; parent && isTag(parent); parent = parent.parent) {
    if (parent.name === 'main' || parent.attribs['role'] === 'main') return true;
  }
  return false;
}

function hasSiblingArticle(article: Element): boolean {
  return (article.parent?.children ?? []).some(
    (sibling) => sibling !== article && isTag(sibling) && sibling.name === 'article',
  );
}

function isNavigationLike(element: Element, stats: TextStats): boolean {
  return (
    element.name === 'nav' ||
    (stats.text > 0 && stats.linkText / stats.text > 0.8 && stats.paragraphs === 0)
  );
}
