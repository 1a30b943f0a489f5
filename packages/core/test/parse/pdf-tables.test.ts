/**
 * PDF tables beyond one page, on a PDF LibreOffice makes here from HTML: a ruled
 * table of 90 rows runs over several pages and must come back as one table.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from '@trawl/core';

const folder = mkdtempSync(join(tmpdir(), 'trawl-pdf-tables-'));
let longTable: Uint8Array;
let unruled: Uint8Array;

/** A PDF of an HTML page, by the machine's LibreOffice. */
function htmlToPdf(name: string, html: string): Uint8Array {
  writeFileSync(join(folder, `${name}.html`), html);
  execFileSync(
    '/usr/bin/soffice',
    [
      '--headless',
      `-env:UserInstallation=${pathToFileURL(join(folder, 'profile')).href}`,
      '--convert-to',
      'pdf:writer_web_pdf_Export',
      '--outdir',
      folder,
      join(folder, `${name}.html`),
    ],
    { timeout: 120_000, stdio: 'ignore' },
  );
  return new Uint8Array(readFileSync(join(folder, `${name}.pdf`)));
}

beforeAll(() => {
  const rows = Array.from(
    { length: 90 },
    (_, i) => `<tr><td>Item ${i + 1}</td><td>${(i + 1) * 3}</td><td>${(i + 1) * 7}</td></tr>`,
  ).join('');
  longTable = htmlToPdf(
    'long',
    `<html><body><p>All items in stock.</p><table border="1"><thead><tr><th>Item</th><th>Count</th><th>Weight</th></tr></thead><tbody>${rows}</tbody></table><p>End of list.</p></body></html>`,
  );
  // No rules, section rows holding one label, figures far right: as report tables are set.
  const section = (label: string) => `<tr><td><b>${label}</b></td><td></td></tr>`;
  const item = (label: string, weight: number) =>
    `<tr><td>&nbsp;&nbsp;&nbsp;${label}</td><td align="right">${weight}</td></tr>`;
  unruled = htmlToPdf(
    'unruled',
    `<html><body><p>The weights are shown in the table below.</p><table width="100%" cellspacing="0" cellpadding="2"><tr><td><b>Indicators</b></td><td align="right"><b>Weight</b></td></tr>${section('Effectiveness')}${item('Employment', 40)}${item('Further studies', 15)}${section('Processes')}${item('Dropping out', 15)}${item('Certificate holders', 13)}${section('Staff')}${item('Formal qualifications', 11)}${item('Staff development', 6)}</table><p>Source: the board, 2006.</p></body></html>`,
  );
}, 180_000);

afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('parse() of PDF tables', () => {
  it('joins a table that runs over page breaks into one table', async () => {
    const doc = await parse(longTable, { filename: 'long.pdf' });
    expect(Number(doc.metadata.numPages)).toBeGreaterThan(1);
    const markdown = doc.markdown ?? '';
    // One delimiter row: one table, not one per page.
    expect(markdown.split('\n').filter((line) => /^\| --- \|/.test(line))).toHaveLength(1);
    const table = markdown.slice(markdown.indexOf('| --- |'), markdown.indexOf('End of list.'));
    for (const item of [2, 30, 45, 60, 90])
      expect(table).toContain(`| Item ${item} | ${item * 3} |`);
  });

  it('reads a table without rules whose section rows hold one label each', async () => {
    const doc = await parse(unruled, { filename: 'weights.pdf' });
    const markdown = doc.markdown ?? '';
    expect(markdown).toContain('| Indicators | Weight |');
    expect(markdown).toContain('| Effectiveness | |');
    expect(markdown).toContain('| Employment | 40 |');
    expect(markdown).toContain('| Staff development | 6 |');
  });
});
