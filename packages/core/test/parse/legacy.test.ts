/**
 * Legacy DOC, XLS and PPT through the machine's LibreOffice. The legacy files are made
 * here from known OOXML files by the same LibreOffice, so their content is known; without
 * LibreOffice the kind is refused with NOT_CONFIGURED naming the setting.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from '@trawl/core';
import { documentSamples, makeDocx } from '../../../../test/fixture-site/assets.ts';

const soffice = '/usr/bin/soffice';
/** Apache POI's test files (Apache-2.0), committed with the robustness sample. */
const sample = join(import.meta.dirname, '../../../../test/parse-sample/poi');
/** Linux packages split LibreOffice's modules: Calc and Impress may be absent (they are here). */
const program = dirname(realpathSync(soffice));
const hasModule = (library: string) => existsSync(join(program, library));
const folder = mkdtempSync(join(tmpdir(), 'trawl-legacy-test-'));
const legacy: Record<string, Uint8Array> = {};

/** Converts a file with LibreOffice into `format`, as an Office 97 producer would have saved it. */
function toLegacy(name: string, bytes: Uint8Array, filter: string, extension: string): Uint8Array {
  writeFileSync(join(folder, name), bytes);
  execFileSync(
    soffice,
    [
      '--headless',
      `-env:UserInstallation=${pathToFileURL(join(folder, 'profile')).href}`,
      '--convert-to',
      filter,
      '--outdir',
      join(folder, 'out'),
      join(folder, name),
    ],
    { timeout: 120_000, stdio: 'ignore' },
  );
  return new Uint8Array(readFileSync(join(folder, 'out', name.replace(/\.\w+$/, `.${extension}`))));
}

beforeAll(() => {
  legacy.doc = toLegacy('handbook.docx', makeDocx(), 'doc:MS Word 97', 'doc');
  legacy.xls = new Uint8Array(readFileSync(join(sample, 'spreadsheet/SampleSS.xls')));
  legacy.ppt = new Uint8Array(readFileSync(join(sample, 'slideshow/basic_test_ppt_file.ppt')));
}, 300_000);

afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('parse() of legacy Office files', () => {
  it('reads a Word 97 document through LibreOffice, even under a wrong name', async () => {
    const doc = await parse(legacy.doc!, { filename: 'handbook.bin' });
    expect(doc.metadata.contentType).toBe('doc');
    expect(doc.markdown).toContain(documentSamples.docx.heading);
    for (const paragraph of documentSamples.docx.paragraphs)
      expect(doc.markdown).toContain(paragraph);
  });

  it('reads an Excel 97 workbook as tables, or names the missing Calc module', async () => {
    const parsing = parse(legacy.xls!, { filename: 'SampleSS.xls' });
    if (hasModule('libsclo.so')) {
      const doc = await parsing;
      expect(doc.metadata.contentType).toBe('xls');
      expect(doc.markdown).toMatch(/^\|.*\|$/m);
    } else
      await expect(parsing).rejects.toMatchObject({
        code: 'NOT_CONFIGURED',
        message: expect.stringContaining('libreoffice-calc-nogui'),
      });
  });

  it('reads a PowerPoint 97 deck, or names the missing Impress module', async () => {
    const parsing = parse(legacy.ppt!, { filename: 'basic_test_ppt_file.ppt' });
    if (hasModule('libsdlo.so')) {
      const doc = await parsing;
      expect(doc.metadata.contentType).toBe('ppt');
      expect((doc.markdown ?? '').length).toBeGreaterThan(20);
    } else
      await expect(parsing).rejects.toMatchObject({
        code: 'NOT_CONFIGURED',
        message: expect.stringContaining('libreoffice-impress-nogui'),
      });
  });

  it('refuses a legacy file with NOT_CONFIGURED naming TRAWL_SOFFICE_PATH when soffice is missing', async () => {
    await expect(
      parse(legacy.doc!, { filename: 'handbook.doc' }, { sofficePath: join(folder, 'no-soffice') }),
    ).rejects.toMatchObject({
      code: 'NOT_CONFIGURED',
      message: expect.stringContaining('TRAWL_SOFFICE_PATH'),
    });
  });

  it('refuses a damaged legacy file with BAD_REQUEST', async () => {
    const damaged = legacy.doc!.slice(0, 2048);
    await expect(parse(damaged, { filename: 'broken.doc' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
  });
});
