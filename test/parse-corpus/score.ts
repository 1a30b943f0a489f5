/**
 * Prints the corpus measures of parse() for every generated document, as a markdown table for
 * bench/README.md:
 *
 *   npx node --conditions=development --experimental-strip-types test/parse-corpus/score.ts
 *
 * SHOW=<file> (e.g. SHOW=tables.pdf) also prints that document's markdown.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parse } from '@trawl/core';
import { loadCorpus, scoreMarkdown } from './corpus.ts';

const rows = [
  '| document | text similarity | reading order | table-cell F1 | header/footer leaks |',
];
rows.push('| - | -: | -: | -: | -: |');
for (const entry of loadCorpus()) {
  for (const output of entry.outputs) {
    const file = basename(output.path);
    try {
      const doc = await parse(readFileSync(output.path), { filename: file });
      if (process.env.SHOW === file) console.log(`${doc.markdown}\n`);
      const score = scoreMarkdown(entry.truth, doc.markdown ?? '');
      const tables = score.tables.truthCells === 0 && score.tables.outputCells === 0;
      rows.push(
        `| ${file} | ${score.textSimilarity.toFixed(3)} | ${score.readingOrder.accuracy.toFixed(3)} (${score.readingOrder.found}/${score.readingOrder.total} blocks) | ${tables ? '(no tables)' : `${score.tables.f1.toFixed(3)} (${score.tables.matchedCells}/${score.tables.truthCells} cells)`} | ${score.furnitureLeaks} |`,
      );
    } catch (error) {
      rows.push(`| ${file} | ${(error as Error).message} | | | |`);
    }
  }
}
console.log(rows.join('\n'));
