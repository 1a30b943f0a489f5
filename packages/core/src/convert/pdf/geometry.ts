/**
 * Small geometry shared by the PDF layout steps: boxes, lines of text, and where each word of a
 * fragment sits.
 */
import type { Fragment } from './extract.ts';

export interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** The box a fragment's glyphs occupy: ascenders above the baseline, descenders below. */
export const fragmentBox = (fragment: Fragment): Box => ({
  left: fragment.x,
  right: fragment.x + fragment.width,
  top: fragment.y - fragment.size * 0.8,
  bottom: fragment.y + fragment.size * 0.2,
});

export const centreX = (box: Box) => (box.left + box.right) / 2;
export const centreY = (box: Box) => (box.top + box.bottom) / 2;
export const contains = (outer: Box, x: number, y: number, slack = 1) =>
  x >= outer.left - slack &&
  x <= outer.right + slack &&
  y >= outer.top - slack &&
  y <= outer.bottom + slack;

/** Text fragments on one baseline, left to right; placed as a word is. */
export interface Line extends Word {
  fragments: Fragment[];
}

/** Groups fragments sharing a baseline into lines, top to bottom. */
export function buildLines(fragments: Fragment[]): Line[] {
  const sorted = [...fragments].sort((a, b) => a.y - b.y || a.x - b.x);
  const groups: Fragment[][] = [];
  for (const fragment of sorted) {
    const last = groups.at(-1);
    const anchor = last?.[0];
    // Superscripts and subscripts sit a little off the baseline but belong to the line.
    if (anchor && Math.abs(fragment.y - anchor.y) <= Math.max(anchor.size, fragment.size) * 0.45)
      last.push(fragment);
    else groups.push([fragment]);
  }
  return groups.map(makeLine);
}

const rtlLetters = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/gu;
const ltrLetters = /[A-Za-z\u00C0-\u024F\u0370-\u03FF\u0400-\u04FF]/gu;

/**
 * Whether a line is right-to-left text (Arabic, Hebrew): most of its letters are. pdf.js gives
 * each fragment's characters in logical order already; the fragments of such a line are read
 * from the right.
 */
export const isRightToLeft = (text: string): boolean =>
  (text.match(rtlLetters)?.length ?? 0) > (text.match(ltrLetters)?.length ?? 0);

export function makeLine(fragments: Fragment[]): Line {
  const rtl = isRightToLeft(fragments.map((fragment) => fragment.text).join(''));
  const ordered = [...fragments].sort((a, b) => (rtl ? b.x - a.x : a.x - b.x));
  let text = '';
  let previous: Fragment | undefined;
  for (const fragment of ordered) {
    if (previous) {
      const gap = rtl
        ? previous.x - (fragment.x + fragment.width)
        : fragment.x - (previous.x + previous.width);
      const spaced = /\s$/.test(text) || /^\s/.test(fragment.text);
      if (!spaced && gap > Math.min(previous.size, fragment.size) * 0.12) text += ' ';
    }
    text += fragment.text;
    previous = fragment;
  }
  // The line's size and weight are those of most of its characters, not of a footnote mark.
  const weight = new Map<number, number>();
  let boldChars = 0;
  let chars = 0;
  for (const fragment of ordered) {
    const length = fragment.text.trim().length;
    const size = Math.round(fragment.size * 2) / 2;
    weight.set(size, (weight.get(size) ?? 0) + length);
    chars += length;
    if (fragment.bold) boldChars += length;
  }
  const size = [...weight].sort((a, b) => b[1] - a[1])[0]?.[0] ?? ordered[0]!.size;
  const main = ordered.filter((fragment) => Math.abs(fragment.size - size) < 1);
  return {
    fragments: ordered,
    text: text.replace(/\s+/g, ' ').trim(),
    left: Math.min(...ordered.map((fragment) => fragment.x)),
    right: Math.max(...ordered.map((fragment) => fragment.x + fragment.width)),
    y: (main[0] ?? ordered[0]!).y,
    size,
    bold: chars > 0 && boldChars / chars > 0.9,
  };
}

