/**
 * Cleaned tree → GFM markdown: our converter builds the mdast (mdast.ts), and our writer
 * (markdown-writer.ts) writes it exactly as remark-stringify with remark-gfm does with the
 * settings below. A tree holding nodes we never build is written by that library.
 */
import type { Nodes as MdastNodes, Parents as MdastParents, Root as MdastRoot } from 'mdast';
import { gfmTableToMarkdown } from 'mdast-util-gfm-table';
import type { Handle } from 'mdast-util-to-markdown';
import remarkGfm from 'remark-gfm';
import remarkStringify from 'remark-stringify';
import { unified } from 'unified';
import type { ParentNode } from './dom.ts';
import { treeToMdast } from './mdast.ts';
import { MarkdownWriter } from './markdown-writer.ts';

// Unpadded tables: column alignment padding costs tokens downstream and reads no better.
export const tableSettings = { tablePipeAlign: false };
const gfmTable = gfmTableToMarkdown(tableSettings).handlers!['table']!;

/**
 * GFM tables with every delimiter cell written `---`. Unpadded tables get a one-dash delimiter
 * row (`| - |`), valid GFM but refused by stricter table parsers and by tools that look for
 * `---`. The delimiter row is always the table's second line, since a cell holds no
 * line break.
 */
const table: Handle = (node, parent, state, info) => {
  const lines = gfmTable(node, parent, state, info).split('\n');
  if (lines[1] !== undefined) lines[1] = lines[1].replace(/-+/g, '---');
  return lines.join('\n');
};

/** How markdown is written; the writer's equivalence test runs the library with these. */
export const stringifySettings = {
  bullet: '-',
  fences: true,
  rule: '-',
  emphasis: '_',
  strong: '*',
  listItemIndent: 'one',
  incrementListMarker: true,
  resourceLink: false,
  handlers: { table },
} as const;

// Built once, when a tree first needs it: plugin attachment and option merging are the costly
// part of a unified processor, and our writer writes every tree we build without it.
let processor: ReturnType<typeof libraryProcessor> | undefined;
function libraryProcessor() {
  return unified().use(remarkGfm, tableSettings).use(remarkStringify, stringifySettings).freeze();
}

const writer = new MarkdownWriter();

/** Our writer, for tests that compare it with the library. */
export function markdownWriter(): MarkdownWriter {
  return writer;
}

type WrittenTreeObserver = (mdast: MdastRoot, markdown: string) => void;
let observer: WrittenTreeObserver | undefined;

/**
 * Sees every tree written and our markdown of it: bench/markdown-equivalence.ts compares each
 * tree of real pages with the library's output. Undefined stops observing.
 */
export function observeWrittenTrees(next: WrittenTreeObserver | undefined): void {
  observer = next;
}

/** Markdown of an mdast tree, as remark-stringify writes it with our settings. */
export function mdastToMarkdown(mdast: MdastRoot): string {
  const markdown = writer.write(mdast) ?? libraryMarkdown(mdast);
  observer?.(mdast, markdown);
  return markdown;
}

/** The library's markdown of an mdast tree with our settings: what our writer must match. */
export function libraryMarkdown(mdast: MdastRoot): string {
  return (processor ??= libraryProcessor()).stringify(mdast);
}

/** Converts a cleaned tree to GFM markdown. */
export function treeToMarkdown(root: ParentNode): string {
  const mdast = treeToMdast(root);
  tidyMdast(mdast);
  return tidyMarkdown(mdastToMarkdown(mdast));
}

/**
 * Removes what reads as noise in markdown: links without text (or with only a same-page target,
 * unwrapped to their text) and images without a source.
 */
function tidyMdast(parent: MdastParents | MdastRoot): void {
  const children = parent.children as MdastNodes[];
  // Most parents keep every child: a new list is made only from the first one that changes.
  let next: MdastNodes[] | undefined;
  for (let index = 0; index < children.length; index++) {
    const child = children[index]!;
    if ('children' in child) tidyMdast(child);
    let replacement: MdastNodes[] | undefined;
    if (child.type === 'link') {
      if (child.children.length === 0) replacement = [];
      else if (!child.url || child.url.startsWith('#')) replacement = child.children;
    } else if (child.type === 'image' && !child.url) {
      replacement = [];
    } else if (
      (child.type === 'emphasis' || child.type === 'strong' || child.type === 'delete') &&
      child.children.length === 0
    ) {
      replacement = [];
    }
    if (replacement) {
      next ??= children.slice(0, index);
      next.push(...replacement);
    } else if (next) {
      next.push(child);
    }
  }
  if (next) (parent as { children: MdastNodes[] }).children = next;
}

/** Line terminators as `$` in a multiline regex knows them. */
const lineTerminators = ['\n', '\r', '\u2028', '\u2029'];

/**
 * Whether `[ \t]+$` (multiline) can match before the end: a space or tab before a line
 * terminator. A search for each terminator, looking one character back: eight substring searches
 * of the page, or one regex, cost ten times more.
 */
function hasTrailingBlanks(markdown: string): boolean {
  for (const terminator of lineTerminators) {
    for (
      let at = markdown.indexOf(terminator, 1);
      at > 0;
      at = markdown.indexOf(terminator, at + 1)
    ) {
      const before = markdown.charCodeAt(at - 1);
      if (before === 0x20 || before === 0x09) return true;
    }
  }
  return false;
}

function tidyMarkdown(markdown: string): string {
  // The multiline regex tries a match at every space of the page (~3 % of a page's conversion);
  // most pages have no blank at a line's end, and one at the very end goes with trim().
  return (hasTrailingBlanks(markdown) ? markdown.replace(/[ \t]+$/gm, '') : markdown)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
