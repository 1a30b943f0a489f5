/**
 * A page with /Rotate (a landscape table printed on a portrait sheet): its content is
 * drawn turned in the file and shown upright, and is read as shown — text left to right, ruled
 * rows as rows. Before, all its text was taken for rotated margin labels and dropped.
 */
import { describe, expect, it } from 'vitest';
import { parse } from '@trawl/core';
import { pdfOf } from './hand-pdf.ts';

const rows = [
  ['Route', 'Trucks', 'Tonnes'],
  ['North', '12', '340'],
  ['South', '9', '215'],
  ['West', '15', '402'],
];

/** Rotated 90° clockwise when shown: the shown (X, Y from the top) is the file's (x = Y, y = X). */
function rotatedTable(): Uint8Array {
  const ops = ['BT /F1 10 Tf 0 1 -1 0 60 90 Tm (Deliveries by route in May.) Tj ET'];
  rows.forEach((cells, r) =>
    cells.forEach((cell, c) =>
      ops.push(`BT /F1 10 Tf 0 1 -1 0 ${114 + 20 * r} ${95 + 120 * c} Tm (${cell}) Tj ET`),
    ),
  );
  const bottom = 100 + 20 * rows.length;
  for (let r = 0; r <= rows.length; r++) ops.push(`${100 + 20 * r} 90 m ${100 + 20 * r} 450 l S`);
  for (const x of [90, 210, 330, 450]) ops.push(`100 ${x} m ${bottom} ${x} l S`);
  return pdfOf(`0.5 w\n${ops.join('\n')}`, { rotate: 90 });
}

describe('parse() of a rotated PDF page', () => {
  it('reads the text and the ruled table as the page is shown', async () => {
    const doc = await parse(rotatedTable(), { filename: 'rotated.pdf' });
    const markdown = doc.markdown ?? '';
    expect(markdown).toContain('Deliveries by route in May.');
    expect(markdown).toContain('| Route | Trucks | Tonnes |');
    expect(markdown).toContain('| North | 12 | 340 |');
    expect(markdown).toContain('| West | 15 | 402 |');
    expect(markdown.indexOf('Deliveries')).toBeLessThan(markdown.indexOf('| Route'));
  });
});
