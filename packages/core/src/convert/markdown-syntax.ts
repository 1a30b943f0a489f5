/**
 * Tests and string helpers of our markdown writer (markdown-writer.ts), as CommonMark and
 * mdast-util-to-markdown's output need them: which trees the writer takes, when a link is an
 * autolink, when a heading is setext, what HTML block a string starts, how lines are prefixed.
 */
import type { Heading, Link, Nodes } from 'mdast';
import { htmlBlockNames, htmlRawNames } from 'micromark-util-html-tag-name';

/**
 * Thrown by the writer at a node it does not write (definitions, footnotes, task items, an item
 * without content, inline content in a flow container …): the tree then goes to the library. One
 * error made once: a tree we build never throws it, and checking every tree before writing it
 * cost a tenth of the writing.
 */
export const unwritable = new Error('markdown writer: a node it leaves to the library');

const lineEnding = /\r?\n|\r/g;
const lineEndingTest = /\r?\n|\r/;
const autolinkScheme = /^[a-z][+\-.a-z]+:/i;
const notInAutolink = /[\0- <>\u007F]/;

/** The library's choice of a setext heading with our options (`setext` off). */
export function isSetext(node: Heading): boolean {
  return (!node.depth || node.depth < 3) && hasLiteralBreak(node) && toText(node) !== '';
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

/**
 * The kind of HTML block (CommonMark's conditions 1 to 7) that `value` would start, or undefined
 * when it starts none; whether a blank line must follow depends on it.
 */
export function htmlKind(value: string): number | undefined {
  if (value.charCodeAt(0) !== 60) return undefined;
  const next = value.charCodeAt(1);
  if (next === 33) {
    const code = value.charCodeAt(2);
    if (code === 45) return 2;
    if (code === 91) return 5;
    return isAsciiAlpha(code) ? 4 : undefined;
  }
  if (next === 63) return 3;
  const closing = next === 47;
  const start = closing ? 2 : 1;
  let end = start;
  let code = value.charCodeAt(end);
  if (!isAsciiAlpha(code)) return undefined;
  while (code === 45 || isAsciiAlpha(code) || (code >= 48 && code <= 57))
    code = value.charCodeAt(++end);
  const name = value.slice(start, end).toLowerCase();
  if (!closing && code !== 47 && htmlRawNames.includes(name)) return 1;
  return htmlBlockNames.includes(name) ? 6 : 7;
}

function isAsciiAlpha(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}
