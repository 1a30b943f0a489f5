/**
 * Decompression is bounded by the bytes it produces, not by what headers declare (
 * point 7): a ZIP entry that inflates past its declared size and a PDF stream that inflates past
 * the stream caps are refused with CONTENT_TOO_LARGE, inflation stopped there.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from '@trawl/core';
import { makeLyingDocx, makePdfBomb } from '../../../../test/fixture-site/bombs.ts';
import { checkPdfStreams } from '../../src/convert/pdf/stream-budget.js';
import { unpackZip } from '../../src/convert/zip.js';

const corpus = (name: string) =>
  readFileSync(new URL(`../../../../test/parse-corpus/out/${name}`, import.meta.url));

describe('ZIP entries', () => {
  it('stops an entry that inflates past its declared size, naming it', () => {
    const bomb = makeLyingDocx(64 * 1024 * 1024, 100 * 1024);
    expect(() => unpackZip(bomb, 'Word')).toThrow(
      expect.objectContaining({
        code: 'CONTENT_TOO_LARGE',
        message: expect.stringContaining(
          'word/document.xml inflates past the 102400 bytes its header declares',
        ) as string,
      }) as Error,
    );
  });

  it('refuses the lying DOCX through parse() before mammoth opens it', async () => {
    const bomb = makeLyingDocx(1024 * 1024 * 1024, 100 * 1024);
    await expect(parse(bomb, { filename: 'bomb.docx' })).rejects.toMatchObject({
      code: 'CONTENT_TOO_LARGE',
    });
  });

  it.each(['report.docx', 'workbook.xlsx', 'deck.pptx', 'report.odt', 'report.epub'])(
    'still reads an honest package: %s',
    async (name) => {
      const doc = await parse(corpus(name), { filename: name });
      expect(doc.markdown?.length).toBeGreaterThan(100);
    },
  );
});

describe('PDF streams', () => {
  const small = { maxStreamBytes: 1024 * 1024, maxTotalBytes: 3 * 1024 * 1024 };

  it('refuses a stream that inflates past the per-stream cap', async () => {
    await expect(checkPdfStreams(makePdfBomb(8 * 1024 * 1024), small)).rejects.toMatchObject({
      code: 'CONTENT_TOO_LARGE',
      message: expect.stringContaining('inflates past 1048576 bytes'),
    });
  });

  it('finds the stream by its zlib header when the filter name is escaped', async () => {
    const bomb = makePdfBomb(8 * 1024 * 1024, { hideFilter: true });
    expect(bomb.includes('/FlateDecode')).toBe(false);
    await expect(checkPdfStreams(bomb, small)).rejects.toMatchObject({
      code: 'CONTENT_TOO_LARGE',
    });
  });

  it('follows chained Flate filters to the innermost layer', async () => {
    // The outer layer is tiny: only the inner one is a bomb.
    const bomb = makePdfBomb(64 * 1024 * 1024, { layers: 2 });
    expect(bomb.length).toBeLessThan(64 * 1024);
    await expect(checkPdfStreams(bomb, small)).rejects.toMatchObject({
      code: 'CONTENT_TOO_LARGE',
    });
  });

  it('counts every stream against the total', async () => {
    const two = { maxStreamBytes: 3 * 1024 * 1024, maxTotalBytes: 3 * 1024 * 1024 };
    await expect(checkPdfStreams(makePdfBomb(2 * 1024 * 1024), two)).resolves.toBe(undefined);
    const pair = Buffer.concat([makePdfBomb(2 * 1024 * 1024), makePdfBomb(2 * 1024 * 1024)]);
    await expect(checkPdfStreams(pair, two)).rejects.toMatchObject({
      code: 'CONTENT_TOO_LARGE',
      message: expect.stringContaining('in total') as string,
    });
  });

  it('refuses a 1 GiB stream through parse() with the default caps', async () => {
    const bomb = makePdfBomb(1024 * 1024 * 1024);
    await expect(parse(bomb, { filename: 'bomb.pdf' })).rejects.toMatchObject({
      code: 'CONTENT_TOO_LARGE',
    });
  }, 30_000);

  it.each(['report.pdf', 'tables.pdf', 'two-column.pdf'])(
    'passes an ordinary PDF: %s',
    async (name) => {
      await expect(checkPdfStreams(corpus(name))).resolves.toBe(undefined);
    },
  );
});
