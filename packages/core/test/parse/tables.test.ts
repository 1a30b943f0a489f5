/**
 * One table model for every reader: cells holding blocks keep the grid (blocks joined with
 * `<br>`, list items as `•` lines), a table nested in a cell makes the outer one an HTML table,
 * and Word tables get their first row as the header, with checkboxes and equations kept.
 */
import { readFileSync } from 'node:fs';
import JSZip from 'jszip';
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

  it("writes a slide chart's cached data as a table under the chart's title", async () => {
    const zip = await JSZip.loadAsync(
      readFileSync(new URL('../../../../test/parse-corpus/out/deck.pptx', import.meta.url)),
    );
    const c = 'http://schemas.openxmlformats.org/drawingml/2006/chart';
    const points = (values: string[]) =>
      values.map((value, index) => `<c:pt idx="${index}"><c:v>${value}</c:v></c:pt>`).join('');
    const series = (name: string, values: string[]) =>
      `<c:ser><c:idx val="0"/><c:tx><c:strRef><c:f>Sheet1!$B$1</c:f><c:strCache><c:ptCount val="1"/>${points([name])}</c:strCache></c:strRef></c:tx><c:cat><c:strRef><c:strCache><c:ptCount val="2"/>${points(['2025', '2026'])}</c:strCache></c:strRef></c:cat><c:val><c:numRef><c:numCache><c:ptCount val="2"/>${points(values)}</c:numCache></c:numRef></c:val></c:ser>`;
    zip.file(
      'ppt/charts/chart1.xml',
      `<?xml version="1.0" encoding="UTF-8"?><c:chartSpace xmlns:c="${c}" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><c:chart><c:title><c:tx><c:rich><a:p><a:r><a:t>Tonnage landed</a:t></a:r></a:p></c:rich></c:tx></c:title><c:plotArea><c:barChart>${series('Cod', ['120', '135'])}${series('Hake', ['80', '95.5'])}</c:barChart></c:plotArea></c:chart></c:chartSpace>`,
    );
    const rels = 'ppt/slides/_rels/slide1.xml.rels';
    zip.file(
      rels,
      (await zip.file(rels)!.async('string')).replace(
        '</Relationships>',
        '<Relationship Id="rId9" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/chart" Target="../charts/chart1.xml"/></Relationships>',
      ),
    );
    const slide = 'ppt/slides/slide1.xml';
    zip.file(
      slide,
      (await zip.file(slide)!.async('string')).replace(
        '</p:spTree>',
        `<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="99" name="Chart"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr><p:xfrm><a:off x="720000" y="5000000"/><a:ext cx="4000000" cy="2000000"/></p:xfrm><a:graphic><a:graphicData uri="${c}"><c:chart xmlns:c="${c}" r:id="rId9"/></a:graphicData></a:graphic></p:graphicFrame></p:spTree>`,
      ),
    );
    const doc = await parse(await zip.generateAsync({ type: 'uint8array' }), {
      filename: 'deck.pptx',
    });
    expect(doc.markdown).toContain(
      '**Tonnage landed**\n\n| | Cod | Hake |\n| --- | --- | --- |\n| 2025 | 120 | 80 |\n| 2026 | 135 | 95.5 |',
    );
  });
});
