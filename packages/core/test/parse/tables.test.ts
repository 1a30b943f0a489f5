/**
 * One table model for every reader: cells holding blocks keep the grid (blocks joined with
 * `<br>`, list items as `•` lines), a table nested in a cell makes the outer one an HTML table,
 * and Word tables get their first row as the header, with checkboxes and equations kept.
 */
import { describe, expect, it } from 'vitest';
import { parse } from '@trawl/core';
import {
  cell,
  checkbox,
  docxOf,
  equation,
  paragraph,
  row,
} from '../../../../test/fixture-site/docx-builder.ts';

const text = (value: string) => new TextEncoder().encode(value);
describe('tables', () => {
  it('keeps an HTML table whose cells hold a list or paragraphs as one GFM table', async () => {
    const html = `<html><body><h1>Plans</h1><table>
      <tr><th>Plan</th><th>Includes</th></tr>
      <tr><td>Basic</td><td><ul><li>One user</li><li>Email support</li></ul></td></tr>
      <tr><td>Pro</td><td><p>Everything in Basic.</p><p>Priority<br>support</p></td></tr>
      <tr><td>Team</td><td><ol><li>Five users</li><li>SSO</li></ol></td></tr>
    </table></body></html>`;
    const doc = await parse(text(html), { filename: 'plans.html' });
    expect(doc.markdown).toBe(
      [
        '# Plans',
        '',
        '| Plan | Includes |',
        '| --- | --- |',
        '| Basic | • One user<br>• Email support |',
        '| Pro | Everything in Basic.<br>Priority<br>support |',
        '| Team | 1. Five users<br>2. SSO |',
      ].join('\n'),
    );
  });

  it('writes a table holding a nested table as HTML inside the markdown', async () => {
    const html = `<html><body><p>Before.</p><table>
      <tr><th>Region</th><th>Breakdown</th></tr>
      <tr><td>North</td><td><table><tr><td>Q1</td><td>10</td></tr><tr><td>Q2</td><td>12</td></tr></table></td></tr>
      <tr><td>South</td><td>none</td></tr>
    </table></body></html>`;
    const doc = await parse(text(html), { filename: 'regions.html' });
    expect(doc.markdown).toBe(
      'Before.\n\n<table><tr><th>Region</th><th>Breakdown</th></tr><tr><td>North</td><td><table><tr><td>Q1</td><td>10</td></tr><tr><td>Q2</td><td>12</td></tr></table></td></tr><tr><td>South</td><td>none</td></tr></table>',
    );
  });

  it('reads a one-column layout table of blocks as the blocks', async () => {
    const html =
      '<html><body><table><tr><td><h2>News</h2></td></tr><tr><td><ul><li>One</li><li>Two</li></ul></td></tr></table></body></html>';
    const doc = await parse(text(html), { filename: 'layout.html', onlyMainContent: false });
    expect(doc.markdown).toBe('## News\n\n- One\n- Two');
  });

  it('gives a Word table its first row as the header, and keeps paragraphs, checkboxes and equations in cells', async () => {
    const table = `<w:tbl>${row(cell(paragraph('Quarter')), cell(paragraph('Revenue')))}${row(
      cell(paragraph('Q1')),
      cell(paragraph('10'), paragraph('up 5%')),
    )}${row(cell(checkbox(true, 'Audited'), checkbox(false, 'Filed')), cell(equation))}</w:tbl>`;
    const doc = await parse(docxOf(`${paragraph('Results')}${table}`), { filename: 'q.docx' });
    expect(doc.markdown).toBe(
      [
        'Results',
        '',
        '| Quarter | Revenue |',
        '| --- | --- |',
        '| Q1 | 10<br>up 5% |',
        '| ☒ Audited<br>☐ Filed | E=mc^2 |',
      ].join('\n'),
    );
  });
});
