/**
 * Our markdown writer for the mdast we build: byte for byte what mdast-util-to-markdown (through
 * remark-stringify with remark-gfm) writes with our settings (markdown.ts), at a fraction of its
 * cost.
 *
 * The library's generic machinery — a position tracker moved over every string, a dispatcher
 * per node, ~90 escaping rules run over every text, a tree walk per heading — was the largest
 * part of a page's conversion in profiled crawls, for a tree that uses a few
 * node types and one set of options. This file writes the blocks (root, paragraphs, headings,
 * quotes, lists, code, rules, HTML) and how they are joined; markdown-phrasing.ts the inline
 * content, markdown-table-writer.ts tables. A tree with a node we never build (definitions,
 * footnotes, task items) is left to the library (markdown.ts).
 */
import type { Blockquote, Code, Heading, List, ListItem, Nodes, Root, RootContent } from 'mdast';
import { writeInline, type WriterState } from './markdown-phrasing.ts';
import {
  characterReference,
  htmlKind,
  isSetext,
  unwritable,
  longestRun,
  prefixLines,
} from './markdown-syntax.ts';
import { escape } from './markdown-escape.ts';
import { writeTable } from './markdown-table-writer.ts';

type Block = RootContent;
type FlowParent = Root | Blockquote | List | ListItem;

/** Writes mdast as markdown, or says it cannot. */
export class MarkdownWriter {
  readonly #state: WriterState = { stack: [] };
  /** The bullet of the list being written, and of the last list written at this level. */
  #bulletCurrent: string | undefined;
  #bulletLastUsed: string | undefined;

  /** The markdown the library would write for `root`; undefined for a tree this writer leaves to it. */
  write(root: Root): string | undefined {
    this.#state.stack = [];
    this.#bulletCurrent = undefined;
    this.#bulletLastUsed = undefined;
    let result: string;
    try {
      result = this.#flow(root);
    } catch (error) {
      if (error === unwritable) return undefined;
      throw error;
    }
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
      if (child.type !== 'list') this.#bulletLastUsed = undefined;
      if (index < children.length - 1) result += between(child, children[index + 1]!, parent);
    }
    return result;
  }

  #block(node: Block, parent: FlowParent, index: number): string {
    const stack = this.#state.stack;
    switch (node.type) {
      case 'paragraph': {
        stack.push('paragraph', 'phrasing');
        const value = writeInline(this.#state, node, '\n', '\n');
        stack.length -= 2;
        return value;
      }
      case 'heading':
        return this.#heading(node);
      case 'blockquote': {
        stack.push('blockquote');
        const value = prefixLines(this.#flow(node), '> ', '>', '> ', '>');
        stack.pop();
        return value;
      }
      case 'list':
        return this.#list(node);
      case 'listItem':
        if (parent.type !== 'list') throw unwritable;
        return this.#listItem(node, parent, index);
      case 'code':
        return this.#code(node);
      case 'thematicBreak':
        return '---';
      case 'table':
        return writeTable(this.#state, node);
      case 'html':
        return node.value || '';
      default:
        throw unwritable;
    }
  }

  #heading(node: Heading): string {
    const stack = this.#state.stack;
    const rank = Math.max(Math.min(6, node.depth || 1), 1);
    if (isSetext(node)) {
      stack.push('headingSetext', 'phrasing');
      const value = writeInline(this.#state, node, '\n', '\n');
      stack.length -= 2;
      const lastLine =
        value.length - (Math.max(value.lastIndexOf('\r'), value.lastIndexOf('\n')) + 1);
      return `${value}\n${(rank === 1 ? '=' : '-').repeat(lastLine)}`;
    }
    const sequence = '#'.repeat(rank);
    stack.push('headingAtx', 'phrasing');
    let value = writeInline(this.#state, node, '# ', '\n');
    stack.length -= 2;
    // A heading's leading white space would be taken for the space after the `#`s.
    const head = value.charCodeAt(0);
    if (head === 9 || head === 32) value = characterReference(head) + value.slice(1);
    return value ? `${sequence} ${value}` : sequence;
  }

  #list(node: List): string {
    let bullet = node.ordered ? '.' : '-';
    const bulletOther = node.ordered ? ')' : '*';
    let useDifferentMarker = this.#bulletLastUsed ? bullet === this.#bulletLastUsed : false;
    // A `-` item starting with a `---` rule would read as a setext heading underline.
    if (!node.ordered)
      for (const item of node.children)
        if (item.children[0]?.type === 'thematicBreak') {
          useDifferentMarker = true;
          break;
        }
    if (useDifferentMarker) bullet = bulletOther;
    const bulletCurrent = this.#bulletCurrent;
    this.#bulletCurrent = bullet;
    for (const item of node.children) if (item.type !== 'listItem') throw unwritable;
    const stack = this.#state.stack;
    stack.push('list');
    const value = this.#flow(node);
    stack.pop();
    this.#bulletLastUsed = bullet;
    this.#bulletCurrent = bulletCurrent;
    return value;
  }

  /** Item `index` of `list`: passed down, as an indexOf per item is quadratic. */
  #listItem(node: ListItem, list: List, index: number): string {
    // The library writes a task item's checkbox, and an empty item by rules of its own.
    if (typeof node.checked === 'boolean' || node.children.length === 0) throw unwritable;
    let bullet = this.#bulletCurrent || '-';
    if (list.ordered) {
      const start = typeof list.start === 'number' && list.start > -1 ? list.start : 1;
      bullet = `${start + index}${bullet}`;
    }
    // One space after the marker, continuation lines under its text.
    const stack = this.#state.stack;
    stack.push('listItem');
    const value = this.#flow(node);
    stack.pop();
    return prefixLines(value, `${bullet} `, bullet, ' '.repeat(bullet.length + 1), '');
  }

  #code(node: Code): string {
    const stack = this.#state.stack;
    const raw = node.value || '';
    const sequence = '`'.repeat(Math.max(longestRun(raw, '`') + 1, 3));
    stack.push('codeFenced');
    let value = sequence;
    if (node.lang) {
      stack.push('codeFencedLangGraveAccent');
      value += escape(stack, node.lang, { before: value, after: ' ', encode: '`' });
      stack.pop();
      if (node.meta) {
        value += ' ';
        stack.push('codeFencedMetaGraveAccent');
        value += escape(stack, node.meta, { before: value, after: '\n', encode: '`' });
        stack.pop();
      }
    }
    value += '\n';
    if (raw) value += `${raw}\n`;
    stack.pop();
    return value + sequence;
  }
}

/**
 * The line endings between two blocks: the library's join rules (its defaults and GFM table's)
 * for the nodes we build, which have no definitions or indented code.
 */
function between(left: Block, right: Block, parent: FlowParent): string {
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
  // HTML that only a blank line ends.
  if (left.type === 'html') {
    const kind = htmlKind(left.value);
    if (kind === undefined || kind === 6 || kind === 7) return '\n\n';
  }
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
  // HTML that a paragraph would take in.
  if (right.type === 'html') {
    const kind = htmlKind(right.value);
    if (kind === undefined || kind === 7) return '\n\n';
  }
  // Text right after a paragraph, or at the end of a container, would join it.
  if (
    (left.type === 'paragraph' || (left as Nodes) !== tail) &&
    ((right.type === 'heading' && isSetext(right)) || right.type === 'paragraph')
  )
    return '\n\n';
  return '\n';
}
