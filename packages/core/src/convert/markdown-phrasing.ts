/**
 * Inline content of our markdown writer: text, links, autolinks, images, inline code, hard
 * breaks, inline HTML, and emphasis, strong and strikethrough spans (whose markers
 * markdown-attention.ts chooses). Each node is written knowing the characters written right
 * before it and the first one that will follow, as escaping needs, and inside the writer's
 * stack of constructs, which says which escaping rules apply.
 */
import type { Image, InlineCode, Link, PhrasingContent } from 'mdast';
import { writePieces, type AttentionSpan, type Piece } from './markdown-attention.ts';
import { escape } from './markdown-escape.ts';
import { mayChangeFirst } from './markdown-escape-filter.ts';
import { atBreakRules, escapeRules, isInScope } from './markdown-rules.ts';
import {
  firstCharacter,
  htmlKind,
  isAutolink,
  labelEndsBeforeColon,
  lastCharacter,
  unwritable,
} from './markdown-syntax.ts';

/** What the writer carries from node to node. */
export interface WriterState {
  /** The constructs the writer is in, innermost last. */
  stack: string[];
}

/** Inline content with children: a paragraph, heading, cell, link or span. */
interface InlineParent {
  children: PhrasingContent[];
}

// Marker sequences, preferred first: `_emphasis_` and `**strong**` (our settings), `~~delete~~`.
const emphasisSequences = ['_', '*'];
const strongSequences = ['**', '__'];
const deleteSequences = ['~~', '~'];

// Destinations with control characters or spaces are written `<…>`.
const needsEnclosing = /[\0- \u007F]/;

/** The inline content of `parent` as markdown, between `before` and `after`. */
export function writeInline(
  state: WriterState,
  parent: InlineParent,
  before: string,
  after: string,
): string {
  return writePieces(inlinePieces(state, parent, before, after), before, after);
}

/** Each child written, spans left with their markers to choose. */
function inlinePieces(
  state: WriterState,
  parent: InlineParent,
  outerBefore: string,
  outerAfter: string,
): Piece[] {
  const children = parent.children;
  const pieces: Piece[] = [];
  let before = outerBefore;
  for (let index = 0; index < children.length; index++) {
    const child = children[index]!;
    const next = children[index + 1];
    const after = next ? firstCharacter(peek(state, next)) : outerAfter;
    const previous = pieces[pieces.length - 1];
    // HTML right after a line ending would start an HTML block: the line ending becomes a space.
    if (
      typeof previous === 'string' &&
      (before === '\r' || before === '\n') &&
      child.type === 'html' &&
      htmlKind(child.value) !== 7
    ) {
      pieces[pieces.length - 1] = previous.replace(/(\r?\n|\r)$/, ' ');
      before = ' ';
    }
    if (child.type === 'emphasis' || child.type === 'strong' || child.type === 'delete') {
      const span = spanOf(state, child);
      if (!span) continue;
      pieces.push(span);
      before = lastCharacter(span.sequences[0]!);
    } else {
      const value = writeNode(state, child, before, after);
      if (!value) continue;
      pieces.push(value);
      before = lastCharacter(value);
    }
  }
  return pieces;
}

function spanOf(
  state: WriterState,
  node: PhrasingContent & { children: PhrasingContent[] },
): AttentionSpan | undefined {
  const sequences =
    node.type === 'emphasis'
      ? emphasisSequences
      : node.type === 'strong'
        ? strongSequences
        : deleteSequences;
  const sequence = sequences[0]!;
  state.stack.push(node.type === 'delete' ? 'strikethrough' : node.type);
  const children = inlinePieces(state, node, sequence, sequence);
  state.stack.pop();
  return children.length === 0 ? undefined : { children, sequences };
}

/** The characters a node starts with, as far as its neighbour's escaping looks. */
function peek(state: WriterState, node: PhrasingContent): string {
  switch (node.type) {
    case 'emphasis':
      return emphasisSequences[0]!;
    case 'strong':
      return strongSequences[0]!;
    case 'delete':
      return deleteSequences[0]!;
    case 'link':
      return isAutolink(node) ? '<' : '[';
    case 'image':
      return '!';
    case 'inlineCode':
      return '`';
    case 'html':
      return '<';
    case 'text':
      // Most text starts with a character no rule escapes: no need to escape it all to know.
      return mayChangeFirst(state.stack, node.value)
        ? escape(state.stack, node.value, { before: '', after: '' })
        : node.value;
    default:
      return writeNode(state, node, '', '');
  }
}

function writeNode(
  state: WriterState,
  node: PhrasingContent,
  before: string,
  after: string,
): string {
  switch (node.type) {
    case 'text':
      return escape(state.stack, node.value, { before, after });
    case 'link':
      return isAutolink(node) ? autolink(state, node) : link(state, node, before);
    case 'image':
      return image(state, node);
    case 'inlineCode':
      return inlineCode(state, node);
    case 'break':
      return hardBreak(state, before);
    case 'html':
      return node.value || '';
    default:
      throw unwritable;
  }
}

