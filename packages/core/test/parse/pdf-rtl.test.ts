/**
 * Right-to-left text in PDFs (issue 22): Hebrew pages LibreOffice sets here. pdf.js gives each
 * run of text in logical order; the runs of a line must be read from the right, or a line that
 * mixes Hebrew with figures and Latin words comes out back to front; and a right-to-left page in
 * two columns is read right column first.
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
});
