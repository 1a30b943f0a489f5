/**
 * How main content measures the text of a node: visible length, CJK-weighted length, commas.
 * Every page's text is scanned several times, and a JavaScript loop over char codes ran at about
 * 5 ns a character, a visible share of a crawl's CPU; these scans run as regexes,
 * which V8 compiles to native code, and fall back to a loop only for the rare text that needs
 * per-character weights.
 */

// White space as main content counts it: runs count as one character, leading white space not.
// A run past its first character is what does not count; an alternation for the leading
// character (`|^…`) made the regex try both branches at every position, twice as slow.
const longRun = /[ \n\t\r\u00a0]{2,}/g;

/** Characters of `text` with each run of white space counted once and leading white space not. */
export function visibleLength(text: string): number {
  let length = text.length;
  longRun.lastIndex = 0;
  let match: RegExpExecArray | null;
  while ((match = longRun.exec(text)) !== null) {
    const run = longRun.lastIndex - match.index;
    length -= match.index === 0 ? run : run - 1;
  }
  // A single white space character at the start (a longer run was taken whole above).
  if (isSpace(text.charCodeAt(0)) && !isSpace(text.charCodeAt(1))) length -= 1;
  return length;
}

// A CJK character carries about as much as a short word: weighted so that length thresholds
// made for alphabetic text fit Chinese and Japanese paragraphs too.
const cjkWeight = 3;
// What needs the per-character loop: CJK characters (weighted) and the copyright sign.
const weighted = /[\u00a9\u2e80-\u9fff]/;

/** Running measures of a block's text. */
export interface Measure {
  length: number;
  linkLength: number;
  hasCopyright: boolean;
  /** The last visible character seen, as a code. */
  last: number;
}

/** Adds the text to `into`: its reading length (CJK weighted), inside links or not. */
export function measureText(data: string, inLink: boolean, into: Measure): void {
  const length = weighted.test(data) ? weightedLength(data, into) : plainLength(data, into);
  into.length += length;
  if (inLink) into.linkLength += length;
}

function plainLength(data: string, into: Measure): number {
  let end = data.length - 1;
  while (end >= 0 && isSpace(data.charCodeAt(end))) end--;
  if (end >= 0) into.last = data.charCodeAt(end);
  return visibleLength(data);
}

function weightedLength(data: string, into: Measure): number {
  let length = 0;
  let inSpace = true;
  for (let index = 0; index < data.length; index++) {
    const code = data.charCodeAt(index);
    if (isSpace(code)) {
      if (!inSpace) length++;
      inSpace = true;
      continue;
    }
    inSpace = false;
    into.last = code;
    if (code === 0xa9) into.hasCopyright = true;
    length += code >= 0x2e80 && code <= 0x9fff ? cjkWeight : 1;
  }
  return length;
}

function isSpace(code: number): boolean {
  return code === 32 || code === 10 || code === 9 || code === 13 || code === 160;
}

// Commas of any script: Latin, full-width, ideographic, Arabic. All are single code units.
const commas = /[,\uff0c\u3001\u060c]/g;

/** Commas in the text: a rough count of clauses, as Readability counts them. */
export function countCommas(data: string): number {
  let count = 0;
  commas.lastIndex = 0;
  while (commas.test(data)) count++;
  return count;
}
