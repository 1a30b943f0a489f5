/**
 * PDFs as a browser prints them: Chromium's print to PDF draws each cell of a `border="1"` table
 * with its own border (two rules a point apart between neighbours) and a list's bullets as
 * filled shapes, not glyphs. Printed here by the machine's Chromium from a page written here.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from '@trawl/core';

const folder = mkdtempSync(join(tmpdir(), 'trawl-pdf-print-'));
let printed: Uint8Array;

beforeAll(() => {
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>Results</title></head><body>
    <h1>Quarterly results</h1>
    <p>Revenue by quarter, in thousands of pounds.</p>
    <table border="1">
      <tr><th>Quarter</th><th>Revenue</th></tr>
      <tr><td>Q1</td><td>120</td></tr>
      <tr><td>Q2</td><td>135</td></tr>
      <tr><td>Q3</td><td>150</td></tr>
    </table>
    <p>What we learned this year:</p>
    <ul><li>First point about the harbour</li><li>Second point about the fleet</li><li>Third point about the quay</li></ul>
    <p>Square markers too:</p>
    <ul style="list-style-type: square"><li>Cod landings rose</li><li>Crab landings fell</li></ul>
  </body></html>`;
  writeFileSync(join(folder, 'page.html'), html);
  execFileSync(
    '/usr/bin/chromium',
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      `--user-data-dir=${join(folder, 'profile')}`,
      '--no-pdf-header-footer',
      `--print-to-pdf=${join(folder, 'page.pdf')}`,
      `file://${join(folder, 'page.html')}`,
    ],
    { timeout: 60_000, stdio: 'ignore' },
  );
  printed = new Uint8Array(readFileSync(join(folder, 'page.pdf')));
}, 90_000);

afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('parse() of a PDF printed by a browser', () => {
  it('reads a bordered table as its own columns, without empty ones between the double rules', async () => {
    const doc = await parse(printed, { filename: 'results.pdf' });
    expect(doc.markdown).toContain(
      [
        '| Quarter | Revenue |',
        '| --- | --- |',
        '| Q1 | 120 |',
        '| Q2 | 135 |',
        '| Q3 | 150 |',
      ].join('\n'),
    );
  });

  it('reads bullets drawn as shapes as list items', async () => {
    const doc = await parse(printed, { filename: 'results.pdf' });
    expect(doc.markdown).toContain(
      [
        '- First point about the harbour',
        '- Second point about the fleet',
        '- Third point about the quay',
      ].join('\n'),
    );
    expect(doc.markdown).toContain('- Cod landings rose\n- Crab landings fell');
  });
});
