/**
 * The content cut into text blocks in reading order, as a reader sees paragraphs: each block is
 * an element with no block inside (a paragraph, a heading, a list item), a list or table taken
 * whole, or a run of loose text and inline elements between two blocks. The paragraph classifier
 * (paragraphs.ts) judges these.
 */
import { headingTags, isTag, isText, type AnyNode, type Element, type ParentNode } from '../dom.ts';
import { measureText, type Measure } from './text-scan.ts';

/** One text block of the content. */
export interface TextBlock {
  /** The nodes that make the block, in order: one element, or a run of inline nodes. */
  nodes: AnyNode[];
  /** Characters a reader reads, CJK characters weighted as the words they stand for. */
  length: number;
  /** The share of that inside links. */
  linkDensity: number;
  isHeading: boolean;
  /** A `<pre>`: code or a transcript, content however short (a docs page's closing command). */
  isCode: boolean;
  /** Holds a copyright sign: a legal line, never an article's text. */
  hasCopyright: boolean;
  /** Ends as a sentence does (`.`, `!`, `?`, `…`, a closing quote after one of them). */
  endsSentence: boolean;
}

// Tags that start a new block; anything else is inline and joins the run it stands in.
const blockTags = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'center',
  'dd',
  'details',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  ...headingTags,
  'header',
  'hr',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'table',
  'tbody',
  'td',
  'th',
  'thead',
  'tr',
  'ul',
]);

// Taken whole: a list's items or a table's cells are short one by one, yet together they are a
// specification, a recipe's ingredients or a glossary. A list of links stays link-dense whole.
const unitTags = new Set(['ul', 'ol', 'dl', 'table', 'pre']);

function measureNode(node: AnyNode, inLink: boolean, into: Measure): void {
  if (isText(node)) measureText(node.data, inLink, into);
  else if (isTag(node)) {
    const linked = inLink || node.name === 'a';
    for (const child of node.children) measureNode(child, linked, into);
  }
}

// . ! ? … and the full-width stops of CJK text.
const sentenceEnds = new Set([0x2e, 0x21, 0x3f, 0x2026, 0x3002, 0xff01, 0xff1f]);

/**
 * Elements that hold a block tag somewhere below them, found in one pass; whether `node` does.
 * Functions of the module rather than closures per page (see stats.ts).
 */
function findBlockBearers(node: ParentNode, bearers: Set<Element>): boolean {
  let bears = false;
  for (const child of node.children) {
    if (!isTag(child)) continue;
    if (findBlockBearers(child, bearers) || blockTags.has(child.name)) bears = true;
  }
  if (bears && isTag(node)) bearers.add(node);
  return bears;
}

/** Cuts `root` into text blocks in reading order. Blocks without text are left out. */
export function splitIntoBlocks(root: ParentNode): TextBlock[] {
  const bearers = new Set<Element>();
  findBlockBearers(root, bearers);
  const splitter = new BlockSplitter(bearers);
  splitter.visit(root, false);
  splitter.flush();
  return splitter.blocks;
}

/** One split: the blocks so far and the run of inline nodes not yet closed. */
class BlockSplitter {
  readonly blocks: TextBlock[] = [];
  readonly #bearers: Set<Element>;
  #run: AnyNode[] = [];
  #runInLink = false;

  constructor(bearers: Set<Element>) {
    this.#bearers = bearers;
  }

  visit(parent: ParentNode, inLink: boolean): void {
    for (const child of parent.children) {
      if (!isTag(child)) {
        if (isText(child)) this.#extendRun(child, inLink);
        continue;
      }
      const isBlock = blockTags.has(child.name);
      if (!this.#bearers.has(child) || unitTags.has(child.name)) {
        if (isBlock) {
          this.flush();
          this.#push([child], inLink, child);
        } else {
          this.#extendRun(child, inLink);
        }
        continue;
      }
      // A container (or an inline element wrapping blocks, such as a link around a card).
      this.flush();
      this.visit(child, inLink || child.name === 'a');
      this.flush();
    }
  }

  /** Closes the run of inline nodes as a block. */
  flush(): void {
    if (this.#run.length > 0) this.#push(this.#run, this.#runInLink);
    this.#run = [];
  }

  #extendRun(node: AnyNode, inLink: boolean): void {
    if (this.#run.length === 0) this.#runInLink = inLink;
    this.#run.push(node);
  }

  #push(nodes: AnyNode[], inLink: boolean, element?: Element): void {
    const measure: Measure = { length: 0, linkLength: 0, hasCopyright: false, last: 0 };
    for (const node of nodes) measureNode(node, inLink, measure);
    if (measure.length === 0) return;
    this.blocks.push({
      nodes,
      length: measure.length,
      linkDensity: measure.linkLength / measure.length,
      isHeading: element !== undefined && headingTags.has(element.name),
      isCode: element?.name === 'pre',
      hasCopyright: measure.hasCopyright,
      endsSentence: sentenceEnds.has(measure.last),
    });
  }
}
