/**
 * The parse corpus's acceptance (test/parse-corpus): every document LibreOffice made
 * from a hand-written source is parsed, and its markdown is scored against the source's truth.
 * Thresholds: reading-order accuracy ≥ 0.95, table-cell F1 ≥ 0.9, no running header or footer
 * in the output, and text similarity ≥ 0.9 (so dropped or garbled text cannot hide behind good
 * order). PDF cases are skipped while parse() refuses PDFs as not supported yet.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, UnsupportedTypeError } from '@trawl/core';
import { loadCorpus, scoreMarkdown } from '../parse-corpus/corpus.ts';

const corpus = loadCorpus();

const firstPdf = corpus.flatMap((entry) => entry.outputs).find((output) => output.format === 'pdf');
const pdfSupported = firstPdf
  ? await parse(readFileSync(firstPdf.path), { filename: basename(firstPdf.path) }).then(
      () => true,
      // Any other failure is the parser's and must show as a failing case, not a skipped one.
      (error: unknown) => !(error instanceof UnsupportedTypeError),
    )
  : false;

describe('parse corpus', () => {
  for (const entry of corpus) {
    for (const output of entry.outputs) {
      const file = basename(output.path);
      it.skipIf(output.format === 'pdf' && !pdfSupported)(
        `${file}: keeps reading order and table cells, and drops running headers and footers`,
        async () => {
          const doc = await parse(readFileSync(output.path), { filename: file });
          const score = scoreMarkdown(entry.truth, doc.markdown ?? '');
          expect(score.readingOrder.found, 'truth blocks found').toBe(score.readingOrder.total);
          expect(score.readingOrder.accuracy, 'reading order').toBeGreaterThanOrEqual(0.95);
          expect(score.tables.f1, 'table-cell F1').toBeGreaterThanOrEqual(0.9);
          expect(score.furnitureLeaks, 'running headers and footers left in').toBe(0);
          expect(score.textSimilarity, 'text similarity').toBeGreaterThanOrEqual(0.9);
        },
      );
    }
  }
});
