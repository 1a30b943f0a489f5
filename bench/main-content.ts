// Main-content extraction quality: token-level F1 of each system's markdown against the
// hand-checked expected.txt of every corpus page.
//
//   node --conditions=development bench/main-content.ts [--only <slug>]... [--detail]
//   node --conditions=development bench/main-content.ts --show <slug> [--system readability]
//   node --conditions=development bench/main-content.ts --json bench/results/f1.json
//
// Exits non-zero when a system throws on any page (the error is reported, the run goes on).

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { loadCorpus, type CorpusPage } from './lib/corpus.ts';
import { f1, tokenDiff, type F1Score } from './lib/f1.ts';
import {
  loadTrawl,
  readabilitySystem,
  trawlSystem,
  turndownSystem,
  type System,
} from './lib/systems.ts';
import { markdownTokens, tokenize } from './lib/tokens.ts';

type Outcome = { ok: true; score: F1Score; markdown: string } | { ok: false; error: string };

interface PageResult {
  page: CorpusPage;
  outcomes: Map<string, Outcome>;
}

const fmt = (x: number): string => x.toFixed(3);

function run(system: System, page: CorpusPage, expected: string[]): Outcome {
  try {
    const markdown = system.extract(page.html, page.url);
    return { ok: true, score: f1(markdownTokens(markdown), expected), markdown };
  } catch (err) {
    const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    return { ok: false, error: message.split('\n')[0] ?? message };
  }
}

function mean(xs: readonly number[]): number {
  return xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length;
}

function cell(outcome: Outcome | undefined, detail: boolean): string {
  if (!outcome) return 'n/a';
  if (!outcome.ok) return 'ERROR';
  const { precision, recall, f1: f } = outcome.score;
  return detail ? `${fmt(f)} (${fmt(precision)}/${fmt(recall)})` : fmt(f);
}

function printTable(results: PageResult[], systems: System[], detail: boolean): void {
  const width = Math.max(detail ? 23 : 9, ...systems.map((s) => s.name.length)) + 2;
  const slugWidth = Math.max(14, ...results.map((r) => r.page.slug.length)) + 2;
  const typeWidth = Math.max(6, ...results.map((r) => r.page.type.length)) + 2;
  const header =
    'page'.padEnd(slugWidth) +
    'type'.padEnd(typeWidth) +
    systems.map((s) => s.name.padStart(width)).join('');
  console.log(header);
  console.log('-'.repeat(header.length));
  for (const { page, outcomes } of results)
    console.log(
      page.slug.padEnd(slugWidth) +
        page.type.padEnd(typeWidth) +
        systems.map((s) => cell(outcomes.get(s.name), detail).padStart(width)).join(''),
    );
  console.log('-'.repeat(header.length));

  // Macro averages: every page (or type) weighs the same, whatever its length. Pages where a
  // system failed count as 0 so that crashing never improves a score.
  const avg = (rows: PageResult[], name: string): string => {
    const scores = rows.map((r) => {
      const o = r.outcomes.get(name);
      return o?.ok ? o.score.f1 : 0;
    });
    return rows.length === 0 ? 'n/a' : fmt(mean(scores));
  };
  console.log(
    'macro-average'.padEnd(slugWidth + typeWidth) +
      systems.map((s) => avg(results, s.name).padStart(width)).join(''),
  );
  const types = [...new Set(results.map((r) => r.page.type))].sort();
  for (const type of types) {
    const rows = results.filter((r) => r.page.type === type);
    console.log(
      `  ${type} (${rows.length})`.padEnd(slugWidth + typeWidth) +
        systems.map((s) => avg(rows, s.name).padStart(width)).join(''),
    );
  }
}

