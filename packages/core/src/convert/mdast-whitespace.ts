/**
 * Whitespace of inline content folded as HTML renders it, while the tree is walked once:
 * runs collapse to one space, space at line starts and around breaks goes (mdast.ts).
 */
import type { PhrasingContent } from 'mdast';
import { isTag, isText, type AnyNode } from './dom.ts';

export function normaliseInline(nodes: PhrasingContent[]): PhrasingContent[] {
  const state = { pendingSpace: false, atStart: true, atLineStart: true };
  const out = foldWhitespace(nodes, state);
  return out;
}

interface FoldState {
  /** A space is owed before the next content. */
  pendingSpace: boolean;
  /** Nothing has been written to the block yet. */
  atStart: boolean;
  /** Nothing has been written since the block start or the last line break. */
  atLineStart: boolean;
}

function foldWhitespace(nodes: PhrasingContent[], state: FoldState): PhrasingContent[] {
  const out: PhrasingContent[] = [];
  for (const node of nodes) {
    switch (node.type) {
      case 'text': {
        const collapsed = collapse(node.value);
        if (collapsed === '') continue;
        let value = collapsed;
        if (value.startsWith(' ')) {
          value = value.slice(1);
          if (!state.atLineStart) state.pendingSpace = true;
        }
        const endsWithSpace = value.endsWith(' ');
        if (endsWithSpace) value = value.slice(0, -1);
        if (value === '') continue;
        appendText(out, (state.pendingSpace ? ' ' : '') + value);
        state.pendingSpace = endsWithSpace;
        state.atStart = false;
        state.atLineStart = false;
        break;
      }
      case 'break':
        state.pendingSpace = false;
        if (!state.atStart) out.push(node);
        state.atLineStart = true;
        break;
      case 'image':
      case 'inlineCode':
        if (state.pendingSpace) appendText(out, ' ');
        state.pendingSpace = false;
        state.atStart = false;
        state.atLineStart = false;
        out.push(node);
        break;
      default: {
        if (!('children' in node)) {
          out.push(node);
          break;
        }
        // A pending space is written before the element only once it proves to have content;
        // a leading space inside it moves out too, so markers hug their text.
        const before = state.pendingSpace;
        const wasAtStart = state.atStart;
        state.pendingSpace = false;
        const children = foldWhitespace(node.children, state);
        if (children.length === 0) {
          state.pendingSpace = before || state.pendingSpace;
          state.atStart = wasAtStart && state.atStart;
          break;
        }
        let leading = before;
        const first = children[0];
        if (first?.type === 'text' && first.value.startsWith(' ')) {
          first.value = first.value.slice(1);
          if (first.value === '') children.shift();
          leading = true;
        }
        if (leading) appendText(out, ' ');
        out.push({ ...node, children });
      }
    }
  }
  // Trailing white space of the block is dropped: `pendingSpace` is simply not written.
  while (out.length > 0) {
    const last = out[out.length - 1];
    if (last?.type === 'break') out.pop();
    else break;
  }
  return out;
}

function appendText(out: PhrasingContent[], value: string): void {
  const last = out[out.length - 1];
  if (last?.type === 'text') last.value += value;
  else out.push({ type: 'text', value });
}

// A white space run other than one plain space: most runs in prose are one space, and leaving
// them unmatched lets a text that needs no folding through without building a new string.
const foldableRun = / ?[\t\n\f\r][\t\n\f\r ]*| {2,}[\t\n\f\r ]*/g;

/**
 * `value` with white space folded as HTML renders it, and soft hyphens (U+00AD) dropped: they
 * are invisible line-break hints that would split words for a search index or a model.
 */
export function collapse(value: string): string {
  const folded = value.replace(foldableRun, ' ');
  return folded.includes('\u00AD') ? folded.replaceAll('\u00AD', '') : folded;
}

export function textOf(node: AnyNode): string {
  if (isText(node)) return node.data;
  if (!isTag(node)) return '';
  if (node.name === 'br') return '\n';
  let text = '';
  for (const child of node.children) text += textOf(child);
  return text;
}

// `language-js` (Prism, highlight.js), `lang-js`, `highlight-python` (Sphinx), `highlight-source-js`
// (GitHub), `brush: js` (SyntaxHighlighter).
