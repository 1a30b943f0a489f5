/**
 * Robustness of parse() on real and malformed files: a fixed sample of 50 files of
 * Apache POI's test-data (test/parse-sample, Apache-2.0), and PDFs broken here from the test
 * corpus in the ways real files break (cut short, bytes overwritten, the cross-reference table
 * gone, a stream's length wrong). Each must parse, or be refused with a 4xx code — never a
 * 500 or an exception that is not a TrawlError. The whole corpora run in bench/parse-robustness.ts.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { parse, TrawlError } from '@trawl/core';

const sampleDir = join(import.meta.dirname, '../parse-sample');
const refusals = new Set([
  'BAD_REQUEST',
  'UNSUPPORTED_FILE_TYPE',
  'CONTENT_TOO_LARGE',
  'SCRAPE_TIMEOUT',
  'NOT_CONFIGURED',
]);

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

const samples = walk(join(sampleDir, 'poi'))
  .filter((path) => !/\/(?:LICENSE|NOTICE)$/.test(path))
  .sort();

/** Broken variants of a good PDF, each a way real files arrive damaged. */
function brokenPdfs(): Array<[string, Uint8Array]> {
  const good = readFileSync(join(import.meta.dirname, '../parse-corpus/out/report.pdf'));
  const text = good.toString('latin1');
  const overwrite = (at: number, length: number) => {
    const copy = Buffer.from(good);
    copy.fill(0x41, at, Math.min(good.length, at + length));
    return copy;
  };
  const xref = text.lastIndexOf('xref');
  const stream = text.indexOf('stream');
  return [
    ['cut at a third', good.subarray(0, Math.floor(good.length / 3))],
    ['cut before the trailer', good.subarray(0, xref)],
    ['header only', good.subarray(0, 16)],
    ['bytes overwritten in the first stream', overwrite(stream + 10, 200)],
    ['bytes overwritten in the middle', overwrite(Math.floor(good.length / 2), 4096)],
    ['cross-reference table garbled', overwrite(xref, 400)],
    [
      'a stream length that lies',
      Buffer.from(
        text.replace(/\/Length (\d+)/, (_, n: string) => `/Length ${Number(n) * 9}`),
        'latin1',
      ),
    ],
    [
      'every tenth byte flipped',
      Buffer.from(good.map((byte, i) => (i % 10 === 5 ? byte ^ 0xff : byte))),
    ],
    // pdf.js throws its own exception class on this, which used to escape as a 500.
    [
      'whose page tree points back at itself',
      Buffer.from(
        '%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n' +
          '2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n' +
          '3 0 obj << /Type /Pages /Kids [2 0 R] /Count 1 /Parent 2 0 R >> endobj\n' +
          'trailer << /Root 1 0 R /Size 4 >>\n%%EOF\n',
        'latin1',
      ),
    ],
  ].map(([name, bytes]) => [name as string, new Uint8Array(bytes as Uint8Array)]);
}

/** parse() settles as a document or a 4xx refusal; anything else fails with what it was. */
async function outcomeOf(bytes: Uint8Array, filename: string): Promise<string> {
  try {
    const doc = await parse(bytes, { filename, timeout: 30_000 });
    expect(doc.metadata).toBeDefined();
    return 'parsed';
  } catch (error) {
    if (error instanceof TrawlError && refusals.has(error.code)) return `refused ${error.code}`;
    return `failed: ${error instanceof TrawlError ? error.code : (error as Error)?.name}: ${(error as Error)?.message}`;
  }
}

describe('parse() robustness sample', () => {
  it('holds 50 POI files', () => {
    expect(samples).toHaveLength(50);
  });

  it.each(samples.map((path) => [relative(sampleDir, path), path]))(
    '%s parses or is refused with a 4xx code',
    async (name, path) => {
      const outcome = await outcomeOf(new Uint8Array(readFileSync(path)), name.split('/').pop()!);
      expect(outcome).toMatch(/^(?:parsed|refused )/);
    },
    60_000,
  );

  it.each(brokenPdfs())(
    'a PDF %s parses or is refused with a 4xx code',
    async (_, bytes) => {
      const outcome = await outcomeOf(bytes, 'broken.pdf');
      expect(outcome).toMatch(/^(?:parsed|refused )/);
    },
    60_000,
  );

  it('reads a sheet of 20,000 merged ranges without hanging (exceljs is quadratic in them)', async () => {
    const zip = new JSZip();
    const cells: string[] = [];
    const merges: string[] = [];
    for (let row = 1; row <= 20_000; row++) {
      cells.push(
        `<row r="${row}"><c r="A${row}" t="inlineStr"><is><t>Row ${row}</t></is></c></row>`,
      );
      merges.push(`<mergeCell ref="A${row}:C${row}"/>`);
    }
    const main = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
    const officeRels = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
    zip.file(
      '[Content_Types].xml',
      '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>',
    );
    zip.file(
      '_rels/.rels',
      `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${officeRels}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    );
    zip.file(
      'xl/workbook.xml',
      `<?xml version="1.0"?><workbook xmlns="${main}" xmlns:r="${officeRels}"><sheets><sheet name="Merged" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    );
    zip.file(
      'xl/_rels/workbook.xml.rels',
      `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${officeRels}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
    );
    zip.file(
      'xl/worksheets/sheet1.xml',
      `<?xml version="1.0"?><worksheet xmlns="${main}"><sheetData>${cells.join('')}</sheetData><mergeCells count="20000">${merges.join('')}</mergeCells></worksheet>`,
    );
    const bytes = await zip.generateAsync({ type: 'uint8array', compression: 'DEFLATE' });
    const doc = await parse(bytes, { filename: 'merged.xlsx', timeout: 30_000 });
    expect(doc.markdown).toContain('Row 19999');
  }, 60_000);
});