function show(result: PageResult, system: System, expected: string[]): void {
  const outcome = result.outcomes.get(system.name);
  console.log(`\n=== ${result.page.slug} — ${system.name} ===`);
  if (!outcome) return;
  if (!outcome.ok) {
    console.log(`ERROR: ${outcome.error}`);
    return;
  }
  console.log(outcome.markdown);
  const { precision, recall, f1: f, predicted, overlap } = outcome.score;
  console.log(
    `\n--- ${system.name}: F1 ${fmt(f)}  precision ${fmt(precision)}  recall ${fmt(recall)}` +
      `  (${overlap} shared of ${predicted} predicted / ${expected.length} expected tokens)`,
  );
  const { missed, extra } = tokenDiff(markdownTokens(outcome.markdown), expected);
  const list = (xs: [string, number][]): string =>
    xs
      .slice(0, 80)
      .map(([t, n]) => (n > 1 ? `${t}×${n}` : t))
      .join(' ') + (xs.length > 80 ? ` … (+${xs.length - 80} more)` : '');
  const total = (xs: [string, number][]): number => xs.reduce((a, [, n]) => a + n, 0);
  console.log(`\nmissed (${total(missed)} tokens): ${list(missed)}`);
  console.log(`\nextra (${total(extra)} tokens): ${list(extra)}`);
}

export async function runMainContent(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      only: { type: 'string', multiple: true },
      show: { type: 'string' },
      system: { type: 'string' },
      detail: { type: 'boolean', default: false },
      json: { type: 'string' },
    },
    allowPositionals: false,
  });
  const only = (values.only ?? []).flatMap((s) => s.split(',')).filter(Boolean);
  if (values.show) only.push(values.show);
  let pages: CorpusPage[];
  try {
    pages = loadCorpus(only);
  } catch (err) {
    console.error(`error: ${(err as Error).message}`);
    return 2;
  }

  const systems: System[] = [];
  const trawl = await loadTrawl();
  if (trawl.ok) systems.push(trawlSystem(trawl.htmlToDocument));
  else if (trawl.fatal) {
    console.error(`error: ${trawl.reason}`);
    return 1;
  } else console.warn(`warning: Trawl skipped — ${trawl.reason}`);
  systems.push(readabilitySystem, turndownSystem);

  console.log(
    `Main-content extraction: token F1 against expected.txt, ${pages.length} page(s)` +
      (values.detail ? ' — cells are F1 (precision/recall)' : '') +
      '\n',
  );
  const results: PageResult[] = [];
  for (const page of pages) {
    const expected = tokenize(page.expected);
    const outcomes = new Map<string, Outcome>();
    for (const system of systems) outcomes.set(system.name, run(system, page, expected));
    results.push({ page, outcomes });
  }
  printTable(results, systems, values.detail);

  const failures = results.flatMap(({ page, outcomes }) =>
    [...outcomes].flatMap(([name, o]) => (o.ok ? [] : [`${page.slug} / ${name}: ${o.error}`])),
  );
  if (failures.length > 0) {
    console.log(`\n${failures.length} failure(s):`);
    for (const f of failures) console.log(`  ${f}`);
  }

  if (values.show) {
    const name = values.system ?? systems[0]?.name ?? 'readability';
    const system = systems.find((s) => s.name === name);
    const result = results.find((r) => r.page.slug === values.show);
    if (!system) {
      console.error(`unknown system "${name}" (have: ${systems.map((s) => s.name).join(', ')})`);
      return 1;
    }
    if (result) show(result, system, tokenize(result.page.expected));
  }

  if (values.json) {
    mkdirSync(dirname(values.json), { recursive: true });
    const rows = results.map(({ page, outcomes }) => ({
      slug: page.slug,
      type: page.type,
      ...Object.fromEntries(
        [...outcomes].map(([name, o]) => [
          name,
          o.ok
            ? { f1: o.score.f1, precision: o.score.precision, recall: o.score.recall }
            : { error: o.error },
        ]),
      ),
    }));
    writeFileSync(values.json, JSON.stringify({ date: new Date().toISOString(), rows }, null, 2));
    console.log(`\nwrote ${values.json}`);
  }
  return failures.length > 0 ? 1 : 0;
}

if (import.meta.main) process.exitCode = await runMainContent(process.argv.slice(2));
