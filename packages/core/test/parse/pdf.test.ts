/**
 * PDF parsing on real PDFs made by LibreOffice (see fixtures/README.md): structure, tables, bad
 * and unusual files. Reading order, tables and running headers on the larger corpus are checked
 * against their known truth in test/parse-corpus.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from '@trawl/core';
import { extractPages } from '../../src/convert/pdf/extract.js';

const fixture = (name: string) =>
  new Uint8Array(readFileSync(new URL(`./fixtures/${name}`, import.meta.url)));

describe('parse() of PDFs', () => {
  it('gives headings by size, paragraphs, a GFM table with its empty cell, and both list kinds', async () => {
    const doc = await parse(fixture('simple.pdf'), { filename: 'simple.pdf' });
    expect(doc.markdown).toBe(
      [
        '# Annual Report 2026',
        'This is the first paragraph of the report. It contains enough words to wrap across more than one line in the generated document so that line building and paragraph building can be tested properly here.',
        '## Financial Results',
        'Revenue grew in every quarter. The table below shows the figures by region and quarter.',
        '| Region | Q1 | Q2 |\n| --- | --- | --- |\n| North | 10 | 12 |\n| South | | 8 |',
        '- First bullet point\n- Second bullet point',
        '1. Step one\n2. Step two',
        'Bold lead. Normal text follows.',
      ].join('\n\n'),
    );
    expect(doc.metadata).toMatchObject({ contentType: 'pdf', numPages: 1, title: 'simple.pdf' });
    expect(doc.metadata.favicon).toBeUndefined();
    expect(doc.warning).toBeUndefined();
  });

  it('gives html and links formats from the same layout', async () => {
    const doc = await parse(fixture('simple.pdf'), { formats: ['html', 'links'] });
    expect(doc.html).toContain('<h1>Annual Report 2026</h1>');
    expect(doc.html).toMatch(/<td>South<\/td><td><\/td><td>8<\/td>/);
    expect(doc.links).toEqual([]);
    expect(doc.markdown).toBeUndefined();
  });

  it('stops at parsers[].maxPages and says how much was left out', async () => {
    const twoPages = new Uint8Array(
      readFileSync(new URL('../../../../test/parse-corpus/out/report.pdf', import.meta.url)),
    );
    const doc = await parse(twoPages, { parsers: [{ type: 'pdf', maxPages: 1 }] });
    expect(doc.metadata.numPages).toBeGreaterThan(1);
    expect(doc.warning).toMatch(/Only the first 1 of \d+ pages were parsed/);
  });

  it('returns the file base64-encoded when parsers leaves PDF out', async () => {
    const bytes = fixture('simple.pdf');
    const doc = await parse(bytes, { parsers: [] });
    expect(doc.rawHtml).toBe(Buffer.from(bytes).toString('base64'));
    expect(doc.markdown).toBeUndefined();
    expect(doc.warning).toMatch(/parsers does not include pdf/);
  });

  it('reads a scanned page (no text layer) by OCR, and says so in warning', async () => {
    const doc = await parse(fixture('scanned.pdf'), { filename: 'scan.pdf' });
    expect(doc.warning).toBe(
      'The page was read by OCR (English); the text may contain recognition errors.',
    );
    expect(doc.markdown).toMatch(/^# Annual Report 2026\n/);
    expect(doc.markdown).toContain(
      'This is the first paragraph of the report. It contains enough words to wrap across more than one line',
    );
    expect(doc.markdown).toContain('Bold lead. Normal text follows.');
  });

  it("leaves a scanned page unread with parsers mode 'fast', and says its text is missing", async () => {
    const doc = await parse(fixture('scanned.pdf'), { parsers: [{ type: 'pdf', mode: 'fast' }] });
    expect(doc.markdown).toBe('');
    expect(doc.warning).toMatch(
      /^The page was scanned without a text layer; their text is missing/,
    );
  });

  it("reads even a page with a text layer by OCR in mode 'ocr'", async () => {
    const doc = await parse(fixture('simple.pdf'), { parsers: [{ type: 'pdf', mode: 'ocr' }] });
    expect(doc.warning).toMatch(/read by OCR/);
    expect(doc.markdown).toContain('Revenue grew in every quarter.');
  });

  it('refuses summary and json clearly while no LLM is configured', async () => {
    for (const formats of [['summary'], [{ type: 'json', prompt: 'the totals' }]] as const)
      await expect(parse(fixture('simple.pdf'), { formats: [...formats] })).rejects.toMatchObject({
        code: 'NOT_CONFIGURED',
        message: expect.stringMatching(/needs an LLM provider/),
      });
  });

  it('refuses a password-protected PDF with BAD_REQUEST naming the password', async () => {
    await expect(parse(fixture('encrypted.pdf'))).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/password-protected/),
    });
  });

  it('refuses truncated and corrupted PDFs with BAD_REQUEST', async () => {
    const whole = fixture('simple.pdf');
    const truncated = whole.slice(0, 600);
    await expect(parse(truncated, { filename: 'cut.pdf' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/damaged or not a PDF|no text|PDF/),
    });
    const corrupted = new Uint8Array(whole);
    for (let i = 20; i < corrupted.length; i += 7) corrupted[i] = (corrupted[i]! * 31 + 7) & 0xff;
    await expect(parse(corrupted, { filename: 'noise.pdf' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
  });

  it('refuses options that need a live page with PARSE_UNSUPPORTED_OPTIONS', async () => {
    await expect(
      parse(fixture('simple.pdf'), {
        actions: [{ type: 'click', selector: 'a' }],
        formats: ['markdown', 'screenshot'],
        mobile: true,
      }),
    ).rejects.toMatchObject({
      code: 'PARSE_UNSUPPORTED_OPTIONS',
      details: { unsupported: ['actions', 'mobile', 'formats: screenshot'] },
    });
    // The defaults the SDK and the spec send are fine.
    await expect(
      parse(fixture('simple.pdf'), { proxy: 'auto', waitFor: 0, origin: 'js-sdk@4.42.0' }),
    ).resolves.toMatchObject({ metadata: { numPages: 1 } });
  });

  it('stops with SCRAPE_TIMEOUT once the deadline has passed, checked before each page', async () => {
    const pages = extractPages(fixture('simple.pdf'), { deadline: Date.now() - 1 });
    await expect(pages.next()).rejects.toMatchObject({ code: 'SCRAPE_TIMEOUT' });
    const inTime = extractPages(fixture('simple.pdf'), { deadline: Date.now() + 60_000 });
    const first = await inTime.next();
    expect(first.value).toMatchObject({ number: 1 });
    await inTime.return(undefined);
  });
});
