/**
 * Right-to-left text in PDFs: Hebrew pages LibreOffice sets here. pdf.js gives each
 * run of text in logical order; the runs of a line must be read from the right, or a line that
 * mixes Hebrew with figures and Latin words comes out back to front; and a right-to-left page in
 * two columns is read right column first; the words of a table cell are read from the right.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from '@trawl/core';

const folder = mkdtempSync(join(tmpdir(), 'trawl-pdf-rtl-'));
const mixed = 'השורה השנייה כוללת את המספר 42 ומילה English אחת.';
let hebrew: Uint8Array;
let columns: Uint8Array;
let table: Uint8Array;

const filler = 'זהו טקסט לדוגמה בעברית שנכתב כדי למלא את העמוד בשתי עמודות ולבדוק את סדר הקריאה';

/** A flat ODT: an A4 right-to-left page in two columns, forty numbered Hebrew paragraphs. */
const twoColumnDocument = () => `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.text">
<office:automatic-styles>
<style:page-layout style:name="pm1"><style:page-layout-properties fo:page-width="21cm" fo:page-height="29.7cm" style:writing-mode="rl-tb" fo:margin="2cm"><style:columns fo:column-count="2" fo:column-gap="1cm"/></style:page-layout-properties></style:page-layout>
<style:style style:name="P1" style:family="paragraph"><style:paragraph-properties style:writing-mode="rl-tb" fo:margin-bottom="0.2cm"/></style:style>
</office:automatic-styles>
<office:master-styles><style:master-page style:name="Standard" style:page-layout-name="pm1"/></office:master-styles>
<office:body><office:text>${Array.from({ length: 40 }, (_, i) => `<text:p text:style-name="P1">פסקה מספר ${i + 1}: ${filler}.</text:p>`).join('')}</office:text></office:body></office:document>`;

/**
 * A flat ODT: a right-to-left table, labels on the right, three columns of figures, no rules.
 * The first word of each label is bold, so the PDF holds each word as a run of its own.
 */
const tableDocument = () => {
  const rows = [
    ['סעיף', '2014', '2013', '2012'],
    ['<text:span text:style-name="B">סך</text:span> הכל', '2.6', '3.2', '3.0'],
    ['<text:span text:style-name="B">הסקטור</text:span> העסקי', '2.5', '3.4', '2.9'],
    ['<text:span text:style-name="B">מוצרים</text:span> בני קיימא', '7.0', '1.9', '2.0'],
    ['<text:span text:style-name="B">יצוא</text:span> סחורות', '0.6', '1.5', '0.9'],
  ];
  const cell = (text: string) =>
    `<table:table-cell office:value-type="string"><text:p text:style-name="P1">${text}</text:p></table:table-cell>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.text">
<office:automatic-styles>
<style:page-layout style:name="pm1"><style:page-layout-properties fo:page-width="21cm" fo:page-height="29.7cm" style:writing-mode="rl-tb" fo:margin="2cm"/></style:page-layout>
<style:style style:name="P1" style:family="paragraph"><style:paragraph-properties style:writing-mode="rl-tb"/></style:style>
<style:style style:name="B" style:family="text"><style:text-properties fo:font-weight="bold" style:font-weight-complex="bold"/></style:style>
<style:style style:name="T1" style:family="table"><style:table-properties style:width="12cm" style:writing-mode="rl-tb" table:align="right"/></style:style>
<style:style style:name="C1" style:family="table-column"><style:table-column-properties style:column-width="3cm"/></style:style>
</office:automatic-styles>
<office:master-styles><style:master-page style:name="Standard" style:page-layout-name="pm1"/></office:master-styles>
<office:body><office:text><text:p text:style-name="P1">טבלה לדוגמה</text:p><table:table table:name="T" table:style-name="T1"><table:table-column table:style-name="C1" table:number-columns-repeated="4"/>${rows.map((row) => `<table:table-row>${row.map(cell).join('')}</table:table-row>`).join('')}</table:table><text:p text:style-name="P1">סוף הטבלה.</text:p></office:text></office:body></office:document>`;
};

function convert(file: string, filter: string): void {
  execFileSync(
    '/usr/bin/soffice',
    [
      '--headless',
      `-env:UserInstallation=${pathToFileURL(join(folder, 'profile')).href}`,
      '--convert-to',
      filter,
      '--outdir',
      folder,
      join(folder, file),
    ],
    { timeout: 120_000, stdio: 'ignore' },
  );
}

beforeAll(() => {
  writeFileSync(
    join(folder, 'hebrew.html'),
    `<html><body dir="rtl"><p dir="rtl">שלום עולם, זהו מסמך בעברית.</p><p dir="rtl">${mixed}</p></body></html>`,
  );
  convert('hebrew.html', 'pdf:writer_web_pdf_Export');
  writeFileSync(join(folder, 'columns.fodt'), twoColumnDocument());
  convert('columns.fodt', 'pdf');
  writeFileSync(join(folder, 'table.fodt'), tableDocument());
  convert('table.fodt', 'pdf');
  table = new Uint8Array(readFileSync(join(folder, 'table.pdf')));
  hebrew = new Uint8Array(readFileSync(join(folder, 'hebrew.pdf')));
  columns = new Uint8Array(readFileSync(join(folder, 'columns.pdf')));
}, 180_000);

afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('parse() of right-to-left PDFs', () => {
  it('reads a Hebrew line with figures and a Latin word in logical order', async () => {
    const doc = await parse(hebrew, { filename: 'hebrew.pdf' });
    expect(doc.markdown).toContain(mixed);
  });

  it('reads a right-to-left page in two columns right column first', async () => {
    const doc = await parse(columns, { filename: 'columns.pdf' });
    const found = [...(doc.markdown ?? '').matchAll(/פסקה מספר (\d+):/g)].map((m) => Number(m[1]));
    expect(found.length).toBeGreaterThan(30);
    expect(found).toEqual([...found].sort((a, b) => a - b));
  });

  it('reads the words of a right-to-left table cell in logical order', async () => {
    // Each label's words are runs of their own: set left to right they came out back to front.
    const doc = await parse(table, { filename: 'table.pdf' });
    const markdown = doc.markdown ?? '';
    expect(markdown).toContain('| 3.0 | 3.2 | 2.6 | סך הכל |');
    expect(markdown).toContain('| 2.9 | 3.4 | 2.5 | הסקטור העסקי |');
    expect(markdown).toContain('| 2.0 | 1.9 | 7.0 | מוצרים בני קיימא |');
  });
});
