/**
 * Table quality of parse() on real PDFs: the ICDAR 2013 table competition set (cell F1
 * per truth table against its `-str.xml` structure, mean over tables) and tabula-java's test
 * PDFs (share of expected CSVs some output table reproduces exactly), each on its dev and
 * held-out part. The files come from `bench/tools/parse-corpora.ts`.
 *
 *   npm run bench:parse-tables                    dev and held-out figures
 *   npm run bench:parse-tables -- --detail        per-table F1 of the dev part
 *   npm run bench:parse-tables -- --only eu-014   one file, with its markdown
 *   npm run bench:parse-tables -- --set tabula    one set only
 *
 * Tabula's CSVs are compared as its Java tests made them: bench/lib/tabula-cases.ts gives each
 * CSV's page and area, and the tables our detector finds there are scored, not a whole-document
 * parse.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { parse } from '@trawl/core';
import { type Area, tabulaCases, type TabulaCase } from './lib/tabula-cases.ts';
import {
  bestF1s,
  csvTable,
  exactBodyAndHeaderWords,
  type Grid,
  icdarTables,
  outputTables,
} from './lib/table-score.ts';
import { splitOf } from './tools/parse-corpora.ts';

const corpora = join(import.meta.dirname, 'parse-corpora', 'tables');

// The page-and-area comparison needs the PDF layer's internals (extract.ts, tables.ts), which
// @trawl/core does not export; they are loaded from source by path, typed here by the part used
// (any import of them, even of types, would cross the project boundary tsc -b keeps).
interface PageContent {
  number: number;
  width: number;
  height: number;
  fragments: { x: number; y: number; width: number; size: number }[];
  segments: { orientation: 'h' | 'v'; at: number; from: number; to: number }[];
}
const pdfSource = join(import.meta.dirname, '..', 'packages', 'core', 'src', 'convert', 'pdf');
const { extractPages } = (await import(pathToFileURL(join(pdfSource, 'extract.ts')).href)) as {
  extractPages: (bytes: Uint8Array, options: { ocr: 'never' }) => AsyncIterable<PageContent>;
};
const { findTables } = (await import(pathToFileURL(join(pdfSource, 'tables.ts')).href)) as {
  findTables: (page: PageContent) => { tables: { rows: string[][] }[] };
};

interface Case {
  set: 'icdar' | 'tabula';
  name: string;
  pdf: string;
  truth: string[][][];
  /** A tabula case: the page and areas its Java test reads. */
  tabula?: TabulaCase;
  /** Per truth table: only a copy of a tabula convention matches it exactly (tabula-cases.ts). */
  conventional?: boolean[];
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
  for (const entry of tabulaCases) {
    if (entry.excluded) continue;
    const grid = csvTable(readFileSync(join(corpora, 'tabula', 'csv', entry.csv), 'utf8'));
    const starts = entry.tableStarts ?? [0];
    const kept = starts.flatMap((_, i) => (entry.excludedTables?.[i] === undefined ? [i] : []));
    const truth = kept.map((i) => grid.slice(starts[i], starts[i + 1] ?? grid.length));
    const conventional = kept.map((i) => entry.conventions?.[i] !== undefined);
    const pdf = join(corpora, entry.pdf);
    const name = basename(entry.csv, '.csv');
    found.push({ set: 'tabula', name, pdf, truth, tabula: entry, conventional });
  }
  return found.sort((a, b) => a.name.localeCompare(b.name));
}

/** A page cut to an area as tabula's Page.getArea cuts it: the text inside, rules clipped. */
function crop(page: PageContent, [top, left, bottom, right]: Area): PageContent {
  const inside = (x: number, y: number) => x >= left && x <= right && y >= top && y <= bottom;
  return {
    ...page,
    fragments: page.fragments.filter((f) => inside(f.x + f.width / 2, f.y - f.size * 0.3)),
    segments: page.segments.flatMap((segment) => {
      const [low, high] = segment.orientation === 'h' ? [left, right] : [top, bottom];
      const across = segment.orientation === 'h' ? [top, bottom] : [left, right];
      if (segment.at < across[0]! || segment.at > across[1]!) return [];
      const from = Math.max(segment.from, low);
      const to = Math.min(segment.to, high);
      return to > from ? [{ ...segment, from, to }] : [];
    }),
  };
}