/**
 * Advance widths in ems, used to place the words inside a fragment: pdf.js joins a table row's
 * cells into one fragment when their gaps are small, and the words must be put back in their
 * cells. The font's own widths when the page showed the character, else those typical of
 * proportional fonts.
 */
function relativeWidth(char: string, widths?: ReadonlyMap<string, number>): number {
  const known = widths?.get(char);
  if (known !== undefined) return known;
  if (/[ilj.,:;'!|`]/.test(char)) return 0.28;
  if (/[ftrI()[\]{}\-/ ]/.test(char)) return 0.36;
  if (/[mwMW@%]/.test(char)) return 0.86;
  if (/[A-Z&]/.test(char)) return 0.68;
  if (/[0-9]/.test(char)) return 0.556;
  return 0.52;
}

/** Text placed on the page: its horizontal extent and its baseline. */
export interface Word {
  text: string;
  left: number;
  right: number;
  /** Baseline, top-down. */
  y: number;
  size: number;
  bold: boolean;
  /** Its font's advance widths (Fragment.widths), when known. */
  widths?: ReadonlyMap<string, number>;
}

/**
 * The words of a fragment with estimated positions, scaled so they fill the fragment's width. A
 * right-to-left fragment's characters (logical order) are laid out from its right edge.
 */
export function splitWords(fragment: Fragment): Word[] {
  const chars = [...fragment.text];
  const widths = fragment.widths;
  const total = chars.reduce((sum, char) => sum + relativeWidth(char, widths), 0) || 1;
  const scale = fragment.width / total;
  const rtl = isRightToLeft(fragment.text);
  const words: Word[] = [];
  let x = rtl ? fragment.x + fragment.width : fragment.x;
  let current: Word | undefined;
  for (const char of chars) {
    const advance = relativeWidth(char, widths) * scale;
    const [from, to] = rtl ? [x - advance, x] : [x, x + advance];
    if (/\s/.test(char)) {
      current = undefined;
    } else {
      if (!current) {
        current = {
          text: '',
          left: from,
          right: to,
          y: fragment.y,
          size: fragment.size,
          bold: fragment.bold,
          ...(widths ? { widths } : {}),
        };
        words.push(current);
      }
      current.text += char;
      current.left = Math.min(current.left, from);
      current.right = Math.max(current.right, to);
    }
    x = rtl ? from : to;
  }
  return words;
}

/**
 * Words of one line of a cell as read: left to right, or from the right when most of their
 * letters are right-to-left (a Hebrew or Arabic label).
 */
export function readingOrder(words: Word[]): Word[] {
  const rtl = isRightToLeft(words.map((word) => word.text).join(' '));
  return [...words].sort((a, b) => (rtl ? b.right - a.right : a.left - b.left));
}

/**
 * A word cut at `x` (a column rule it runs across): the characters left of it and those right
 * of it, by estimated position; a character the rule crosses is in neither, as text that
 * overflows its cell is hidden from there on under the next.
 */
export function cutWord(word: Word, x: number): [Word | undefined, Word | undefined] {
  const chars = [...word.text];
  const total = chars.reduce((sum, char) => sum + relativeWidth(char, word.widths), 0) || 1;
  const scale = (word.right - word.left) / total;
  let [leftText, rightText] = ['', ''];
  let position = word.left;
  let rightStart = word.right;
  let leftEnd = word.left;
  for (const char of chars) {
    const end = position + relativeWidth(char, word.widths) * scale;
    if (end <= x) {
      leftText += char;
      leftEnd = end;
    } else if (position >= x) {
      if (!rightText) rightStart = position;
      rightText += char;
    }
    position = end;
  }
  return [
    leftText ? { ...word, text: leftText, right: leftEnd } : undefined,
    rightText ? { ...word, text: rightText, left: rightStart } : undefined,
  ];
}

export function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