/** `<https://…>`: the text is the destination; what it cannot hold is percent-encoded. */
function autolink(state: WriterState, node: Link): string {
  const stack = state.stack;
  state.stack = stack.filter((name) => name !== 'phrasing');
  state.stack.push('autolink');
  const value = `<${writeInline(state, node, '<', '>')}>`;
  state.stack = stack;
  return value;
}

function link(state: WriterState, node: Link, before: string): string {
  const stack = state.stack;
  stack.push('link', 'label');
  const text = writeInline(state, node, '[', '](');
  stack.pop();
  let value = `[${text}](`;
  const enclose = needsEnclosing.test(node.url);
  const last = before.charAt(before.length - 1);
  let title = node.title || undefined;
  // At the start of a line, `[text]:` would read as a definition: an empty title prevents it.
  if (!title && !enclose && (last === '\n' || last === '\r') && labelEndsBeforeColon(text))
    title = '';
  value = destination(state, value, node.url, (!node.url && title !== undefined) || enclose, title);
  stack.pop();
  return value;
}

function image(state: WriterState, node: Image): string {
  const stack = state.stack;
  stack.push('image', 'label');
  let value = '![';
  value += escape(stack, node.alt ?? '', { before: value, after: ']' });
  value += '](';
  stack.pop();
  const title = node.title || undefined;
  value = destination(
    state,
    value,
    node.url,
    (!node.url && Boolean(title)) || needsEnclosing.test(node.url),
    title,
  );
  stack.pop();
  return value;
}

/** A link's or image's destination and title after `value` (`…](`), with the closing `)`. */
function destination(
  state: WriterState,
  head: string,
  url: string,
  enclose: boolean,
  title: string | undefined,
): string {
  const stack = state.stack;
  let value = head;
  if (enclose) {
    stack.push('destinationLiteral');
    value += '<';
    value += escape(stack, url, { before: value, after: '>' });
    value += '>';
  } else {
    stack.push('destinationRaw');
    value += escape(stack, url, { before: value, after: title !== undefined ? ' ' : ')' });
  }
  stack.pop();
  if (title !== undefined) {
    stack.push('titleQuote');
    value += ' "';
    value += escape(stack, title, { before: value, after: '"' });
    value += '"';
    stack.pop();
  }
  return `${value})`;
}

function inlineCode(state: WriterState, node: InlineCode): string {
  let value = node.value || '';
  const sequence = '`'.repeat(shortestAbsentRun(value));
  if (
    /[^\n\r ]/.test(value) &&
    ((/^[\n\r ]/.test(value) && /[\n\r ]$/.test(value)) || /^`|`$/.test(value))
  )
    value = ` ${value} `;
  // A line ending before what would start a block at a line's start becomes a space.
  if (value.includes('\n') || value.includes('\r')) {
    for (const rule of atBreakRules) {
      const pattern = rule.pattern;
      pattern.lastIndex = 0;
      for (let match = pattern.exec(value); match; match = pattern.exec(value)) {
        let position = match.index;
        if (value.charCodeAt(position) === 10 && value.charCodeAt(position - 1) === 13) position--;
        value = `${value.slice(0, position)} ${value.slice(match.index + 1)}`;
      }
    }
  }
  value = sequence + value + sequence;
  return state.stack.includes('tableCell') ? escapePipes(value) : value;
}

/** The length of the shortest run of grave accents the code does not hold. */
function shortestAbsentRun(value: string): number {
  if (!value.includes('`')) return 1;
  const runs = new Set<number>();
  let run = 0;
  for (let index = 0; index <= value.length; index++) {
    if (value.charCodeAt(index) === 96) run++;
    else if (run) {
      runs.add(run);
      run = 0;
    }
  }
  let size = 1;
  while (runs.has(size)) size++;
  return size;
}

/** In a table cell, each `|` of code not already escaped gets a backslash. */
function escapePipes(value: string): string {
  let result = '';
  let start = 0;
  for (let index = value.indexOf('|'); index !== -1; index = value.indexOf('|', index + 1)) {
    let backslashes = index;
    while (backslashes > start && value.charCodeAt(backslashes - 1) === 92) backslashes--;
    result += value.slice(start, index);
    if ((index - backslashes) % 2 === 0) result += '\\';
    start = index;
  }
  return result + value.slice(start);
}

/**
 * `\` and a line ending; where a line ending cannot be written (an ATX heading, a table cell),
 * a space, or nothing after one.
 */
function hardBreak(state: WriterState, before: string): string {
  for (const rule of escapeRules) {
    if (rule.character === '\n' && !rule.before && !rule.after && isInScope(state.stack, rule))
      return /[\t ]/.test(before) ? '' : ' ';
  }
  return '\\\n';
}
