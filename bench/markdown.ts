// Throughput of the whole HTML → markdown pipeline on the corpus pages:
//   trawl     htmlToDocument(html, { url, onlyMainContent: true, formats: ['markdown'] })
//   turndown  new TurndownService().turndown(html)   (the full page, as people usually do)
//   parse     htmlparser2 parseDocument(html)        (reference: parsing alone)
// After a warm-up pass, timed rounds run every system once over the whole corpus, rotating the
// order each round so that neither system always runs on a colder or hotter heap. The number of
// rounds is chosen from the warm-up timings to fit the time budget.
//
//   node --conditions=development bench/markdown.ts [--budget <seconds>] [--only <slug>]...

import { parseArgs } from 'node:util';
import { parseDocument } from 'htmlparser2';
import TurndownService from 'turndown';
import { loadCorpus, type CorpusPage } from './lib/corpus.ts';
import { loadTrawl, type HtmlToDocument } from './lib/systems.ts';

interface Contender {
  name: string;
  run: (page: CorpusPage) => unknown;
}

const MIN_ROUNDS = 3;
const MAX_ROUNDS = 200;

function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

// Results are kept in a sink so the JIT cannot drop a call whose result is unused.
let sink = 0;
function consume(x: unknown): void {
  if (typeof x === 'string') sink += x.length;
  else if (x !== null && typeof x === 'object') sink += 1;
}

function pass(contender: Contender, pages: readonly CorpusPage[]): number {
  const start = nowMs();
  for (const page of pages) consume(contender.run(page));
  return nowMs() - start;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1
    ? (s[mid] as number)
    : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

function trawlContender(htmlToDocument: HtmlToDocument): Contender {
  return {
    name: 'trawl',
    run: (page) =>
      htmlToDocument(page.html, { url: page.url, onlyMainContent: true, formats: ['markdown'] })
        .markdown,
  };
}

const turndownContender: Contender = {
  name: 'turndown',
  run: (page) => new TurndownService().turndown(page.html),
};

const parseContender: Contender = {
  name: 'parse only (htmlparser2)',
  run: (page) => parseDocument(page.html),
};

export async function runThroughput(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      budget: { type: 'string', default: '30' },
      only: { type: 'string', multiple: true },
    },
    allowPositionals: false,
  });
  const budgetMs = Number(values.budget) * 1000;
  if (!Number.isFinite(budgetMs) || budgetMs <= 0) {
    console.error(`--budget must be a positive number of seconds, got ${values.budget}`);
    return 1;
  }
  let pages: CorpusPage[];
  try {
    pages = loadCorpus((values.only ?? []).flatMap((s) => s.split(',')).filter(Boolean));
  } catch (err) {
    console.error(`error: ${(err as Error).message}`);
    return 2;
  }

  const contenders: Contender[] = [];
  const trawl = await loadTrawl();
  if (trawl.ok) contenders.push(trawlContender(trawl.htmlToDocument));
  else if (trawl.fatal) {
    console.error(`error: ${trawl.reason}`);
    return 1;
  } else console.warn(`warning: Trawl skipped — ${trawl.reason}`);
  contenders.push(turndownContender, parseContender);

  // Warm-up, one page at a time so that a page one system cannot handle is dropped for every
  // system: all rates must be computed over the same bytes.
  let failed = false;
  const warmMs = new Map<string, number>(contenders.map((c) => [c.name, 0]));
  pages = pages.filter((page) => {
    for (const c of contenders) {
      const start = nowMs();
      try {
        consume(c.run(page));
      } catch (err) {
        console.log(`  ${page.slug} / ${c.name} threw, page left out: ${String(err)}`);
        failed = true;
        return false;
      }
      warmMs.set(c.name, (warmMs.get(c.name) ?? 0) + nowMs() - start);
    }
    return true;
  });
  if (pages.length === 0) {
    console.error('no page left to time');
    return 1;
  }
  const bytes = pages.reduce((a, p) => a + p.bytes, 0);
  const mb = bytes / (1024 * 1024);

  const perRound = [...warmMs.values()].reduce((a, b) => a + b, 0);
  const rounds = Math.max(MIN_ROUNDS, Math.min(MAX_ROUNDS, Math.floor(budgetMs / perRound)));
  console.log(
    `Markdown throughput: ${pages.length} pages, ${mb.toFixed(2)} MB per pass, ` +
      `${rounds} timed rounds after 1 warm-up (Node ${process.version}, ${process.arch})\n`,
  );

  const times = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < contenders.length; i++) {
      const c = contenders[(round + i) % contenders.length] as Contender;
      times.get(c.name)?.push(pass(c, pages));
    }
  }

  const nameWidth = Math.max(...contenders.map((c) => c.name.length)) + 2;
  console.log(
    'system'.padEnd(nameWidth) +
      'MB/s'.padStart(9) +
      'pages/s'.padStart(10) +
      'ms/pass'.padStart(10) +
      '  MB/s range (min–max)',
  );
  const mbps = new Map<string, number>();
  for (const c of contenders) {
    const ts = times.get(c.name) ?? [];
    const med = median(ts);
    const rate = mb / (med / 1000);
    mbps.set(c.name, rate);
    const fastest = mb / (Math.min(...ts) / 1000);
    const slowest = mb / (Math.max(...ts) / 1000);
    console.log(
      c.name.padEnd(nameWidth) +
        rate.toFixed(2).padStart(9) +
        (pages.length / (med / 1000)).toFixed(1).padStart(10) +
        med.toFixed(0).padStart(10) +
        `  ${slowest.toFixed(2)}–${fastest.toFixed(2)}`,
    );
  }
  const t = mbps.get('trawl');
  const d = mbps.get('turndown');
  if (t !== undefined && d !== undefined)
    console.log(
      `\ntrawl / turndown throughput ratio: ${(t / d).toFixed(2)}x (above 1 means Trawl is faster)`,
    );
  if (sink < 0) console.log(sink); // never true; keeps `sink` observable
  return failed ? 1 : 0;
}

if (import.meta.main) process.exitCode = await runThroughput(process.argv.slice(2));
