/**
 * The library's own tests and string helpers that our markdown writer (markdown-writer.ts)
 * repeats to write what mdast-util-to-markdown writes: which trees and inline runs the writer
 * takes, when a link is an autolink, when a heading is setext, how lines are prefixed.
 */
import type { Heading, Link, Nodes, PhrasingContent, Root } from 'mdast';

/** Flow nodes this writer handles; any other in a tree sends the whole tree to the library. */
const flowTypes = new Set([
  'paragraph',
  'heading',
  'blockquote',
  'list',
  'listItem',
  'code',
  'thematicBreak',
  'table',
]);
/** Inline nodes written here; inline content with any other goes to the library's phrasing. */
const plainPhrasing = new Set(['text', 'link', 'image', 'inlineCode', 'break']);

const lineEnding = /\r?\n|\r/g;
const lineEndingTest = /\r?\n|\r/;
const autolinkScheme = /^[a-z][+\-.a-z]+:/i;
const notInAutolink = /[\0- <>\u007F]/;

/** The library's choice of a setext heading with our options (`setext` off). */
export function isSetext(node: Heading): boolean {
  return (!node.depth || node.depth < 3) && hasLiteralBreak(node) && toText(node) !== '';
}

/**
 * Whether every flow node is one this writer knows: else the library writes the whole tree. A
 * root holding inline content, an item with a task checkbox or no content, and flow the library
 * joins by rules we do not repeat (HTML, definitions) are left to it.
 */
export function isWritable(root: Root): boolean {
  const pending: Nodes[] = [root];
  for (let node = pending.pop(); node; node = pending.pop()) {
    if (node.type === 'listItem' && (typeof node.checked === 'boolean' || !node.children.length))
      return false;
    if (node.type === 'root' || node.type === 'blockquote' || node.type === 'listItem') {
      for (const child of node.children) {
        if (!flowTypes.has(child.type)) return false;
        pending.push(child);
      }
    } else if (node.type === 'list') {
      for (const child of node.children) pending.push(child);
    }
  }
  return true;
}

export function isPlainPhrasing(node: PhrasingContent): boolean {
  if (!plainPhrasing.has(node.type)) return false;
  if (node.type === 'link') return isAutolink(node) || node.children.every(isPlainPhrasing);
  return true;
}

/** The library's test for writing a link as `<url>` (resourceLink off). */
export function isAutolink(node: Link): boolean {
  const only = node.children.length === 1 ? node.children[0] : undefined;
  if (!node.url || node.title || only?.type !== 'text') return false;
  return (
    (only.value === node.url || `mailto:${only.value}` === node.url) &&
    autolinkScheme.test(node.url) &&
    !notInAutolink.test(node.url)
  );
}

/** Whether a literal in the node holds a line ending, or a break is in it. */
export function hasLiteralBreak(node: Nodes): boolean {
  if (node.type === 'break') return true;
  if ('value' in node && lineEndingTest.test(node.value)) return true;
  if ('children' in node)
    for (const child of node.children) if (hasLiteralBreak(child)) return true;
  return false;
}

/** The node's text as mdast-util-to-string gives it (image alt and HTML included). */
function toText(node: Nodes): string {
  if ('value' in node) return node.value;
  if ('alt' in node) return node.alt ?? '';
  if ('children' in node) return node.children.map(toText).join('');
  return '';
}

/** Whether the label's first unescaped `]` is followed by `:` (with `]` itself after it). */
export function labelEndsBeforeColon(text: string): boolean {
  let index = 0;
  while (index < text.length && text.charCodeAt(index) !== 93) {
    index += text.charCodeAt(index) === 92 ? 2 : 1;
  }
  return text.charCodeAt(index + 1) === 58;
}

export function longestRun(value: string, character: string): number {
  let longest = 0;
  let run = 0;
  for (let index = 0; index < value.length; index++) {
    if (value[index] === character) {
      run++;
      if (run > longest) longest = run;
    } else {
      run = 0;
    }
  }
  return longest;
}

/**
 * Prefixes each line of `value`, keeping its line endings, as the library's indentLines does for
 * quotes and list items: the first line and the others, each with its own prefix when blank.
 */
export function prefixLines(
  value: string,
  first: string,
  firstBlank: string,
  rest: string,
  restBlank: string,
): string {
  let result = '';
  let start = 0;
  let prefix = first;
  let blankPrefix = firstBlank;
  lineEnding.lastIndex = 0;
  for (let match = lineEnding.exec(value); match; match = lineEnding.exec(value)) {
    const line = value.slice(start, match.index);
    result += (line ? prefix : blankPrefix) + line + match[0];
    start = match.index + match[0].length;
    prefix = rest;
    blankPrefix = restBlank;
  }
  const line = value.slice(start);
  return result + (line ? prefix : blankPrefix) + line;
}

export function characterReference(code: number): string {
  return `&#x${code.toString(16).toUpperCase()};`;
}

export function firstCharacter(value: string): string {
  const code = value.codePointAt(0);
  return code === undefined ? '' : String.fromCodePoint(code);
}

export function lastCharacter(value: string): string {
  const code = value.codePointAt(value.length - 2);
  return code !== undefined && code > 0xffff ? value.slice(-2) : value.slice(-1);
}
