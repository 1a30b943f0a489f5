/**
 * The light DOM the whole HTML pipeline works on: htmlparser2's domhandler tree. It parses several
 * times faster than a spec-complete parser and css-select queries it directly, so cleaning,
 * selectors and main-content scoring never build a second tree; only the part that survives is
 * converted to hast for unified (see markdown.ts).
 */
import { Parser, Tokenizer } from 'htmlparser2';
import {
  DomHandler,
  Element as DomElement,
  isDocument,
  isTag,
  isText,
  type AnyNode,
  type Document,
  type Element,
  type ParentNode,
  type Text,
} from 'domhandler';
import { removeElement } from 'domutils';

export type { AnyNode, Document as HtmlDocument, Element, ParentNode, Text };
export { isTag, isText };

export const headingTags: ReadonlySet<string> = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

/** The members of htmlparser2's tokenizer that the subclass below reaches (private in its types). */
interface TokenizerInternals {
  stateBeforeDeclaration(c: number): void;
  cbs: { isInForeignContext?: () => boolean };
}

const openingBracket = 0x5b;
const anyLetterButD = 0x78;

/**
 * htmlparser2 reads `<![CDATA[` in HTML content as a CDATA section that runs to `]]>`: a stray one
 * (XenForo themes print one after `<body>`) swallowed the whole page. The HTML parsing algorithm
 * makes it a bogus comment that ends at the next `>` outside SVG and MathML, as browsers show it.
 */
class HtmlTokenizer extends Tokenizer {}
const tokenizerProto = Tokenizer.prototype as unknown as TokenizerInternals;
(HtmlTokenizer.prototype as unknown as TokenizerInternals).stateBeforeDeclaration = function (
  this: TokenizerInternals,
  c: number,
): void {
  const bogus = c === openingBracket && !this.cbs.isInForeignContext?.();
  tokenizerProto.stateBeforeDeclaration.call(this, bogus ? anyLetterButD : c);
};

/**
 * How deep elements nest in a parsed page. Deeper elements become siblings of the last element
 * at this depth, as browsers' HTML parsers do (Blink flattens at the same 512): every walk of the
 * tree (cleaning, main content, hast and mdast, the markdown writer) recurses, and a page of
 * 100,000 nested tags would otherwise overflow the stack, or take seconds per thousand levels.
 */
export const maxElementDepth = 512;

/**
 * domhandler's tree builder with the depth cap applied while parsing: an element opened past the
 * cap is added where it stands but not entered, so what follows it lands beside it. A counter
 * per page, not a second walk of the tree, so an ordinary page pays one comparison a tag.
 */
class DepthCappedHandler extends DomHandler {
  /** Open elements past the cap, which the parser will close first. */
  #flattened = 0;
  truncated = false;

  override onopentag(name: string, attribs: Record<string, string>): void {
    // tagStack holds the document root too.
    if (this.tagStack.length <= maxElementDepth) {
      super.onopentag(name, attribs);
      return;
    }
    this.addNode(new DomElement(name, attribs));
    this.#flattened += 1;
    this.truncated = true;
  }

  override onclosetag(): void {
    if (this.#flattened > 0) {
      this.#flattened -= 1;
      this.lastNode = null;
      return;
    }
    super.onclosetag();
  }
}

/**
 * htmlparser2's own stack of open elements, capped at the same depth: it adds each element at the
 * array's front, a copy of the whole stack per tag, so a million unclosed `<div>`s took minutes
 * whatever the tree builder did with them. Past the cap an element counts as void
 * while it opens (added and closed at once, which is how DepthCappedHandler flattens it); closing
 * tags are read as always.
 */
class DepthCappedParser extends Parser {
  #closing = false;
  // Asked when a tag opens and again when its start tag ends, by then on the stack or not: the
  // first answer holds for both (keyed by where the tag starts).
  #decidedAt = -1;
  #capped = false;

