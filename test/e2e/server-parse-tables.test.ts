/**
 * The official SDK's parse() against a real `trawl serve` gives the right markdown tables for a
 * Word table without a marked header row, a workbook, and a semicolon-separated CSV.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Firecrawl from '@mendable/firecrawl-js';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveEngineConfig, SqliteStore } from '@trawl/core';
import { ApiKeys, buildServer } from '@trawl/http';
import { cell, docxOf, paragraph, row } from '../fixture-site/docx-builder.ts';

const key = 'fc-parse-tables';
let firecrawl: Firecrawl;
let close: () => Promise<void>;

beforeAll(async () => {
  const store = new SqliteStore({
    path: join(mkdtempSync(join(tmpdir(), 'trawl-parse-tables-')), 'trawl.db'),
  });
  const app = buildServer({
    store,
    config: resolveEngineConfig(),
    keys: ApiKeys.parse(`team-a:${key}`),
    logLevel: 'silent',
  });
  firecrawl = new Firecrawl({
    apiKey: key,
    apiUrl: await app.listen({ port: 0, host: '127.0.0.1' }),
  });
  close = async () => {
    await app.close();
    await store.close();
  };
});
afterAll(() => close());

describe('parse() of tables through the official SDK', () => {
  it('gives a Word table its first row as the header', async () => {
    const table = `<w:tbl>${row(cell(paragraph('Port')), cell(paragraph('Calls')))}${row(
      cell(paragraph('Brest')),
      cell(paragraph('42')),
    )}</w:tbl>`;
    const doc = await firecrawl.parse(
      { data: docxOf(table), filename: 'ports.docx' },
      { formats: ['markdown'] },
    );
    expect(doc.markdown).toBe('| Port | Calls |\n| --- | --- |\n| Brest | 42 |');
  });

  it('gives a workbook sheet as a table', async () => {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Catch');
    sheet.addRow(['Species', 'Tonnes']);
    sheet.addRow(['Cod', 12]);
    sheet.addRow(['Hake', 7.5]);
    const data = Buffer.from(await workbook.xlsx.writeBuffer());
    const doc = await firecrawl.parse({ data, filename: 'catch.xlsx' }, { formats: ['markdown'] });
    expect(doc.markdown).toContain(
      '| Species | Tonnes |\n| --- | --- |\n| Cod | 12 |\n| Hake | 7.5 |',
    );
  });

  it('reads a semicolon CSV with a quoted semicolon as its columns', async () => {
    const csv = 'Index;Company;City\n1;"Dominguez;Mcmillan";Lyon\n2;Martin;Brest\n';
    const doc = await firecrawl.parse(
      { data: Buffer.from(csv), filename: 'companies.csv', contentType: 'text/csv' },
      { formats: ['markdown'] },
    );
    expect(doc.markdown).toBe(
      '| Index | Company | City |\n| --- | --- | --- |\n| 1 | Dominguez;Mcmillan | Lyon |\n| 2 | Martin | Brest |',
    );
  });
});
