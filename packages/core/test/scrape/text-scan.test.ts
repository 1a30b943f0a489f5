/**
 * Main content's text scans run as regexes (text-scan.ts); each must give what a plain loop over
 * the characters gives, on text rich in white space, CJK characters, commas and the copyright sign.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  countCommas,
  measureText,
  visibleLength,
  type Measure,
} from '../../src/convert/main-content/text-scan.js';
import { collapsedText, parseHtml } from '../../src/convert/dom.js';
import { collapse } from '../../src/convert/mdast-whitespace.js';

// The definition, written plainly: fold white space as a reader sees it (none at the start, a
// run as one space), then weigh what is left, CJK characters three times.
function referenceMeasure(data: string, inLink: boolean, into: Measure): void {
  const folded = data.replace(/^[ \n\t\r\u00a0]+/, '').replace(/[ \n\t\r\u00a0]+/g, ' ');
  let length = 0;
  for (const unit of folded.split('')) {
    const code = unit.charCodeAt(0);
    length += code >= 0x2e80 && code <= 0x9fff ? 3 : 1;
    if (unit === ' ') continue;
    into.last = code;
    into.hasCopyright ||= code === 0xa9;
  }
  into.length += length;
  if (inLink) into.linkLength += length;
}

const text = fc
  .array(
    fc.oneof(
      fc.constantFrom(' ', '  ', '\n', '\t', '\r', '\u00a0', '\u00a9', ',', '，', '、', '،'),
      fc.constantFrom('a', 'Z', '.', '中', '文', '\u2e80', '\u9fff', '\u2e7f', '\ua000', '😀'),
      fc.string({ unit: 'grapheme', maxLength: 3 }),
    ),
    { maxLength: 30 },
  )
  .map((parts) => parts.join(''));

const fresh = (): Measure => ({ length: 2, linkLength: 1, hasCopyright: false, last: 7 });

describe('text scans', () => {
  it('measure text as the character loop does', () => {
    fc.assert(
      fc.property(text, fc.boolean(), (data, inLink) => {
        const ours = fresh();
        const reference = fresh();
        measureText(data, inLink, ours);
        referenceMeasure(data, inLink, reference);
        expect(ours).toEqual(reference);
        const plain = fresh();
        referenceMeasure(data.replace(/[\u00a9\u2e80-\u9fff]/g, 'x'), false, plain);
        expect(visibleLength(data)).toBe(plain.length - 2);
      }),
      { numRuns: 5000, seed: 17 },
    );
  });

  it('count the commas of every script', () => {
    fc.assert(
      fc.property(text, (data) => {
        const expected = [...data].filter((c) => [',', '，', '、', '،'].includes(c)).length;
        expect(countCommas(data)).toBe(expected);
      }),
      { numRuns: 2000, seed: 17 },
    );
    expect(countCommas('a, b， c、 d، e')).toBe(4);
  });
});

describe('white space folding', () => {
  const spaced = fc
    .array(fc.constantFrom(' ', '\t', '\n', '\f', '\r', '\u00a0', '\u2028', '\u3000', 'a', 'b'), {
      maxLength: 16,
    })
    .map((parts) => parts.join(''));

  it('folds runs as HTML does, leaving single spaces be', () => {
    fc.assert(
      fc.property(spaced, (value) => {
        expect(collapse(value)).toBe(value.replace(/[\t\n\f\r ]+/g, ' '));
      }),
      { numRuns: 5000, seed: 17 },
    );
  });

  it('folds the text of a subtree as /\\s+/ does', () => {
    fc.assert(
      fc.property(spaced, spaced, (first, second) => {
        const root = parseHtml(`<p>${first}<b>${second}</b></p>`);
        const expected = `${first}${second}`.replace(/\s+/g, ' ').trim();
        expect(collapsedText(root)).toBe(expected);
      }),
      { numRuns: 3000, seed: 17 },
    );
  });
});
