/**
 * Cleaning: what no output format should ever contain (scripts, styles, hidden elements,
 * comments), ads and trackers when `blockAds` is on, the caller's include/exclude selectors, and
 * absolute URLs for links and images. Works in place on the domhandler tree, in one walk.
 */
import { selectAll, compile } from 'css-select';
import { parse as parseSelector, SelectorType, type Selector } from 'css-what';
import { Element as DomElement, isCDATA, isDocument } from 'domhandler';
import { ValidationError } from '../errors.ts';
import { keepsHost, toAbsoluteUrl } from '../internal/url.ts';
import {
  detach,
  idAndClass,
  isTag,
  isText,
  type AnyNode,
  type Element,
  type ParentNode,
} from './dom.ts';

/** Placeholder for removed inline images; the alt text stays beside it. */
export const base64ImagePlaceholder = '<Base64-Image-Removed>';

// Never content in any format: executable, invisible or form plumbing.
const junkTags = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'link',
  'meta',
  'head',
  'svg',
  'canvas',
  'object',
  'embed',
  'param',
  'source',
  'track',
  'map',
  'dialog',
  'button',
  'input',
  'select',
  'textarea',
  'option',
]);

// Ad and tracker markers, from the class and id names the big ad networks and consent managers
// ship. A curated list rather than a full EasyList: cosmetic filter lists target browsers and
// would cost a selector match per rule per page.
const adPattern =
  /(?:^|[\s_-])(?:ads?|adv|advert|advertisement|advertising|adsbygoogle|adslot|ad-?slot|ad-?unit|ad-?container|ad-?wrapper|ad-?banner|ad-?placeholder|dfp|gpt-ad|div-gpt-ad|google-?ads?|sponsored-?(?:content|links|posts)?|taboola|outbrain|revcontent|mgid|onetrust(?:-consent-sdk|-banner-sdk)?|cookie-?(?:banner|consent|notice|bar|popup|law)|cc-(?:banner|window)|cookiebot|didomi(?:-host|-notice)?|qc-cmp2?-(?:ui|container)|truste-?banner|osano-cm-window|gdpr-?(?:banner|consent|notice))(?:$|[\s_-]|\d)/;
const adHosts =
  /(?:^|\.)(?:doubleclick\.net|googlesyndication\.com|googleadservices\.com|google-analytics\.com|googletagmanager\.com|amazon-adsystem\.com|adnxs\.com|taboola\.com|outbrain\.com|criteo\.(?:com|net)|pubmatic\.com|rubiconproject\.com|openx\.net|adsrvr\.org|moatads\.com|scorecardresearch\.com|quantserve\.com|facebook\.net|adform\.net|media\.net|revcontent\.com|mgid\.com|zemanta\.com|teads\.tv)$/;

/** What `cleanHtml` needs to know. */
export interface CleanOptions {
  /**
   * Base for relative URLs: `<base href>` or the page URL; undefined when there is none to
   * resolve against (`htmlToDocument` given a label), and relative URLs stay as written.
   */
  baseUrl: string | undefined;
  blockAds: boolean;
  removeBase64Images: boolean;
  includeTags?: readonly string[] | undefined;
  excludeTags?: readonly string[] | undefined;
  /**
   * Keep elements hidden by `hidden`, `aria-hidden` or an inline `display: none`: for a page that
   * hides all of its text until a script shows it, hiding is not what a reader sees.
   */
  keepHidden?: boolean;
}

/** Removes junk and ads, resolves URLs and base64 images, applies exclude selectors. In place. */
export function cleanTree(root: ParentNode, options: CleanOptions): void {
  cleanChildren(root, options);
  if (options.excludeTags?.length) {
    for (const element of selectAll(compileSelectors(options.excludeTags, 'excludeTags'), root)) {
      detach(element);
    }
  }
}

/**
 * Keeps only what the include selectors match, outermost matches in document order, under a new
 * root. Returns the root unchanged when no selector is given.
 */
