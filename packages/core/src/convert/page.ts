/**
 * One HTML page on its way to a Document. It parses once and computes each output lazily, at most
 * once: links and images come from the whole page (before cleaning), markdown and cleaned html
 * from what survives cleaning and main-content extraction.
 */
import render from 'dom-serializer';
import { isDocument } from 'domhandler';
import { cleanTree, keepIncluded, resolveUrl } from './clean.ts';
import {
  findBody,
  hasText,
  parseHtml,
  walkElements,
  type Element,
  type ParsedHtml,
  type ParentNode,
} from './dom.ts';
import { extractMainContent, fallbackContent, productNamesIn } from './main-content/index.ts';
import { treeToMarkdown } from './markdown.ts';
import { readPageHead, type PageMetadata } from './metadata.ts';
import { cleanMarkdown } from './clean-content.ts';
import { finishRedaction, redactTree, type Redaction } from './redact.ts';

/** The options that shape what an HTML page turns into. */
export interface HtmlPageOptions {
  onlyMainContent: boolean;
  onlyCleanContent: boolean;
  includeTags?: readonly string[] | undefined;
  excludeTags?: readonly string[] | undefined;
  removeBase64Images: boolean;
  blockAds: boolean;
  /** Personal data to redact from the content, before it becomes markdown or html. */
  redaction?: Redaction | undefined;
}

/** A parsed HTML page with lazily computed outputs. */
export class HtmlPage {
  readonly rawHtml: string;
  readonly url: string;
  readonly metadata: PageMetadata;
  readonly #options: HtmlPageOptions;
  /** Undefined when `url` is a label, not a URL to resolve against (`htmlToDocument`). */
  readonly #baseUrl: string | undefined;
  readonly #dom: ParsedHtml;
  /** Cleaning keeps hidden elements: the page hides all of its text until a script runs. */
  #keepHidden = false;
  #links: string[] | undefined;
  #images: string[] | undefined;
  #content: ParentNode | undefined;
  #markdown: string | undefined;

  /** `wantsPageWide` makes links and images be read before cleaning changes the tree. */
  constructor(
    rawHtml: string,
    url: string,
    options: HtmlPageOptions,
    wantsPageWide: { links: boolean; images: boolean },
  ) {
    this.rawHtml = rawHtml;
    this.url = url;
    this.#options = options;
    this.#dom = parseHtml(rawHtml);
    const head = readPageHead(this.#dom, url);
    this.metadata = head.metadata;
    this.#baseUrl = head.baseUrl ?? (URL.canParse('.', url) ? url : undefined);
    if (wantsPageWide.links || wantsPageWide.images) this.#collectPageWide(wantsPageWide);
  }

  /** Elements nested past `maxElementDepth` were flattened into siblings while parsing. */
  get flattened(): boolean {
    return this.#dom.flattened === true;
  }

  /** Absolute, deduplicated http(s) links of the whole page, fragments of this page left out. */
  get links(): string[] {
    if (!this.#links) this.#collectPageWide({ links: true, images: false });
    return this.#links ?? [];
  }

  /** Absolute, deduplicated image URLs of the whole page. */
  get images(): string[] {
    if (!this.#images) this.#collectPageWide({ links: false, images: true });
    return this.#images ?? [];
  }

  /** Markdown of the cleaned (and, by default, main) content. */
  get markdown(): string {
    if (this.#markdown === undefined) {
      let markdown = treeToMarkdown(this.#contentRoot());
      if (this.#options.redaction) markdown = finishRedaction(markdown);
      this.#markdown = this.#options.onlyCleanContent ? cleanMarkdown(markdown) : markdown;
    }
    return this.#markdown;
  }

  /** Cleaned HTML of the same content the markdown shows. */
  get html(): string {
    const root = this.#contentRoot();
    const html = render(isDocument(root) ? root.children : [root], {
      encodeEntities: 'utf8',
    }).trim();
    return this.#options.redaction ? finishRedaction(html) : html;
  }

  #contentRoot(): ParentNode {
    if (this.#content) return this.#content;
    const options = this.#options;
    let root: ParentNode = findBody(this.#dom) ?? this.#dom;
    // What the page's JSON-LD says it sells: cleaning removes the scripts that say it.
    const wantsMain = options.onlyMainContent && !options.includeTags?.length;
    const productNames = wantsMain ? productNamesIn(this.#dom) : [];
    cleanTree(root, { ...options, baseUrl: this.#baseUrl });
    // A page that hides all of its text until a script shows it (an article in a
    // `display: none` block) shows that text to every reader with a browser.
    if (!hasText(root) && hasText(parseHtml(this.rawHtml))) {
      this.#keepHidden = true;
      root = this.#freshCleanBody();
    }
    root = keepIncluded(root, options.includeTags);
    // The caller's include selectors already say what the content is.
    if (wantsMain) {
      // An implausible extraction (near-empty, link-only) falls back on a fresh parse: the first
      // attempt removed in place, and copying every page up front would cost more than
      // parsing the rare failure again.
      root =
        extractMainContent(root, this.url, productNames) ?? fallbackContent(this.#freshCleanBody());
    }
    if (options.redaction) redactTree(root, options.redaction);
    this.#content = root;
    return root;
  }

  /** The page parsed and cleaned again, untouched by main-content extraction. */
  #freshCleanBody(): ParentNode {
    const dom = parseHtml(this.rawHtml);
    const body: ParentNode = findBody(dom) ?? dom;
    cleanTree(body, { ...this.#options, baseUrl: this.#baseUrl, keepHidden: this.#keepHidden });
    return body;
  }

  #collectPageWide(wants: { links: boolean; images: boolean }): void {
    const links = new Set<string>();
    const images = new Set<string>();
    walkElements(this.#dom, collectLinkOrImage, {
      wants,
      links,
      images,
      baseUrl: this.#baseUrl,
      pageWithoutHash: this.url.split('#')[0],
      keepBase64: !this.#options.removeBase64Images,
    });
    if (wants.links) this.#links = [...links];
    if (wants.images) this.#images = [...images];
  }
}

/** What `#collectPageWide` gathers, and what it needs to resolve it. */
interface PageWideCollection {
  wants: { links: boolean; images: boolean };
  links: Set<string>;
  images: Set<string>;
  baseUrl: string | undefined;
  pageWithoutHash: string | undefined;
  keepBase64: boolean;
}

/**
 * Adds an element's link or image to the collection: a function of the module rather than a
 * closure per page, which V8 compiled again after every full GC (see walkElements).
 */
function collectLinkOrImage(element: Element, into: PageWideCollection): boolean {
  if (into.wants.links && element.name === 'a') {
    const href = element.attribs['href'];
    const absolute = href === undefined ? undefined : resolveUrl(href, into.baseUrl);
    if (absolute && /^https?:/.test(absolute) && absolute.split('#')[0] !== into.pageWithoutHash)
      into.links.add(absolute);
  } else if (into.wants.images && element.name === 'img') {
    const src = element.attribs['src'] ?? element.attribs['data-src'];
    if (src?.startsWith('data:')) {
      if (into.keepBase64) into.images.add(src);
    } else if (src) {
      const absolute = resolveUrl(src, into.baseUrl);
      if (absolute) into.images.add(absolute);
    }
  }
  return true;
}
