/**
 * Our own writer for the block structure of the mdast we build, byte for byte what
 * mdast-util-to-markdown writes with our settings (markdown.ts), at a fraction of its cost.
 *
 * The library's generic machinery — a position tracker moved over every string, a dispatcher per
 * node, a pairing pass for emphasis over every run of inline content, a tree walk per heading to
 * decide between ATX and setext — was over a third of a page's conversion in a profiled crawl
 * (issue 17), for a tree that uses a few node types and one set of options. This writer does the
 * flow (root, paragraphs, headings, quotes, lists, code, rules) and the plain inline content (text,
 * links) itself, with the library's own rules for joining blocks, bullets and escaping, and hands
 * the rest to the library on the same state, so each construct is still written by one code path:
 * inline content holding emphasis, strong or strikethrough (whose markers the library pairs), a
 * setext heading, an autolink, images, inline code, breaks and tables. A tree with anything else
 * goes to the library whole.
 *
 * The state is the library's own, taken once from a processor with our settings: its escaping
 * rules, its `safe` and its handlers are what the library uses, and this writer keeps its
 * construct stack as the library would.
 */
import type {
  Blockquote,
  Code,
  Heading,
  Link,
  List,
  ListItem,
  Nodes,
  Parents,
  PhrasingContent,
  Root,
  RootContent,
} from 'mdast';
import type { ConstructName, Handle, Info, State } from 'mdast-util-to-markdown';
import {
  characterReference,
  firstCharacter,
  hasLiteralBreak,
  isAutolink,
  isPlainPhrasing,
  isSetext,
  isWritable,
  labelEndsBeforeColon,
  lastCharacter,
  longestRun,
  prefixLines,
} from './markdown-syntax.ts';
import { escapedText, safeValue } from './markdown-text.ts';

type Block = RootContent;
type FlowParent = Root | Blockquote | List | ListItem;

/** Where the library's tracker would start; it only reads it, and we write no positions. */
const start = Object.freeze({ line: 1, column: 1 });
function around(before: string, after: string): Info {
  return { before, after, now: start, lineShift: 0 };
}
// Every block is written with line endings around it, as the library's flow container does.
const flowInfo = around('\n', '\n');

// The library's tests of link destinations: control characters and spaces need `<…>`.
const needsEnclosing = /[\0- \u007F]/;

/** Writes mdast as markdown on a state taken from the library, or says it cannot. */
export class MarkdownWriter {
  readonly #state: State;

  constructor(state: State) {
    this.#state = state;
  }

  /** The markdown the library would write for `root`; undefined for a tree this writer leaves to it. */
  write(root: Root): string | undefined {
    if (!isWritable(root)) return undefined;
    const state = this.#state;
    state.stack = [];
    state.indexStack = [];
    state.bulletCurrent = undefined;
    state.bulletLastUsed = undefined;
    let result = this.#flow(root);
    // As the library ends a document.
    const last = result.charCodeAt(result.length - 1);
    if (result && last !== 10 && last !== 13) result += '\n';
    return result;
  }