export function keepIncluded(
  root: ParentNode,
  includeTags: readonly string[] | undefined,
): ParentNode {
  if (!includeTags?.length) return root;
  const matches = selectAll(compileSelectors(includeTags, 'includeTags'), root).filter(isTag);
  const matched = new Set<AnyNode>(matches);
  const outermost = matches.filter((element) => !hasAncestorIn(element, matched));
  const container = new DomElement('div', {});
  for (const element of outermost) {
    detach(element);
    element.parent = container;
    container.children.push(element);
  }
  linkSiblings(container.children);
  return container;
}

function hasAncestorIn(element: Element, set: ReadonlySet<AnyNode>): boolean {
  for (let parent = element.parent; parent; parent = parent.parent) {
    if (set.has(parent)) return true;
  }
  return false;
}

function linkSiblings(children: AnyNode[]): void {
  children.forEach((child, index) => {
    child.prev = children[index - 1] ?? null;
    child.next = children[index + 1] ?? null;
  });
}

const compiledSelectors = new Map<string, ReturnType<typeof compile>>();

/**
 * A no-op test (`:is(* *, *)` matches every element) that css-select rates as expensive. Put in
 * a selector's first step, it makes css-select memoize its descendant combinators per element,
 * which turns `p div div div div` on 120 nested divs from seconds of backtracking (n⁴ ancestor
 * walks) into one pass; css-select has no option that does this by itself.
 */
const memoizeDescendants: Selector = {
  type: SelectorType.Pseudo,
  name: 'is',
  data: [
    [
      { type: SelectorType.Universal, namespace: null },
      { type: SelectorType.Descendant },
      { type: SelectorType.Universal, namespace: null },
    ],
    [{ type: SelectorType.Universal, namespace: null }],
  ],
};

/**
 * Sibling combinators are not memoized: each `~` scans the earlier siblings again, so a chain
 * of them costs n^k on a wide list. A real selector needs few.
 */
const maxSiblingCombinators = 2;

/** Compiles CSS selectors once per distinct list; a bad selector is the caller's error. */
function compileSelectors(selectors: readonly string[], field: string): ReturnType<typeof compile> {
  const key = selectors.join('\u0000');
  let compiled = compiledSelectors.get(key);
  if (compiled) return compiled;
  const refuse = (message: string, cause?: unknown) =>
    new ValidationError(`Invalid CSS selector in ${field}: ${message}`, {
      details: [{ path: [field], message: 'invalid CSS selector' }],
      cause,
    });
  let parsed: Selector[][];
  try {
    parsed = parseSelector(selectors.join(', '));
  } catch (error) {
    throw refuse((error as Error).message, error);
  }
  for (const tokens of parsed) {
    const siblings = tokens.filter((token) => token.type === SelectorType.Sibling).length;
    if (siblings > maxSiblingCombinators)
      throw refuse(
        `a selector may use the ~ combinator at most ${maxSiblingCombinators} times (${siblings} given)`,
      );
  }
  try {
    compiled = compile(parsed.map((tokens) => [memoizeDescendants, ...tokens]));
  } catch (error) {
    throw refuse((error as Error).message, error);
  }
  // Selector lists repeat across a crawl's pages; a small cache avoids recompiling per page.
  if (compiledSelectors.size > 256) compiledSelectors.clear();
  compiledSelectors.set(key, compiled);
  return compiled;
}

/** Checks selectors up front so a typo fails before any fetch. @throws BAD_REQUEST */
export function validateSelectors(selectors: readonly string[] | undefined, field: string): void {
  if (selectors?.length) compileSelectors(selectors, field);
}

function cleanChildren(parent: ParentNode, options: CleanOptions): void {
  const kept: AnyNode[] = [];
  for (const child of parent.children) {
    if (isTag(child)) {
      if (shouldDrop(child, options)) continue;
      resolveUrls(child, options);
      cleanChildren(child, options);
      kept.push(child);
    } else if (isText(child) || isCDATA(child)) {
      kept.push(child);
    }
    // Comments, doctypes and processing instructions carry nothing for any output.
  }
  if (kept.length !== parent.children.length) {
    parent.children = kept;
    linkSiblings(kept);
  }
}

