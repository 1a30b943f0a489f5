/**
 * What a Word document keeps in drawings: a text box holding a table, and a chart. The corpus's
 * boxes.docx is LibreOffice's export of a hand-written source (test/parse-corpus/sources/
 * boxes.fodt); variants edited with jszip reach what other producers write (a text box with no
 * VML fallback) and add a chart (the part LibreOffice wrote for the corpus's charts.pptx).
 */
import { readFileSync } from 'node:fs';
import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { parse } from '@trawl/core';

const boxes = readFileSync(
  new URL('../../../../test/parse-corpus/out/boxes.docx', import.meta.url),
);

const chargesTable = [
  '| Vessel length | Per night |',
  '| --- | --- |',
  '| Under 10 m | £18 |',
  '| 10 m to 20 m | £32 |',
  '| Over 20 m | £55 |',
].join('\n');

const chartTable = [
  '**Landings in tonnes**',
  '',
  '| | Cod | Mackerel |',
  '| --- | --- | --- |',
  '| Q1 | 12 | 6 |',
  '| Q2 | 15 | 22 |',
  '| Q3 | 8 | 31 |',
  '| Q4 | 9 | 4 |',
].join('\n');

/**
 * boxes.docx with a chart in a paragraph of its own before the last one: the chart part
 * LibreOffice wrote for charts.pptx (its first chart), referenced as Word references a chart.
 */
async function withChart(): Promise<Uint8Array> {
  const deck = await JSZip.loadAsync(
    readFileSync(new URL('../../../../test/parse-corpus/out/charts.pptx', import.meta.url)),
  );
  const chartPath = Object.keys(deck.files)
    .filter((name) => /^ppt\/charts\/chart\d+\.xml$/.test(name))
    .sort()[0]!;
  const zip = await JSZip.loadAsync(boxes);
  zip.file('word/charts/chart1.xml', await deck.file(chartPath)!.async('string'));
  const relsPath = 'word/_rels/document.xml.rels';
  const rels = await zip.file(relsPath)!.async('string');
  zip.file(
    relsPath,
    rels.replace(
      '</Relationships>',
      '<Relationship Id="rIdChart1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/chart" Target="charts/chart1.xml"/></Relationships>',
    ),
  );
  const drawing =
    '<w:p><w:r><w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"><wp:extent cx="5000000" cy="3000000"/><wp:docPr id="90" name="Chart"/><a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/chart"><c:chart xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" r:id="rIdChart1"/></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>';
  const xml = await zip.file('word/document.xml')!.async('string');
  const last = xml.lastIndexOf('<w:p>') >= 0 ? xml.lastIndexOf('<w:p>') : xml.lastIndexOf('<w:p ');
  zip.file('word/document.xml', xml.slice(0, last) + drawing + xml.slice(last));
  return zip.generateAsync({ type: 'uint8array' });
}

/** boxes.docx with each drawing's VML fallback gone and its DrawingML choice kept bare. */
async function withoutFallbacks(): Promise<Uint8Array> {
  const zip = await JSZip.loadAsync(boxes);
  const xml = await zip.file('word/document.xml')!.async('string');
  const bare = xml
    .replace(/<mc:Fallback>[\s\S]*?<\/mc:Fallback>/g, '')
    .replace(/<mc:AlternateContent>\s*<mc:Choice[^>]*>/g, '')
    .replace(/<\/mc:Choice>\s*<\/mc:AlternateContent>/g, '');
  expect(bare).not.toContain('<w:pict');
  expect(bare).toContain('<w:txbxContent');
  zip.file('word/document.xml', bare);
  return zip.generateAsync({ type: 'uint8array' });
}

describe('parse() of drawings in DOCX', () => {
  it('reads a text box holding a table after the paragraph it is anchored in', async () => {
    const doc = await parse(boxes, { filename: 'boxes.docx' });
    const markdown = doc.markdown ?? '';
    expect(markdown).toContain(chargesTable);
    expect(markdown.indexOf('apply from the first of April')).toBeLessThan(
      markdown.indexOf('| Vessel length'),
    );
    expect(markdown.trimEnd().endsWith('Questions about charges go to the harbour master.')).toBe(
      true,
    );
  });

  it('reads a chart as its title and a table of its cached data, where it stands', async () => {
    const doc = await parse(await withChart(), { filename: 'chart.docx' });
    const markdown = doc.markdown ?? '';
    expect(markdown).toContain(
      `Charges are reviewed every year in March.\n\n${chartTable}\n\nQuestions about charges`,
    );
  });

  it('reads a text box that has no VML fallback, as other producers write it', async () => {
    const doc = await parse(await withoutFallbacks(), { filename: 'bare.docx' });
    expect(doc.markdown).toContain(chargesTable);
    expect(doc.markdown).toContain('Berthing charges');
  });
});
