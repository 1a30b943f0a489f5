/**
 * Ruled PDF tables whose rules do not give every column. Open at the sides: every row
 * ruled, inner column rules drawn, no frame at the left or right, so the label column and the
 * last column lie outside the outermost column rules. Or one rule between labels and figures,
 * the figure columns set by alignment inside one ruled cell per row.
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

  it('reads columns of figures inside one ruled column by their alignment', async () => {
    // A frame and one column rule between the labels and the figures, rows ruled: the three
    // figure columns share one ruled cell per row.
    const ops = ['BT /F1 10 Tf 72 740 Td (Symptoms by how often they occur.) Tj ET'];
    const figures = [
      ['Symptom', 'Weekly', 'Monthly', 'Rarely'],
      ['Headache', '239', '119', '128'],
      ['Back-ache', '139', '126', '219'],
      ['Sleep problems', '130', '48', '308'],
    ];
    const top = 700;
    figures.forEach((cells, r) =>
      cells.forEach((cell, c) =>
        ops.push(`BT /F1 10 Tf ${[75, 200, 280, 360][c]} ${top - 20 * r - 14} Td (${cell}) Tj ET`),
      ),
    );
    for (let r = 0; r <= figures.length; r++)
      ops.push(`70 ${top - 20 * r} m 420 ${top - 20 * r} l S`);
    for (const x of [70, 180, 420]) ops.push(`${x} ${top} m ${x} ${top - 20 * figures.length} l S`);
    const doc = await parse(pdfOf(`0.5 w\n${ops.join('\n')}`), { filename: 'figures.pdf' });
    const markdown = doc.markdown ?? '';
    expect(markdown).toContain('| Headache | 239 | 119 | 128 |');
    expect(markdown).toContain('| Sleep problems | 130 | 48 | 308 |');
  });

  it('reads the columns of a grid whose column rules stop at the header', async () => {
    // A frame, a ruled header with a rule between every column, and below it one ruled cell
    // per side: the labels, and the three figure columns set by alignment alone (as in a
    // statistics office's table, tabula-java's indictb1h_14.pdf). A group title and a blank
    // line sit inside the frame.
    const body = [
      ['Grains', '', '', ''],
      ['Wheat', '1.5', '2.5', '-3.5'],
      ['Barley', '4.0', '12.5', '6.5'],
      ['Oats', '0.5', '1.0', '1.5'],
      ['', '', '', ''],
      ['Cotton', '7.5', '8.0', '-9.0'],
      ['Rice', '2.5', '3.0', '3.5'],
    ];
    const ops = ['BT /F1 9 Tf 75 686 Td (Crop) Tj ET'];
    ['2012', '2013', '2014'].forEach((year, c) =>
      ops.push(`BT /F1 9 Tf ${200 + 60 * c} 686 Td (${year}) Tj ET`),
    );
    body.forEach((cells, r) =>
      cells.forEach(
        (cell, c) =>
          cell &&
          ops.push(`BT /F1 9 Tf ${[75, 200, 260, 320][c]} ${660 - 14 * r} Td (${cell}) Tj ET`),
      ),
    );
    const bottom = 660 - 14 * body.length;
    ops.push(`70 700 m 380 700 l S`, `70 676 m 380 676 l S`, `70 ${bottom} m 380 ${bottom} l S`);
    for (const x of [70, 190, 380]) ops.push(`${x} 700 m ${x} ${bottom} l S`);
    for (const x of [250, 310]) ops.push(`${x} 700 m ${x} 676 l S`);
    const doc = await parse(pdfOf(`0.5 w\n${ops.join('\n')}`), { filename: 'header-ruled.pdf' });
    const markdown = doc.markdown ?? '';
    expect(markdown).toContain('| Crop | 2012 | 2013 | 2014 |');
    expect(markdown).toContain('| Wheat | 1.5 | 2.5 | -3.5 |');
    expect(markdown).toContain('| Barley | 4.0 | 12.5 | 6.5 |');
    expect(markdown).toContain('| Rice | 2.5 | 3.0 | 3.5 |');
    // One table: the blank line inside the frame does not cut it in two.
    expect(markdown.match(/^\| ---/gm)).toHaveLength(1);
  });

  it('joins a row rule drawn cell by cell whose pieces sit a fraction of a point apart', async () => {
    // Each row's rule in three pieces, right to left, the left piece 0.3 pt lower: joined by
    // position alone, the left piece was lost and the first column's rows ran together.
    const ops: string[] = [];
    const top = 700;
    rows.forEach((cells, r) =>
      cells.forEach((cell, c) =>
        ops.push(`BT /F1 10 Tf ${columnX[c]} ${top - 20 * r - 14} Td (${cell}) Tj ET`),
      ),
    );
    for (let r = 0; r <= rows.length; r++) {
      const y = top - 20 * r;
      ops.push(`280 ${y} m 480 ${y} l S`, `180 ${y + 0.1} m 280 ${y + 0.1} l S`);
      ops.push(`70 ${y - 0.3} m 180 ${y - 0.3} l S`);
    }
    for (const x of [70, 180, 280, 380, 480])
      ops.push(`${x} ${top} m ${x} ${top - 20 * rows.length} l S`);
    const doc = await parse(pdfOf(`0.5 w\n${ops.join('\n')}`), { filename: 'pieces.pdf' });
    const markdown = doc.markdown ?? '';
    expect(markdown).toContain('| Country | GNP | People | Outlets |');
    expect(markdown).toContain('| Germany | 27.5 | 81.9 | 415.3 |');
    expect(markdown).toContain('| France | 25.0 | 58.1 | 343.4 |');
  });

  it("cuts a cell's overflowing text from the next cell's at the rule between them", async () => {
    // One text run for two cells, as pdf.js joins text that overflows under the next cell:
    // the rule at x 140 runs through it.
    const ops = [
      'BT /F1 10 Tf 75 686 Td (Country) Tj ET',
      'BT /F1 10 Tf 145 686 Td (GNP) Tj ET',
      'BT /F1 10 Tf 75 666 Td (Bundesrepublik27.5) Tj ET',
      'BT /F1 10 Tf 75 646 Td (France) Tj ET',
      'BT /F1 10 Tf 145 646 Td (25.0) Tj ET',
    ];
    for (const y of [700, 680, 660, 640]) ops.push(`70 ${y} m 200 ${y} l S`);
    for (const x of [70, 140, 200]) ops.push(`${x} 700 m ${x} 640 l S`);
    const doc = await parse(pdfOf(`0.5 w\n${ops.join('\n')}`), { filename: 'overflow.pdf' });
    const markdown = doc.markdown ?? '';
    expect(markdown).toMatch(/\| Bundesrepubli\w? \| 27\.5 \|/);
    expect(markdown).toContain('| France | 25.0 |');
  });

  it('cuts an overflowing run where its characters are, from the font\u2019s widths', async () => {
    // "Teacher/Union Preside" overflows its cell, its last "e" under the rule at x 175.6, and
    // pdf.js joins it with the next cell's "SPPS/SPFT" (tabula-java's schools.pdf). Placed by
    // the widths of a typical font, the "e" seemed left of the rule and the "S" under it.
    const ops = [
      'BT /F1 10 Tf 75 686 Td (Occupation) Tj ET',
      'BT /F1 10 Tf 180 686 Td (Employer) Tj ET',
      'BT /F1 10 Tf 75 666 Td (Teacher/Union PresideSPPS/SPFT) Tj ET',
      'BT /F1 10 Tf 75 646 Td (Retired) Tj ET',
      'BT /F1 10 Tf 180 646 Td (SPPS) Tj ET',
    ];
    for (const y of [700, 680, 660, 640]) ops.push(`70 ${y} m 260 ${y} l S`);
    for (const x of [70, 175.6, 260]) ops.push(`${x} 700 m ${x} 640 l S`);
    const doc = await parse(pdfOf(`0.5 w\n${ops.join('\n')}`), { filename: 'overflow.pdf' });
    const markdown = doc.markdown ?? '';
    expect(markdown).toContain('| Teacher/Union Presid | SPPS/SPFT |');
    expect(markdown).toContain('| Retired | SPPS |');
  });
});
