/**
 * Stream tables (no rules) as reports set them: a label wrapped over two lines with
 * its row's figures on a line between them, one wrapped with a hanging indent, the last row's
 * label wrapped, and a source note that ends the table.
 */
import { describe, expect, it } from 'vitest';
import { parse } from '@trawl/core';
import { pdfOf } from './hand-pdf.ts';

const text = (x: number, y: number, value: string) => `BT /F1 10 Tf ${x} ${y} Td (${value}) Tj ET`;
const columnX = [72, 260, 330, 400];

function report(): Uint8Array {
  const ops = [text(72, 740, 'Cases handled by the district office.')];
  const row = (y: number, cells: string[]) =>
    cells.forEach((cell, c) => cell && ops.push(text(columnX[c]!, y, cell)));
  row(710, ['District Totals', 'FY 2009', 'FY 2010', 'FY 2011']);
  row(696, ['Investigative Matters', '', '', '']);
  row(690, ['', '285', '402', '387']);
  row(684, ['Received by Attorneys', '', '', '']);
  row(670, ['Defendants Charged', '235', '259', '215']);
  row(656, ['Cases Charged', '173', '177', '168']);
  row(642, ['American Indian/Alaska', '77', '81', '95']);
  ops.push(text(74, 633, 'Native'));
  row(621, ['Asian', '12', '15', '9']);
  ops.push(text(72, 604, 'Source: the district office.'));
  row(590, ['3.1 Outlook', '', 'Next', '']);
  row(576, ['The office expects', '', 'more cases', '']);
  return pdfOf(ops.join('\n'));
}

describe('parse() of PDF tables set without rules', () => {
  it('joins wrapped labels and ends the table at its source note', async () => {
    const doc = await parse(report(), { filename: 'report.pdf' });
    const markdown = doc.markdown ?? '';
    expect(markdown).toContain('| Investigative Matters Received by Attorneys | 285 | 402 | 387 |');
    expect(markdown).toContain('| Cases Charged | 173 | 177 | 168 |');
    // A label wrapped with a hanging indent, its second line starting with a capital.
    expect(markdown).toContain('| American Indian/Alaska Native | 77 | 81 | 95 |');
    expect(markdown).not.toMatch(/\| *Source/);
    expect(markdown).not.toMatch(/\| *3\.1 Outlook/);
  });

  it('puts right-aligned header text over its figures, with a header cell one line taller', async () => {
    // Helvetica 10 pt: the header cells end where their figures end (x 300 and 400); the first
    // one is wider than the gap before it, and the second has a line above the header row.
    const ops = [
      text(72, 740, 'Freight by region.'),
      text(371.7, 700, 'Yearly'),
      text(72, 688, 'Region'),
      text(171.6, 688, 'Shipments by truck in tonnes'),
      text(367.2, 688, 'change'),
    ];
    const figures = [
      ['Eastern region', '1,250', '4.1'],
      ['Western region', '2,310', '2.7'],
      ['Northern region', '1,905', '3.3'],
      ['Southern region', '3,020', '5.0'],
    ];
    figures.forEach(([label, tonnes, change], r) =>
      ops.push(
        text(72, 670 - 14 * r, label!),
        text(275, 670 - 14 * r, tonnes!),
        text(386.1, 670 - 14 * r, change!),
      ),
    );
    const doc = await parse(pdfOf(ops.join('\n')), { filename: 'freight.pdf' });
    const markdown = doc.markdown ?? '';
    expect(markdown).toContain('| Region | Shipments by truck in tonnes | Yearly change |');
    expect(markdown).toContain('| Eastern region | 1,250 | 4.1 |');
    expect(markdown).toContain('| Southern region | 3,020 | 5.0 |');
  });

  it("keeps the last row's label wrapped onto a line of its own in the table", async () => {
    // The wrapped line has one chunk, so the run of table lines ended before it.
    const ops = [text(72, 740, 'Symptoms by how often they occur.')];
    const row = (y: number, cells: string[]) =>
      cells.forEach((cell, c) => cell && ops.push(text(columnX[c]!, y, cell)));
    row(710, ['Symptom', 'Weekly', 'Monthly', 'Rarely']);
    row(696, ['Headache', '239', '119', '128']);
    row(682, ['Back-ache', '139', '126', '219']);
    row(668, ['Problems falling', '130', '48', '308']);
    ops.push(text(72, 657, 'asleep at night'));
    ops.push(text(72, 620, 'The survey asked 1,200 adults in 2024.'));
    const doc = await parse(pdfOf(ops.join('\n')), { filename: 'symptoms.pdf' });
    const markdown = doc.markdown ?? '';
    expect(markdown).toContain('| Problems falling asleep at night | 130 | 48 | 308 |');
    expect(markdown).toContain('| Back-ache | 139 | 126 | 219 |');
    expect(markdown).toMatch(/^The survey asked/m);
  });
});
