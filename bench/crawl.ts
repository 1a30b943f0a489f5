/**
 * The crawl benchmark: `trawl crawl` (the CLI, as a user runs it) and Trawl's crawl() (the
 * library) against a plain crawlee CheerioCrawler + turndown on the same generated site, in the
 * same run, each crawler in its own process, plus the site's own ceiling measured with autocannon.
 * crawlee runs with its concurrency pinned at each value of `--crawlee-concurrency`, and the
 * comparison takes its best run: a fair baseline, not its autoscaler's cautious start.
 *
 *   npm run bench:crawl                         5,000 pages, every crawler and the ceiling
 *   npm run bench:crawl -- --pages 20000 --only trawl-cli
 *   npm run bench:crawl -- --crawlee-concurrency 20,40,80
 *   npm run bench:crawl -- --json
 *   npm run bench:crawl -- --default-heap         the crawlers on Node's default heap sizes
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import type { RunnerResult } from './lib/crawl-runner.ts';

const node = [process.execPath, '--conditions=development', '--experimental-strip-types'];
/**
 * Both crawlers run with the V8 flag the trawl CLI and server start with: V8 otherwise reserves
 * a 128 MB young generation on this machine, the largest part of either crawler's RSS.
 * `--default-heap` runs them on Node's defaults instead.
 */
const heapFlags = ['--max-semi-space-size=16'];
const here = import.meta.dirname;

/** Starts a process and resolves with its first stdout line parsed as JSON. */
function firstJsonLine<T>(args: string[]): { result: Promise<T>; kill: () => void } {
  const child = spawn(args[0] ?? process.execPath, args.slice(1), {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  const result = new Promise<T>((resolve, reject) => {
    lines.once('line', (line) => resolve(JSON.parse(line) as T));
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
  return { result, kill: () => child.kill() };
}

async function ceiling(siteUrl: string): Promise<number> {
  const { default: autocannon } = await import('autocannon');
  const result = await autocannon({
    url: siteUrl,
    connections: 32,
    duration: 5,
    requests: [0, 1, 2, 3, 4, 5, 6, 7].map((n) => ({
      path: n === 0 ? '/' : `/articles/${n}.html`,
    })),
  });
  return Math.round(result.requests.average);
}

export async function runCrawlBench(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      pages: { type: 'string', default: '5000' },
      only: { type: 'string' },
      json: { type: 'boolean', default: false },
      'default-heap': { type: 'boolean', default: false },
      'crawlee-concurrency': { type: 'string', default: '10,20,40,80' },
    },
  });
  const pages = Number(values.pages);
  const crawlers = values.only ? values.only.split(',') : ['crawlee', 'trawl', 'trawl-cli'];
  const crawleeConcurrency = values['crawlee-concurrency'].split(',').map(Number);
  const runs = crawlers.flatMap((crawler): { crawler: string; concurrency?: number }[] =>
    crawler === 'crawlee'
      ? crawleeConcurrency.map((concurrency) => ({ crawler, concurrency }))
      : [{ crawler }],
  );
  const site = firstJsonLine<{ url: string }>([
    ...node,
    join(here, 'lib/generated-site.ts'),
    '--pages',
    String(pages),
  ]);
  const { url } = await site.result;
  try {
    const requestsPerSecond = await ceiling(url);
    const results: RunnerResult[] = [];
    for (const { crawler, concurrency } of runs) {
      const runner = firstJsonLine<RunnerResult>([
        ...node,
        ...(values['default-heap'] ? [] : heapFlags),
        join(here, 'lib/crawl-runner.ts'),
        crawler,
        url,
        String(pages),
        ...(concurrency ? [String(concurrency)] : []),
      ]);
      const result = await runner.result;
      // Each run as it ends, on stderr: a long sweep that is stopped keeps what it measured.
      console.error(JSON.stringify(result));
      results.push(result);
    }
    if (values.json) {
      console.log(JSON.stringify({ pages, requestsPerSecond, results }, null, 2));
      return 0;
    }
    console.log(
      `Crawl of a generated ${pages}-page site (pages 20–60 KB, ~20 links each); node flags: ${values['default-heap'] ? 'none' : heapFlags.join(' ')}\n`,
    );
    console.log(
      `Site ceiling (autocannon, 32 connections, 5 s): ${requestsPerSecond} requests/s\n`,
    );
    const rate = (r: RunnerResult): number => (r.pages / r.wallMs) * 1000;
    console.log(
      '| crawler | concurrency | pages | distinct | wall s | pages/s | CPU ms/page | cores used | peak RSS MB |',
    );
    console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const r of results) {
      console.log(
        `| ${r.crawler} | ${r.concurrency ?? 'default'} | ${r.pages} | ${r.distinctUrls} | ${(r.wallMs / 1000).toFixed(1)} | ${rate(r).toFixed(1)} | ${(r.cpuMs / r.pages).toFixed(2)} | ${(r.cpuMs / r.wallMs).toFixed(2)} | ${r.peakRssMb} |`,
      );
    }
    const crawlee = results.filter((r) => r.crawler === 'crawlee');
    const best = crawlee.sort((a, b) => rate(b) - rate(a))[0];
    if (best) {
      console.log(
        `\nBest crawlee run: concurrency ${best.concurrency}, ${rate(best).toFixed(1)} pages/s`,
      );
      for (const ours of results.filter((r) => r.crawler.startsWith('trawl'))) {
        console.log(
          `${ours.crawler} / best crawlee: ${(rate(ours) / rate(best)).toFixed(2)}× pages/s, ${(ours.peakRssMb / best.peakRssMb).toFixed(2)}× peak RSS`,
        );
      }
    }
    return 0;
  } finally {
    site.kill();
  }
}

if (import.meta.main) process.exitCode = await runCrawlBench(process.argv.slice(2));
