/**
 * Bullets whose glyph a PDF's font maps to a character that is not "•": symbol fonts (Symbol,
 * Wingdings) map theirs into the private use area (U+F0B7, U+F0A7, U+F0D8), and fonts with a
 * Japanese encoding give a halfwidth katakana (ｴ) in Latin text. Hand-made PDFs whose font's
 * /ToUnicode says so.
 */
import { describe, expect, it } from 'vitest';
import { parse } from '@trawl/core';
import { pdfOf } from './hand-pdf.ts';

const line = (y: number, value: string, x = 72) => `BT /F1 11 Tf ${x} ${y} Td (${value}) Tj ET`;

/** A paragraph, then three items whose marker is code 0x95, read as `marker`. */
function listPdf(marker: string): Uint8Array {
  const ops = [
    line(740, 'Your financial resources come from'),
    ...['scholarships,', 'prepaid or college savings plans,', 'personal savings.'].flatMap(
      (item, index) => [line(722 - index * 14, '\\225'), line(722 - index * 14, item, 84)],
    ),
    line(670, 'If you still need additional money, ask the school.'),
  ];
  return pdfOf(ops.join('\n'), { toUnicode: { 0x95: marker } });
}

describe('parse() of PDF lists with symbol-font bullets', () => {
  for (const [name, marker] of [
    ['Symbol (U+F0B7)', '\uF0B7'],
    ['Wingdings (U+F0A7)', '\uF0A7'],
    ['a Japanese encoding (ｴ)', 'ｴ'],
  ] as const) {
    it(`reads items marked by ${name} as a list`, async () => {
      const doc = await parse(listPdf(marker), { filename: 'aid.pdf' });
      expect(doc.markdown).toBe(
        [
          'Your financial resources come from',
          '- scholarships,\n- prepaid or college savings plans,\n- personal savings.',
          'If you still need additional money, ask the school.',
        ].join('\n\n'),
      );
    });
  }
});
