/**
 * Right-to-left text in PDFs (issue 22): a Hebrew page LibreOffice sets here. pdf.js gives each
 * run of text in logical order; the runs of a line must be read from the right, or a line that
 * mixes Hebrew with figures and Latin words comes out back to front.
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

beforeAll(() => {
  writeFileSync(
    join(folder, 'hebrew.html'),
    `<html><body dir="rtl"><p dir="rtl">שלום עולם, זהו מסמך בעברית.</p><p dir="rtl">${mixed}</p></body></html>`,
  );
  execFileSync(
    '/usr/bin/soffice',
    [
      '--headless',
      `-env:UserInstallation=${pathToFileURL(join(folder, 'profile')).href}`,
      '--convert-to',
      'pdf:writer_web_pdf_Export',
      '--outdir',
      folder,
      join(folder, 'hebrew.html'),
    ],
    { timeout: 120_000, stdio: 'ignore' },
  );
  hebrew = new Uint8Array(readFileSync(join(folder, 'hebrew.pdf')));
}, 180_000);

afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('parse() of right-to-left PDFs', () => {
  it('reads a Hebrew line with figures and a Latin word in logical order', async () => {
    const doc = await parse(hebrew, { filename: 'hebrew.pdf' });
    expect(doc.markdown).toContain(mixed);
  });
});