function shouldDrop(element: Element, options: CleanOptions): boolean {
  if (element.name === 'noscript') return !isNoscriptContent(element);
  if (junkTags.has(element.name)) return true;
  const attribs = element.attribs;
  // `hidden="until-found"` content is findable in the page (collapsed answers): it is content.
  const hidden = attribs['hidden'];
  if (
    !options.keepHidden &&
    ((hidden !== undefined && hidden !== 'until-found') || attribs['aria-hidden'] === 'true')
  ) {
    return true;
  }
  const style = attribs['style'];
  if (
    !options.keepHidden &&
    style &&
    /(?:display\s*:\s*none|visibility\s*:\s*hidden)/i.test(style) &&
    !isCollapsedPanel(element) &&
    !isMainLandmark(element.parent) &&
    !holdsMainLandmark(element)
  ) {
    return true;
  }
  if (element.name === 'iframe' || element.name === 'frame') {
    // An iframe has no content of its own in the parent page; keep it only for the html format
    // when it is not an ad.
    return options.blockAds && isAdUrl(attribs['src']);
  }
  if (options.blockAds) {
    const names = idAndClass(element);
    if (names && adPattern.test(names) && !wrapsPageContent(element)) return true;
    if (element.name === 'ins' && names.includes('adsbygoogle')) return true;
    if (element.name === 'a' || element.name === 'img') {
      if (isAdUrl(attribs['href'] ?? attribs['src'])) return true;
    }
  }
  return false;
}

// Prose (text outside links) from which an element is more than an ad unit: ads hold a line or
// two, and teaser widgets (Outbrain, Taboola) are links. `article` is not a sign of the page:
// sponsored-post widgets wrap each teaser card in one.
const adProseLimit = 1000;
const pageStructureTags = new Set(['main', 'h1']);

/**
 * Ad "takeover" wrappers (`#Ads_BA_TakeOver`) and skins put the whole page inside an element
 * named like an ad; removing it would remove the page. Such an element holds the page's main
 * heading, its `main`, or more prose than any ad unit.
 */
function wrapsPageContent(element: Element): boolean {
  let prose = 0;
  const visit = (node: AnyNode, inLink: boolean): boolean => {
    if (isText(node)) {
      if (!inLink) prose += node.data.trim().length;
      return prose >= adProseLimit;
    }
    if (!isTag(node) || junkTags.has(node.name)) return false;
    if (pageStructureTags.has(node.name)) return true;
    const link = inLink || node.name === 'a';
    return node.children.some((child) => visit(child, link));
  };
  return element.children.some((child) => visit(child, false));
}

/** Characters of text from which a `<noscript>` block is content rather than a notice. */
const noscriptContentChars = 200;

/**
 * Forum software (Discourse) and some blog platforms (Blogger's templated posts) serve the
 * content itself inside `<noscript>` for clients without JavaScript, as we are: that is content.
 * A short "please enable JavaScript" notice or a tracking pixel is not.
 */
function isNoscriptContent(element: Element): boolean {
  const text = visibleText(element);
  if (text.length < noscriptContentChars) return false;
  // A page rendered in a browser already shows what its <noscript> says (Chromium serialises
  // the block's markup all the same): keep it only when the rest of the page lacks its text.
  const sample = text.slice(0, 80);
  return !textOutsideNoscript(element).includes(sample);
}

/** Text of a subtree with white space folded, scripts, styles and nested notices left out. */
function visibleText(root: AnyNode): string {
  const parts: string[] = [];
  const collect = (node: AnyNode): void => {
    if (isText(node)) parts.push(node.data);
    else if (isDocument(node)) node.children.forEach(collect);
    else if (isTag(node) && (node === root || !junkTags.has(node.name)))
      node.children.forEach(collect);
  };
  collect(root);
  return parts.join(' ').replace(/\s+/g, ' ').trim();
}

// Computed once per document, and only for pages with a <noscript> worth keeping.
const outsideTextByRoot = new WeakMap<AnyNode, string>();