/** The tables our detector finds on the test's page, within each of its areas. */
async function tabulaTables(entry: TabulaCase, bytes: Uint8Array): Promise<Grid[]> {
  for await (const page of extractPages(bytes, { ocr: 'never' })) {
    if (page.number !== entry.page) continue;
    const areas: Area[] = [
      ...(entry.areas ?? []),
      ...(entry.percentAreas ?? []).map(([top, left, bottom, right]): Area => [
        (top / 100) * page.height,
        (left / 100) * page.width,
        (bottom / 100) * page.height,
        (right / 100) * page.width,
      ]),
    ];
    const regions = areas.length ? areas.map((area) => crop(page, area)) : [page];
    return regions.flatMap((region) => findTables(region).tables.map((table) => table.rows));
  }
  return [];
}

const mean = (values: number[]) =>
  values.length ? values.reduce((sum, value) => sum + value, 0) / values.length : NaN;
const round = (value: number) => Math.round(value * 1000) / 1000;

const { values } = parseArgs({
  options: {
    detail: { type: 'boolean', default: false },
    only: { type: 'string' },
    json: { type: 'boolean', default: false },
    set: { type: 'string' },
  },
});

if (!existsSync(corpora)) {
  console.error('No corpora: run bench/tools/parse-corpora.ts first.');
  process.exit(1);
}
const results: {
  set: string;
  split: string;
  name: string;
  f1s: number[];
  headerWordsExact: boolean[];
  conventional: boolean[];
}[] = [];
for (const entry of cases()) {
  if (values.only && entry.name !== values.only) continue;
  if (values.set && entry.set !== values.set) continue;
  let markdown = '';
  let tables: Grid[] | undefined;
  try {
    if (entry.tabula)
      tables = await tabulaTables(entry.tabula, new Uint8Array(readFileSync(entry.pdf)));
    else {
      const document = await parse(new Uint8Array(readFileSync(entry.pdf)), {
        filename: basename(entry.pdf),
        timeout: 120_000,
      });
      markdown = document.markdown ?? '';
    }
  } catch (error) {
    console.error(`${entry.name}: ${(error as Error).message}`);
  }
  const found = tables ?? outputTables(markdown);
  const f1s = bestF1s(entry.truth, found);
  const headerWordsExact = entry.truth.map((truth) =>
    found.some((table) => exactBodyAndHeaderWords(truth, table)),
  );
  const split = splitOf(basename(entry.pdf));
  const conventional = entry.conventional ?? f1s.map(() => false);
  results.push({ set: entry.set, split, name: entry.name, f1s, headerWordsExact, conventional });
  if (values.only) {
    console.log(markdown);
    for (const table of tables ?? [])
      console.log(table.map((row) => row.join(' | ')).join('\n'), '\n');
  }
  if (values.detail || values.only)
    if (split === 'dev' || values.only)
      console.log(entry.set, entry.name, f1s.map(round).join(' '), headerWordsExact.join(' '));
}

const summary = (['icdar', 'tabula'] as const).flatMap((set) =>
  (['dev', 'heldout'] as const).map((split) => {
    const part = results.filter((r) => r.set === set && r.split === split);
    const f1s = part.flatMap((r) => r.f1s);
    const loose = part.flatMap((r) => r.headerWordsExact);
    const plain = part.flatMap((r) => r.f1s.filter((_, i) => !r.conventional[i]));
    return {
      set,
      split,
      tables: f1s.length,
      meanCellF1: round(mean(f1s)),
      exact: round(mean(f1s.map((f1) => (f1 === 1 ? 1 : 0)))),
      exactHeaderWords: round(mean(loose.map((exact) => (exact ? 1 : 0)))),
      withoutConventions: `${plain.filter((f1) => f1 === 1).length} of ${plain.length}`,
    };
  }),
);
if (values.json) console.log(JSON.stringify({ summary, results }, null, 1));
else {
  console.log(
    '| set | part | tables | mean cell F1 | exact tables | exact, header by words | exact, tables needing tabula\u2019s conventions left out |',
  );
  console.log('| - | - | ---: | ---: | ---: | ---: | ---: |');
  for (const row of summary)
    console.log(
      `| ${row.set} | ${row.split} | ${row.tables} | ${row.meanCellF1} | ${row.exact} | ${row.exactHeaderWords} | ${row.set === 'tabula' ? row.withoutConventions : '—'} |`,
    );
}
