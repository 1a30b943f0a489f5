/**
 * Table quality of parse() on real PDFs (issue 22): the ICDAR 2013 table competition set (cell F1
 * per truth table against its `-str.xml` structure, mean over tables) and tabula-java's test
 * PDFs (share of expected CSVs some output table reproduces exactly), each on its dev and
 * held-out part. The files come from `bench/tools/parse-corpora.ts`.
 *
 *   npm run bench:parse-tables                    dev and held-out figures
 *   npm run bench:parse-tables -- --detail        per-table F1 of the dev part
 *   npm run bench:parse-tables -- --only eu-014   one file, with its markdown
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { parse } from '@trawl/core';
import { bestF1s, csvTable, icdarTables, outputTables } from './lib/table-score.ts';
import { splitOf } from './tools/parse-corpora.ts';

const corpora = join(import.meta.dirname, 'parse-corpora', 'tables');

interface Case {
  set: 'icdar' | 'tabula';
  name: string;
  pdf: string;
  truth: string[][][];
}

function cases(): Case[] {
  const found: Case[] = [];
  const icdar = join(corpora, 'icdar');
  for (const folder of readdirSync(icdar)) {
    for (const file of readdirSync(join(icdar, folder))) {
      if (!file.endsWith('-str.xml')) continue;
      const pdf = join(icdar, folder, file.replace('-str.xml', '.pdf'));
      if (!existsSync(pdf)) continue;
      const truth = icdarTables(readFileSync(join(icdar, folder, file), 'utf8'));
      found.push({ set: 'icdar', name: basename(pdf, '.pdf'), pdf, truth });
    }
  }
  const tabula = join(corpora, 'tabula');
  for (const file of readdirSync(join(tabula, 'csv'))) {
    // Test* files are outputs of options (areas, guessing) a whole-document parse does not take.
    const pdf = join(tabula, file.replace(/\.csv$/, '.pdf'));
    if (file.startsWith('Test') || !existsSync(pdf)) continue;
    const truth = [csvTable(readFileSync(join(tabula, 'csv', file), 'utf8'))];
    found.push({ set: 'tabula', name: basename(pdf, '.pdf'), pdf, truth });
  }
  return found.sort((a, b) => a.name.localeCompare(b.name));
}

const mean = (values: number[]) =>
  values.length ? values.reduce((sum, value) => sum + value, 0) / values.length : NaN;
const round = (value: number) => Math.round(value * 1000) / 1000;

const { values } = parseArgs({
  options: {
    detail: { type: 'boolean', default: false },
    only: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});

if (!existsSync(corpora)) {
  console.error('No corpora: run bench/tools/parse-corpora.ts first.');
  process.exit(1);
}
const results: { set: string; split: string; name: string; f1s: number[] }[] = [];
for (const entry of cases()) {
  if (values.only && entry.name !== values.only) continue;
  let markdown = '';
  try {
    const document = await parse(new Uint8Array(readFileSync(entry.pdf)), {
      filename: basename(entry.pdf),
      timeout: 120_000,
    });
    markdown = document.markdown ?? '';
  } catch (error) {
    console.error(`${entry.name}: ${(error as Error).message}`);
  }
  const f1s = bestF1s(entry.truth, outputTables(markdown));
  const split = splitOf(basename(entry.pdf));
  results.push({ set: entry.set, split, name: entry.name, f1s });
  if (values.only) console.log(markdown);
  if (values.detail || values.only)
    if (split === 'dev' || values.only)
      console.log(entry.set, entry.name, f1s.map(round).join(' '));
}

const summary = (['icdar', 'tabula'] as const).flatMap((set) =>
  (['dev', 'heldout'] as const).map((split) => {
    const f1s = results.filter((r) => r.set === set && r.split === split).flatMap((r) => r.f1s);
    return {
      set,
      split,
      tables: f1s.length,
      meanCellF1: round(mean(f1s)),
      exact: round(mean(f1s.map((f1) => (f1 === 1 ? 1 : 0)))),
    };
  }),
);
if (values.json) console.log(JSON.stringify({ summary, results }, null, 1));
else {
  console.log('| set | part | tables | mean cell F1 | exact tables |');
  console.log('| - | - | ---: | ---: | ---: |');
  for (const row of summary)
    console.log(`| ${row.set} | ${row.split} | ${row.tables} | ${row.meanCellF1} | ${row.exact} |`);
}
