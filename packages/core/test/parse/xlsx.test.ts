/**
 * Spreadsheets as their authors laid them out: workbooks written here with exceljs,
 * each with one layout a real workbook has — tables side by side and one under the other, a
 * title row, merged cells, hidden sheets and rows, comments, a picture anchored to one cell.
 */
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { parse } from '@trawl/core';

async function workbookBytes(build: (workbook: ExcelJS.Workbook) => void): Promise<Uint8Array> {
  const workbook = new ExcelJS.Workbook();
  build(workbook);
  return new Uint8Array(await workbook.xlsx.writeBuffer());
}

/** The GFM tables of a markdown text, each as its lines. */
const tables = (markdown: string) =>
  markdown
    .split(/\n{2,}/)
    .filter((block) => block.startsWith('|'))
    .map((block) => block.split('\n'));

describe('parse() of spreadsheets', () => {
  it('splits a sheet into its tables at blank rows and columns, with a title row as heading', async () => {
    const bytes = await workbookBytes((workbook) => {
      const sheet = workbook.addWorksheet('Report');
      sheet.getCell('A1').value = 'Quarterly sales';
      sheet.addRow([]);
      sheet.getRow(3).values = ['Region', 'Q1', 'Q2'];
      sheet.getRow(4).values = ['North', 10, 12];
      sheet.getRow(5).values = ['South', 7, 9];
      // A second table beside the first, after a blank column.
      sheet.getCell('E3').value = 'Currency';
      sheet.getCell('F3').value = 'Rate';
      sheet.getCell('E4').value = 'EUR';
      sheet.getCell('F4').value = 1.1;
      // A third under the first, after a blank row, with its own title.
      sheet.getCell('A8').value = 'Staff';
      sheet.getRow(9).values = ['Name', 'Team'];
      sheet.getRow(10).values = ['Ada', 'Core'];
    });
    const doc = await parse(bytes, { filename: 'report.xlsx' });
    const markdown = doc.markdown ?? '';
    expect(markdown).toContain('### Quarterly sales');
    expect(markdown).toContain('### Staff');
    const found = tables(markdown);
    expect(found).toHaveLength(3);
    expect(found[0]![0]).toBe('| Region | Q1 | Q2 |');
    expect(found[0]).toHaveLength(4);
    expect(found.map((table) => table[0])).toContain('| Currency | Rate |');
    expect(found.map((table) => table[0])).toContain('| Name | Team |');
    expect(markdown.indexOf('### Quarterly sales')).toBeLessThan(markdown.indexOf('| Region'));
  });

  it('keeps a merged header cell as one cell spanning its columns', async () => {
    const bytes = await workbookBytes((workbook) => {
      const sheet = workbook.addWorksheet('Merged');
      sheet.getRow(1).values = ['Item', 'Sales', ''];
      sheet.mergeCells('B1:C1');
      sheet.getRow(2).values = ['', 'Q1', 'Q2'];
      sheet.getRow(3).values = ['Tea', 5, 6];
    });
    const doc = await parse(bytes, { filename: 'merged.xlsx', formats: ['markdown', 'html'] });
    expect(doc.html).toMatch(/<th colspan="2">Sales<\/th>/);
    expect(doc.markdown).toContain('| Item | Sales | |');
  });

  it('keeps a lone group header over some columns in the table, but takes a lone title at the left as heading', async () => {
    const bytes = await workbookBytes((workbook) => {
      const sheet = workbook.addWorksheet('Groups');
      sheet.getCell('A1').value = 'Sales by quarter';
      sheet.getCell('B2').value = 'Sales';
      sheet.mergeCells('B2:C2');
      sheet.getRow(3).values = ['Item', 'Q1', 'Q2'];
      sheet.getRow(4).values = ['Tea', 5, 6];
    });
    const doc = await parse(bytes, { filename: 'groups.xlsx' });
    expect(doc.markdown).toBe(
      [
        '## Groups',
        '',
        '### Sales by quarter',
        '',
        '| | Sales | |',
        '| --- | --- | --- |',
        '| Item | Q1 | Q2 |',
        '| Tea | 5 | 6 |',
      ].join('\n'),
    );
  });

  it('skips hidden sheets and rows and says so', async () => {
    const bytes = await workbookBytes((workbook) => {
      const shown = workbook.addWorksheet('Shown');
      shown.addRow(['Name', 'Value']);
      shown.addRow(['kept', 1]);
      shown.addRow(['secret row', 2]).hidden = true;
      const hidden = workbook.addWorksheet('Lookup');
      hidden.state = 'hidden';
      hidden.addRow(['internal', 'table']);
    });
    const doc = await parse(bytes, { filename: 'hidden.xlsx' });
    expect(doc.markdown).toContain('kept');
    expect(doc.markdown).not.toContain('secret row');
    expect(doc.markdown).not.toContain('internal');
    expect(doc.warning).toContain('Lookup');
    expect(doc.warning).toMatch(/1 hidden rows/);
  });

  it('turns cell comments into numbered notes under the table', async () => {
    const bytes = await workbookBytes((workbook) => {
      const sheet = workbook.addWorksheet('Notes');
      sheet.addRow(['Metric', 'Value']);
      sheet.addRow(['Churn', 0.04]);
      sheet.getCell('B2').note = 'Estimated from the March survey';
    });
    const doc = await parse(bytes, { filename: 'notes.xlsx' });
    // The note's number in superscript digits, apart from the value: never 0.041.
    expect(doc.markdown).toContain('| Churn | 0.04 ¹ |');
    expect(doc.markdown).toContain('1. Estimated from the March survey');
  });

  it('reads a sheet whose picture exceljs cannot load, without the picture', async () => {
    const base = await workbookBytes((workbook) => {
      const sheet = workbook.addWorksheet('Pictured');
      sheet.addRow(['Product', 'Price']);
      sheet.addRow(['Kettle', 30]);
      const image = workbook.addImage({
        buffer: Buffer.from(
          'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
          'base64',
        ) as unknown as ExcelJS.Buffer,
        extension: 'png',
      });
      sheet.addImage(image, { tl: { col: 3, row: 1 }, ext: { width: 10, height: 10 } });
    });
    // A one-cell anchor whose picture names no embedded image, as some producers write it:
    // exceljs throws "Cannot read properties of undefined" on it.
    const zip = await JSZip.loadAsync(base);
    const drawing = Object.keys(zip.files).find((name) =>
      /^xl\/drawings\/drawing\d+\.xml$/.test(name),
    )!;
    const xml = await zip.file(drawing)!.async('string');
    zip.file(drawing, xml.replace(/r:embed="[^"]*"/, 'r:embed="rIdMissing"'));
    const broken = new Uint8Array(await zip.generateAsync({ type: 'uint8array' }));
    const direct = new ExcelJS.Workbook();
    await expect(direct.xlsx.load(Buffer.from(broken) as unknown as ArrayBuffer)).rejects.toThrow();
    const doc = await parse(broken, { filename: 'pictured.xlsx' });
    expect(doc.markdown).toContain('| Kettle | 30 |');
    expect(doc.warning).toMatch(/Pictures and charts/);
  });

  it('reads a workbook exceljs cannot open (workbook part under another name) from its XML', async () => {
    const base = await workbookBytes((workbook) => {
      const sheet = workbook.addWorksheet('Stock');
      sheet.addRow(['Part', 'Count']);
      sheet.addRow(['Bolt', 120]);
      sheet.getCell('D1').value = 'Spanning note';
      sheet.mergeCells('D1:E1');
    });
    // OPC lets the package name its main part anything; its relationships say which.
    const zip = await JSZip.loadAsync(base);
    const moved = 'xl/book.xml';
    zip.file(moved, await zip.file('xl/workbook.xml')!.async('string'));
    zip.file(
      'xl/_rels/book.xml.rels',
      await zip.file('xl/_rels/workbook.xml.rels')!.async('string'),
    );
    zip.remove('xl/workbook.xml');
    zip.remove('xl/_rels/workbook.xml.rels');
    const rels = await zip.file('_rels/.rels')!.async('string');
    zip.file('_rels/.rels', rels.replace('xl/workbook.xml', moved));
    const types = await zip.file('[Content_Types].xml')!.async('string');
    zip.file('[Content_Types].xml', types.replace('/xl/workbook.xml', `/${moved}`));
    const renamed = new Uint8Array(await zip.generateAsync({ type: 'uint8array' }));
    const direct = new ExcelJS.Workbook();
    await direct.xlsx.load(Buffer.from(renamed) as unknown as ArrayBuffer);
    expect(direct.worksheets).toHaveLength(0);
    const doc = await parse(renamed, { filename: 'stock.xlsx', formats: ['markdown', 'html'] });
    expect(doc.markdown).toContain('| Part | Count |');
    expect(doc.markdown).toContain('| Bolt | 120 |');
    expect(doc.html).toMatch(/<th colspan="2">Spanning note<\/th>/);
    expect(doc.warning).toMatch(/read from its XML/);
  });
});
