/**
 * A ruled table open at the sides (issue 22): every row ruled, inner column rules drawn, but no
 * frame at the left or right, as many report producers set tables. The label column and the last
 * column lie outside the outermost column rules and belong to the same table.
 */
import { describe, expect, it } from 'vitest';
import { parse } from '@trawl/core';

/** A one-page PDF from a content stream, Helvetica as its font, with a correct xref table. */
function pdfOf(content: string): Uint8Array {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  out += offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

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
