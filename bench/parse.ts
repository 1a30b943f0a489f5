/**
 * The parse benchmark: speed and peak memory of parse() on generated text PDFs of 1, 20 and 300
 * pages (each size in its own process, so its peak RSS is its own), and the quality figures of
 * every file of the test corpus against its known truth.
 *
 *   npm run bench:parse                 all three sizes and the corpus
 *   npm run bench:parse -- --pages 300 one size only
 *   npm run bench:parse -- --json
 *
 * Needs LibreOffice (soffice) the first time, to make the PDFs; they are kept in bench/results/pdf.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parse } from '@trawl/core';
import { loadCorpus, scoreMarkdown } from '../test/parse-corpus/corpus.ts';
import { benchPdf } from './lib/generated-pdf.ts';

const here = import.meta.dirname;
const pdfDirectory = join(here, 'results', 'pdf');

interface SpeedResult {
  file: string;
  pages: number;
  runs: number;
  medianMs: number;
  pagesPerSecond: number;
  peakRssMb: number;
}

/** Runs in a child process: parses one file `runs` times and prints its figures as JSON. */
async function measure(file: string, runs: number): Promise<SpeedResult> {
  const bytes = new Uint8Array(readFileSync(file));
  const times: number[] = [];
  let pages = 0;
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    const document = await parse(bytes, { filename: file, timeout: 300_000 });
    times.push(performance.now() - started);
    pages = Number(document.metadata.numPages);
  }
  times.sort((a, b) => a - b);
  const medianMs = times[Math.floor(times.length / 2)]!;
  return {
    file,
    pages,
    runs,
    medianMs: Math.round(medianMs),
    pagesPerSecond: Math.round((pages / medianMs) * 1000 * 10) / 10,
    // maxRSS is in kilobytes.
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
  };
}

function speedInChild(file: string, runs: number): SpeedResult {
  const output = execFileSync(
    process.execPath,
    [
      '--conditions=development',
      '--experimental-strip-types',
      join(here, 'parse.ts'),
      '--measure',
      file,
      '--runs',
      String(runs),
    ],
    { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
  );
  return JSON.parse(output.trim().split('\n').at(-1)!) as SpeedResult;
}

interface QualityRow {
  file: string;
  textSimilarity: number;
  readingOrder: number;
  tableF1: number | null;
  furnitureLeaks: number;
}

async function corpusQuality(): Promise<QualityRow[]> {
  const rows: QualityRow[] = [];
  for (const entry of loadCorpus()) {
    for (const output of entry.outputs) {
      const document = await parse(new Uint8Array(readFileSync(output.path)), {
        filename: `${entry.name}.${output.format}`,
      });
      const score = scoreMarkdown(entry.truth, document.markdown ?? '');
      rows.push({
        file: `${entry.name}.${output.format}`,
        textSimilarity: round(score.textSimilarity),
        readingOrder: round(score.readingOrder.accuracy),
        tableF1: score.tables.truthCells ? round(score.tables.f1) : null,
        furnitureLeaks: score.furnitureLeaks,
      });
    }
  }
  return rows;
}

const round = (value: number) => Math.round(value * 1000) / 1000;

export async function runParseBench(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      pages: { type: 'string', multiple: true },
      json: { type: 'boolean', default: false },
      measure: { type: 'string' },
      runs: { type: 'string', default: '3' },
    },
  });
  if (values.measure) {
    console.log(JSON.stringify(await measure(values.measure, Number(values.runs))));
    return 0;
  }
  const sizes = (values.pages ?? ['1', '20', '300']).map(Number);
  const speed = sizes.map((pages) =>
    speedInChild(benchPdf(pages, pdfDirectory), pages >= 300 ? 1 : pages >= 20 ? 3 : 10),
  );
  const quality = await corpusQuality();
  if (values.json) {
    console.log(JSON.stringify({ speed, quality }, null, 2));
    return 0;
  }
  console.log('| PDF | pages | median time | pages/s | peak RSS |');
  console.log('| - | - | - | - | - |');
  for (const row of speed)
    console.log(
      `| ${row.file.split('/').pop()} | ${row.pages} | ${row.medianMs} ms | ${row.pagesPerSecond} | ${row.peakRssMb} MB |`,
    );
  console.log('');
  console.log(
    '| corpus file | text similarity | reading order | table-cell F1 | header/footer leaks |',
  );
  console.log('| - | - | - | - | - |');
  for (const row of quality)
    console.log(
      `| ${row.file} | ${row.textSimilarity} | ${row.readingOrder} | ${row.tableF1 ?? '—'} | ${row.furnitureLeaks} |`,
    );
  return 0;
}

if (import.meta.main) process.exitCode = await runParseBench(process.argv.slice(2));
