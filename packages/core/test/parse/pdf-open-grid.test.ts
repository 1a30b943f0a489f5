/**
 * A ruled table open at the sides (issue 22): every row ruled, inner column rules drawn, but no
 * frame at the left or right, as many report producers set tables. The label column and the last
 * column lie outside the outermost column rules and belong to the same table.
 */
import { describe, expect, it } from 'vitest';
import { parse } from '@trawl/core';
import { pdfOf } from './hand-pdf.ts';

const rows = [
  ['Country', 'GNP', 'People', 'Outlets'],
  ['Germany', '27.5', '81.9', '415.3'],
  ['France', '25.0', '58.1', '343.4'],
  ['Italy', '19.0', '57.3', '627.2'],
];
const columnX = [75, 195, 295, 395];

function openGrid(): Uint8Array {
  const ops: string[] = ['BT /F1 10 Tf 72 740 Td (Retail outlets in three countries.) Tj ET'];
  const top = 700;
  rows.forEach((cells, r) =>
    cells.forEach((cell, c) =>
      ops.push(`BT /F1 10 Tf ${columnX[c]} ${top - 20 * r - 14} Td (${cell}) Tj ET`),
    ),
  );
  // Row rules from the left edge to the right one; column rules only between columns.
  for (let r = 0; r <= rows.length; r++) ops.push(`70 ${top - 20 * r} m 480 ${top - 20 * r} l S`);
  for (const x of [180, 280, 380]) ops.push(`${x} ${top} m ${x} ${top - 20 * rows.length} l S`);
  ops.push('BT /F1 10 Tf 72 560 Td (The figures are for 1995.) Tj ET');
  return pdfOf(`0.5 w\n${ops.join('\n')}`);
}

describe('parse() of a PDF table ruled without a frame', () => {
  it('keeps the label column and the last column in the table', async () => {
    const doc = await parse(openGrid(), { filename: 'open-grid.pdf' });
    const markdown = doc.markdown ?? '';
    expect(markdown).toContain('| Country | GNP | People | Outlets |');
    expect(markdown).toContain('| Germany | 27.5 | 81.9 | 415.3 |');
    expect(markdown).toContain('| Italy | 19.0 | 57.3 | 627.2 |');
  });
});
