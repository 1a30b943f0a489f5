// Main content on WCXB (github:Murrough-Foley/web-content-extraction-benchmark), 7 page types, with
// the benchmark's metric: per page, word-level bag-of-words precision, recall and F1 of the
// output's visible text against the reference main text; figures are means over pages, overall and
// per type. The lead's cross-check `shared/tools/wcxb-eval.mjs` computes the same; this one adds
// Readability in the same run, CPU time per page, and a per-page dump to compare two runs.
//
//   npm run env -- node bench/tools/wcxb-corpus.ts <git dir>     # once: re-creates the pages
//   npm run bench:wcxb                                            # dev and held-out, Trawl and Readability
//   npm run bench:wcxb -- --part dev --no-readability --type forum --worst 20
//   npm run bench:wcxb -- --part dev --every 4 --json bench/results/wcxb.json   # a quick dev subset
//   npm run bench:wcxb -- --show <id>                           # one dev page (held-out pages are refused)

import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import { loadTrawl } from './lib/systems.ts';
import { loadWcxbCorpus, readWcxbHtml, type WcxbPage, type WcxbPart } from './tools/wcxb-corpus.ts';

type Extract = (html: string, url: string) => string;

/** Markdown to visible text: link and image targets, table rules and escapes go; text stays. */
export function visibleText(markdown: string): string {
  return markdown
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/gm, ' ')
    .replace(/\\([\\`*_{}[\]()#+\-.!|>~<&"'=:$^@])/g, '$1');
}

const words = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];

/** Bag-of-words precision, recall and F1, counts clipped, as the benchmark's evaluate.py. */
export function wordScores(predicted: string, reference: string): [number, number, number] {
  const p = words(predicted);
  const r = words(reference);
  if (r.length === 0) return p.length ? [0, 0, 0] : [1, 1, 1];
  if (p.length === 0) return [0, 0, 0];
  const bag = new Map<string, number>();
  for (const w of r) bag.set(w, (bag.get(w) ?? 0) + 1);
  let hit = 0;
  for (const w of p) {
    const c = bag.get(w);
    if (c) {
      hit++;
      bag.set(w, c - 1);
    }
  }
  const precision = hit / p.length;
  const recall = hit / r.length;
  const f1 = precision + recall ? (2 * precision * recall) / (precision + recall) : 0;
  return [precision, recall, f1];
}

/** Mozilla Readability on a linkedom document, then turndown, title prepended as users do. */
const readabilityExtract: Extract = (html) => {
  const { document } = parseHTML(html);
  const article = new Readability(document).parse();
  if (!article) return '';
  const body = new TurndownService().turndown(article.content ?? '');
  return article.title ? `# ${article.title}\n\n${body}` : body;
};

interface PageScore {
  id: string;
  type: string;
  p: number;
  r: number;
  f: number;
  /** CPU milliseconds of the extraction. */
  ms: number;
  empty: boolean;
  markdown: string;
}

function score(extract: Extract, page: WcxbPage, html: string): PageScore {
  // CPU time: on a shared machine wall time measures the neighbours' jobs.
  const start = process.cpuUsage();
  let markdown = '';
  try {
    markdown = extract(html, page.url);
  } catch (error) {
    console.log(`  error ${page.id}: ${(error as Error).message.split('\n')[0]}`);
  }
  const used = process.cpuUsage(start);
  const [p, r, f] = wordScores(visibleText(markdown), page.mainContent);
  const empty = markdown.trim() === '';
  return {
    id: page.id,
    type: page.type,
    p,
    r,
    f,
    ms: (used.user + used.system) / 1000,
    empty,
    markdown,
  };
}

const mean = (values: readonly number[]): number =>
  values.reduce((a, b) => a + b, 0) / (values.length || 1);

function report(system: string, part: string, scores: readonly PageScore[]): void {
  const line = (name: string, rows: readonly PageScore[]): string =>
    `| ${system} | ${part} | ${name} | ${rows.length} | ${mean(rows.map((r) => r.p)).toFixed(3)} | ` +
    `${mean(rows.map((r) => r.r)).toFixed(3)} | **${mean(rows.map((r) => r.f)).toFixed(3)}** | ` +
    `${rows.filter((r) => r.empty).length} |`;
  for (const type of [...new Set(scores.map((s) => s.type))].sort())
    console.log(
      line(
        type,
        scores.filter((s) => s.type === type),
      ),
    );
  console.log(line('all', scores));
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      part: { type: 'string', default: 'all' },
      type: { type: 'string' },
      every: { type: 'string', default: '1' },
      offset: { type: 'string', default: '0' },
      worst: { type: 'string', default: '0' },
      show: { type: 'string' },
      json: { type: 'string' },
      readability: { type: 'boolean', default: true },
    },
    allowNegative: true,
  });
  const trawl = await loadTrawl();
  if (!trawl.ok) {
    console.error(`error: ${trawl.reason}`);
    return 1;
  }
  const trawlExtract: Extract = (html, url) =>
    trawl.htmlToDocument(html, { url, onlyMainContent: true, formats: ['markdown'] }).markdown ??
    '';
  const parts: WcxbPart[] = values.part === 'all' ? ['dev', 'heldout'] : [values.part as WcxbPart];
  if (values.show) {
    // Held-out pages are judged in aggregate only: reading them one by one would tune on them.
    const page = loadWcxbCorpus('dev').find((p) => p.id === values.show);
    if (!page) {
      console.error(`${values.show} is not a dev page: not shown`);
      return 2;
    }
    const s = score(trawlExtract, page, readWcxbHtml(page));
    console.log(s.markdown);
    console.log(
      `\n${page.type} ${page.url} P ${s.p.toFixed(3)} R ${s.r.toFixed(3)} F1 ${s.f.toFixed(3)} ${s.ms.toFixed(0)} ms`,
    );
    return 0;
  }
  const every = Number(values.every);
  const offset = Number(values.offset);
  const dump: Record<string, Omit<PageScore, 'markdown'>> = {};
  for (const part of parts) {
    let pages = loadWcxbCorpus(part).filter((_, index) => index % every === offset);
    if (values.type) pages = pages.filter((page) => page.type === values.type);
    const trawlScores: PageScore[] = [];
    const readabilityScores: PageScore[] = [];
    for (const page of pages) {
      const html = readWcxbHtml(page);
      trawlScores.push(score(trawlExtract, page, html));
      if (values.readability) readabilityScores.push(score(readabilityExtract, page, html));
    }
    console.log(`\nWCXB ${part}: ${pages.length} pages\n`);
    console.log('| system | part | type | pages | precision | recall | F1 | empty |');
    console.log('| --- | --- | --- | --: | --: | --: | --: | --: |');
    report('Trawl', part, trawlScores);
    if (values.readability) report('Readability + turndown', part, readabilityScores);
    const slow = [...trawlScores].sort((a, b) => b.ms - a.ms);
    const ms = slow.map((s) => s.ms);
    const name = (s: PageScore): string => (part === 'dev' ? s.id : '(held-out)');
    console.log(
      `\nTrawl CPU per page: median ${ms[Math.floor(ms.length / 2)]?.toFixed(1)} ms, ` +
        `total ${(ms.reduce((a, b) => a + b, 0) / 1000).toFixed(1)} s, slowest ` +
        slow
          .slice(0, 3)
          .map((s) => `${name(s)} ${s.ms.toFixed(0)} ms`)
          .join(', '),
    );
    if (part === 'dev') {
      for (const s of trawlScores) dump[s.id] = { ...s, markdown: undefined } as never;
      const worst = Number(values.worst);
      for (const s of [...trawlScores].sort((a, b) => a.f - b.f).slice(0, worst))
        console.log(
          `  ${s.f.toFixed(3)} P ${s.p.toFixed(3)} R ${s.r.toFixed(3)} ${s.type.padEnd(13)} ${s.id}`,
        );
    }
  }
  if (values.json) writeFileSync(values.json, JSON.stringify(dump));
  return 0;
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2));