  #flow(parent: FlowParent): string {
    const children = parent.children as Block[];
    let result = '';
    for (let index = 0; index < children.length; index++) {
      const child = children[index]!;
      result += this.#block(child, parent, index);
      if (child.type !== 'list') this.#state.bulletLastUsed = undefined;
      if (index < children.length - 1) result += this.#between(child, children[index + 1]!, parent);
    }
    return result;
  }

  #block(node: Block, parent: FlowParent, index: number): string {
    switch (node.type) {
      case 'paragraph': {
        this.#enter('paragraph', 'phrasing');
        const value = this.#phrasing(node, flowInfo);
        this.#exit(2);
        return value;
      }
      case 'heading':
        return this.#heading(node, parent);
      case 'blockquote': {
        this.#enter('blockquote');
        const value = prefixLines(this.#flow(node), '> ', '>', '> ', '>');
        this.#exit(1);
        return value;
      }
      case 'list':
        return this.#list(node);
      case 'listItem':
        return this.#listItem(node, parent as List, index);
      case 'code':
        return this.#code(node);
      case 'thematicBreak':
        return '---';
      default:
        // Tables: the library's handler (ours around gfm's), which enters its own constructs.
        return this.#state.handle(node, parent, this.#state, flowInfo);
    }
  }

  /**
   * Enters constructs as the library's `enter` does. No closures per node here: a closure made
   * per call loses its optimised code at every full GC of the worker (issue 17), and a failed
   * write leaves nothing behind, as `write` starts from an empty stack.
   */
  #enter(...constructs: ConstructName[]): void {
    this.#state.stack.push(...constructs);
  }

  #exit(count: number): void {
    this.#state.stack.length -= count;
  }

  #heading(node: Heading, parent: FlowParent): string {
    // A break or a line ending may make it a setext heading: the library decides and writes it.
    if (hasLiteralBreak(node)) return this.#state.handle(node, parent, this.#state, flowInfo);
    const sequence = '#'.repeat(Math.max(Math.min(6, node.depth || 1), 1));
    this.#enter('headingAtx', 'phrasing');
    let value = this.#phrasing(node, around('# ', '\n'));
    this.#exit(2);
    const head = value.charCodeAt(0);
    if (head === 9 || head === 32) value = characterReference(head) + value.slice(1);
    return value ? `${sequence} ${value}` : sequence;
  }

  #list(node: List): string {
    const state = this.#state;
    let bullet = node.ordered ? '.' : '-';
    const bulletOther = node.ordered ? ')' : '*';
    let useDifferentMarker = state.bulletLastUsed ? bullet === state.bulletLastUsed : false;
    // A `-` item starting with a `---` rule would read as a setext heading underline.
    if (!node.ordered)
      for (const item of node.children)
        if (item.children[0]?.type === 'thematicBreak') useDifferentMarker = true;
    if (useDifferentMarker) bullet = bulletOther;
    const bulletCurrent = state.bulletCurrent;
    state.bulletCurrent = bullet;
    this.#enter('list');
    const value = this.#flow(node);
    this.#exit(1);
    state.bulletLastUsed = bullet;
    state.bulletCurrent = bulletCurrent;
    return value;
  }

  /** Item `index` of `list`: passed down, as the library's indexOf per item is quadratic. */
  #listItem(node: ListItem, list: List, index: number): string {
    let bullet = this.#state.bulletCurrent || '-';
    if (list.ordered) {
      const start = typeof list.start === 'number' && list.start > -1 ? list.start : 1;
      bullet = `${start + index}${bullet}`;
    }
    // listItemIndent 'one': one space after the marker, continuation lines under its text.
    this.#enter('listItem');
    const value = this.#flow(node);
    this.#exit(1);
    return prefixLines(value, `${bullet} `, bullet, ' '.repeat(bullet.length + 1), '');
  }

  #code(node: Code): string {
    const state = this.#state;
    const raw = node.value || '';
    const sequence = '`'.repeat(Math.max(longestRun(raw, '`') + 1, 3));
    this.#enter('codeFenced');
    let value = sequence;
    if (node.lang) {
      this.#enter('codeFencedLangGraveAccent');
      value += state.safe(node.lang, { before: value, after: ' ', encode: ['`'] });
      this.#exit(1);
      if (node.meta) {
        value += ' ';
        this.#enter('codeFencedMetaGraveAccent');
        value += state.safe(node.meta, { before: value, after: '\n', encode: ['`'] });
        this.#exit(1);
      }
    }
    value += '\n';
    if (raw) value += `${raw}\n`;
    this.#exit(1);
    return value + sequence;
  }

  /** Inline content: written here when plain, by the library's phrasing otherwise. */
  #phrasing(parent: Parents, info: Info): string {
    const children = parent.children as PhrasingContent[];
    if (!children.every(isPlainPhrasing)) return this.#state.containerPhrasing(parent, info);
    let result = '';
    let before = info.before;
    // Where the library's text handler finds a text's neighbouring nodes.
    const indexStack = this.#state.indexStack;
    indexStack.push(-1);
    for (let index = 0; index < children.length; index++) {
      const child = children[index]!;
      indexStack[indexStack.length - 1] = index;
      const next = children[index + 1];
      const after = next ? firstCharacter(this.#peek(next, parent)) : info.after;
      const value = this.#inline(child, parent, around(before, after));
      if (!value) continue;
      result += value;
      before = lastCharacter(value);
    }
    indexStack.pop();
    return result;
  }

  #inline(node: PhrasingContent, parent: Parents, info: Info): string {
    const state = this.#state;
    if (node.type === 'text') return escapedText(node, parent, state, info);
    if (node.type === 'link' && !isAutolink(node)) return this.#link(node, info);
    return state.handle(node, parent, state, info);
  }

  /** What the library looks at to know the character after a node: its peek, or the node written. */
  #peek(node: PhrasingContent, parent: Parents): string {
    switch (node.type) {
      case 'link':
        return isAutolink(node) ? '<' : '[';
      case 'image':
        return '!';
      case 'inlineCode':
        return '`';
      default:
        return this.#inline(node, parent, around('', ''));
    }
  }

  #link(node: Link, info: Info): string {
    const state = this.#state;
    this.#enter('link', 'label');
    let value = '[';
    const text = this.#phrasing(node, around(value, ']('));
    this.#exit(1);
    value += `${text}](`;
    const enclose = needsEnclosing.test(node.url);
    const last = info.before.charAt(info.before.length - 1);
    let title = node.title || undefined;
    // At the start of a line, `[text]:` would read as a definition: an empty title prevents it.
    if (!title && !enclose && (last === '\n' || last === '\r') && labelEndsBeforeColon(text))
      title = '';
    if ((!node.url && typeof title === 'string') || enclose) {
      value += '<';
      this.#enter('destinationLiteral');
      value += safeValue(state, node.url, { before: value, after: '>' });
      value += '>';
    } else {
      this.#enter('destinationRaw');
      value += safeValue(state, node.url, {
        before: value,
        after: typeof title === 'string' ? ' ' : ')',
      });
    }
    this.#exit(1);
    if (typeof title === 'string') {
      value += ' "';
      this.#enter('titleQuote');
      value += safeValue(state, title, { before: value, after: '"' });
      this.#exit(1);
      value += '"';
    }
    this.#exit(1);
    return `${value})`;
  }

  /**
   * The blank lines between two blocks: the library's join rules (its defaults and GFM table's)
   * for the nodes we build, which have no HTML, definitions or indented code.
   */
  #between(left: Block, right: Block, parent: FlowParent): string {
    // GFM: text right after a table in a tight item would read as its rows.
    if (
      left.type === 'table' &&
      parent.type === 'listItem' &&
      parent.spread === false &&
      ((right.type === 'heading' && isSetext(right)) ||
        right.type === 'paragraph' ||
        right.type === 'table')
    )
      return '\n\n';
    const spread = (parent as { spread?: unknown }).spread;
    if (typeof spread !== 'boolean' || spread) return '\n\n';
    if (left.type === 'blockquote' && right.type === 'blockquote') return '\n\n';
    // A list that would continue the paragraph, or a `---` that would underline it.
    if (
      left.type === 'paragraph' &&
      ((right.type === 'list' &&
        ((right.ordered && typeof right.start === 'number' && right.start !== 1) ||
          (right.children.length > 0 && right.children[0]!.children.length === 0))) ||
        right.type === 'thematicBreak')
    )
      return '\n\n';
    let tail: Nodes = left;
    while (
      (tail.type === 'blockquote' || tail.type === 'list' || tail.type === 'listItem') &&
      tail.children.length > 0
    )
      tail = tail.children[tail.children.length - 1]!;
    if (tail.type !== 'paragraph') return '\n';
    // Text right after a paragraph, or at the end of a container, would join it.
    if (
      (left.type === 'paragraph' || (left as Nodes) !== tail) &&
      ((right.type === 'heading' && isSetext(right)) || right.type === 'paragraph')
    )
      return '\n\n';
    return '\n';
  }
}

/** A handler that hands over the library's state, to take it once from a configured processor. */
export function stateCatcher(keep: (state: State) => void): Handle {
  return (_node, _parent, state) => {
    keep(state);
    return '';
  };
}