  override isVoidElement(name: string): boolean {
    if (super.isVoidElement(name)) return true;
    if (this.#closing) return false;
    // Both are private in htmlparser2's types, and both are what the cap is about.
    const parser = this as unknown as { stack: readonly string[]; openTagStart: number };
    if (parser.openTagStart !== this.#decidedAt) {
      this.#decidedAt = parser.openTagStart;
      this.#capped = parser.stack.length >= maxElementDepth;
    }
    return this.#capped;
  }

  override onclosetag(start: number, endIndex: number): void {
    this.#closing = true;
    try {
      super.onclosetag(start, endIndex);
    } finally {
      this.#closing = false;
    }
  }
}

/** A parsed page, and whether its nesting was flattened at `maxElementDepth`. */
export type ParsedHtml = Document & { flattened?: true };

/**
 * Parses HTML into a domhandler tree (tag and attribute names lower-cased, entities decoded);
 * elements nested deeper than `maxElementDepth` are flattened, and the document says so.
 */
export function parseHtml(html: string): ParsedHtml {
  const options = { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true };
  const handler = new DepthCappedHandler();
  new DepthCappedParser(handler, { ...options, Tokenizer: HtmlTokenizer }).end(html);
  const document: ParsedHtml = handler.root;
  if (handler.truncated) document.flattened = true;
  closeHeadWithoutBody(document);
  return document;
}

// What may stand in <head>; anything else starts the body (the HTML parsing algorithm's rule).
const headTags = new Set([
  'base',
  'basefont',
  'bgsound',
  'link',
  'meta',
  'title',
  'noscript',
  'noframes',
  'style',
  'script',
  'template',
]);

/**
 * A page without `<body>` or `</head>` (seen on real sites) leaves htmlparser2 nesting the whole
 * page inside `<head>`, which cleaning drops. A browser closes the head at the first element that
 * does not belong there and opens the body: do the same.
 */
function closeHeadWithoutBody(document: Document): void {
  const html = document.children.find((child) => isTag(child) && child.name === 'html');
  if (!html || !isTag(html) || html.children.some((child) => isTag(child) && child.name === 'body'))
    return;
  const head = html.children.find((child) => isTag(child) && child.name === 'head');
  if (!head || !isTag(head)) return;
  const start = head.children.findIndex((child) =>
    isTag(child) ? !headTags.has(child.name) : isText(child) && /\S/.test(child.data),
  );
  if (start < 0) return;
  const body = new DomElement('body', {}, head.children.splice(start));
  for (const child of body.children) child.parent = body;
  const first = body.children[0];
  if (first) first.prev = null;
  const lastOfHead = head.children.at(-1);
  if (lastOfHead) lastOfHead.next = null;
  const lastOfHtml = html.children.at(-1) ?? null;
  body.parent = html;
  body.prev = lastOfHtml;
  if (lastOfHtml) lastOfHtml.next = body;
  html.children.push(body);
}

/** Removes a node from its parent. */
export function detach(node: AnyNode): void {
  removeElement(node);
}

/**
 * The page's body: the one the document's `<html>` holds. A stray `<html>…<body>` fragment pasted
 * into `<head>` (a site's embed code) comes first in document order, yet browsers merge it into
 * the real one; taking it would show a page of scripts.
 */
export function findBody(document: ParentNode): Element | undefined {
  for (const child of document.children) {
    if (!isTag(child) || child.name !== 'html') continue;
    for (const part of child.children) if (isTag(part) && part.name === 'body') return part;
  }
  return findFirst(document, 'body');
}

/** The first element with this tag name, in document order. */
export function findFirst(root: ParentNode, tagName: string): Element | undefined {
  for (const child of root.children) {
    if (!isTag(child)) continue;
    if (child.name === tagName) return child;
    const found = findFirst(child, tagName);
    if (found) return found;
  }
  return undefined;
}

/**
 * Calls `visit` for every element below `root` in document order; return false to skip children.
 * `context` is passed to each call, so that a hot walk can use a function of its module instead
 * of a closure made per page: V8 keeps a closure's optimised code only while that closure lives,
 * and a closure per page was compiled again after every full GC of the conversion thread, some
 * fifty times in a 2,000-page crawl.
 */
export function walkElements<C = undefined>(
  root: ParentNode,
  visit: (element: Element, context: C) => boolean | void,
  context?: C,
): void {
  for (const child of root.children) {
    if (!isTag(child)) continue;
    if (visit(child, context as C) !== false) walkElements(child, visit, context);
  }
}

/** The text of a subtree with runs of white space folded to one space, trimmed. */
export function collapsedText(node: AnyNode): string {
  const parts: string[] = [];
  collectText(node, parts);
  return parts.join('').replace(foldableSpace, ' ').trim();
}

// A run of white space other than one plain space: the same folding as /\s+/ → ' ', without
// rebuilding a string whose runs are all single spaces already.
const foldableSpace = / ?[^\S ]\s*| \s+/g;

function collectText(node: AnyNode, parts: string[]): void {
  if (isText(node)) parts.push(node.data);
  else if (isTag(node) || isDocument(node)) {
    for (const child of (node as ParentNode).children) collectText(child, parts);
  }
}

// Elements whose text no reader sees as text.
const codeTags = new Set(['script', 'style', 'template', 'noscript']);

/** True when some text of the subtree, outside scripts and styles, is more than white space. */
export function hasText(node: AnyNode): boolean {
  if (isText(node)) return /\S/.test(node.data);
  if (isTag(node) && codeTags.has(node.name)) return false;
  return (isTag(node) || isDocument(node)) && (node as ParentNode).children.some(hasText);
}

/** `id` and `class` of an element as one lower-cased string, for pattern tests. */
export function idAndClass(element: Element): string {
  const id = element.attribs['id'];
  const cls = element.attribs['class'];
  if (!id && !cls) return '';
  return `${id ?? ''} ${cls ?? ''}`.toLowerCase();
}