function textOutsideNoscript(element: Element): string {
  let top: AnyNode = element;
  while (top.parent) top = top.parent;
  let text = outsideTextByRoot.get(top);
  if (text === undefined) {
    text = visibleText(top);
    outsideTextByRoot.set(top, text);
  }
  return text;
}

// Tab panels and accordion bodies are hidden until clicked, but they hold the page's content
// (a product's specifications and reviews), unlike hidden menus and modals.
const panelClass =
  /(?:^|[\s_-])(?:tab-?pane|tab-?panel|tabs-panel|wc-tab|accordion|collapse|panel-body)(?:$|[\s_-])/i;

/**
 * A hidden block around the page's `<main>`, or standing straight in it, is hidden until a
 * script shows it (a store's content-lock, a page loader): every reader with a browser sees it,
 * so it is content.
 */
function holdsMainLandmark(element: Element): boolean {
  if (isMainLandmark(element)) return true;
  for (const child of element.children) if (isTag(child) && holdsMainLandmark(child)) return true;
  return false;
}

function isMainLandmark(node: ParentNode | null): boolean {
  return node !== null && isTag(node) && (node.name === 'main' || node.attribs['role'] === 'main');
}

function isCollapsedPanel(element: Element): boolean {
  return element.attribs['role'] === 'tabpanel' || panelClass.test(element.attribs['class'] ?? '');
}

function isAdUrl(src: string | undefined): boolean {
  if (!src || keepsHost(src)) return false;
  try {
    return adHosts.test(new URL(src, 'https://x.invalid/').hostname);
  } catch {
    return false;
  }
}

/**
 * `href` made absolute against `base`; without a base, an absolute URL as it is and a relative
 * one as written. Undefined for what no reader can follow (`javascript:`, unparseable).
 */
export function resolveUrl(href: string, base: string | undefined): string | undefined {
  if (base !== undefined) return toAbsoluteUrl(href, base);
  const trimmed = href.trim();
  if (URL.canParse(trimmed)) return toAbsoluteUrl(trimmed, trimmed);
  return trimmed === '' ? undefined : trimmed;
}

function resolveUrls(element: Element, options: CleanOptions): void {
  const attribs = element.attribs;
  if (element.name === 'a') {
    const href = attribs['href'];
    // A jump within the page is not a destination for a reader of the markdown: keep the text.
    if (href?.trim().startsWith('#')) {
      delete attribs['href'];
      return;
    }
    if (href !== undefined) {
      const absolute = resolveUrl(href, options.baseUrl);
      if (absolute) attribs['href'] = absolute;
      else delete attribs['href'];
    }
    return;
  }
  if (element.name === 'img') {
    const src = pickImageSource(attribs);
    if (src === undefined) return;
    if (src.startsWith('data:')) {
      attribs['src'] = options.removeBase64Images ? base64ImagePlaceholder : src;
      return;
    }
    const absolute = resolveUrl(src, options.baseUrl);
    if (absolute) attribs['src'] = absolute;
    else delete attribs['src'];
  }
}

/**
 * The real image URL: lazy loaders keep it in data-src and put a 1×1 placeholder (often a
 * data: GIF) in src; srcset's largest candidate beats a small src.
 */
function pickImageSource(attribs: Record<string, string>): string | undefined {
  const lazy = attribs['data-src'] ?? attribs['data-lazy-src'] ?? attribs['data-original'];
  const src = attribs['src'];
  if (lazy && (!src || src.startsWith('data:') || src.endsWith('.gif'))) return lazy;
  if (src) return src;
  const srcset = attribs['srcset'] ?? attribs['data-srcset'];
  return srcset ? largestFromSrcset(srcset) : undefined;
}

function largestFromSrcset(srcset: string): string | undefined {
  let best: { url: string; size: number } | undefined;
  for (const candidate of srcset.split(/,\s+/)) {
    const [url, descriptor] = candidate.trim().split(/\s+/);
    if (!url) continue;
    const size = Number.parseFloat(descriptor ?? '1') || 1;
    if (!best || size > best.size) best = { url, size };
  }
  return best?.url;
}
