/**
 * Stream tables (no rules) as reports set them (issue 22): a label wrapped over two lines with
 * its row's figures on a line between them, one wrapped with a hanging indent, and a source note
 * that ends the table.
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
});
