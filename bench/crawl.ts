/**
 * The crawl benchmark: Trawl's crawl() against a plain crawlee CheerioCrawler + turndown on the
 * same generated site, in the same run, each crawler in its own process, plus the site's own
 * ceiling measured with autocannon.
 *
 *   npm run bench:crawl                         5,000 pages, both crawlers and the ceiling
 *   npm run bench:crawl -- --pages 20000 --only trawl
 *   npm run bench:crawl -- --json
 *   npm run bench:crawl -- --default-heap         both crawlers on Node's default heap sizes
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
const heapFlags = ['--max-semi-space-size=8'];
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
    },
  });
  const pages = Number(values.pages);
  const crawlers = values.only ? [values.only] : ['crawlee', 'trawl'];
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
    for (const crawler of crawlers) {
      const runner = firstJsonLine<RunnerResult>([
        ...node,
        ...(values['default-heap'] ? [] : heapFlags),
        join(here, 'lib/crawl-runner.ts'),
        crawler,
        url,
        String(pages),
      ]);
      results.push(await runner.result);
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
    console.log('| crawler | pages | wall s | pages/s | CPU ms/page | peak RSS MB |');
    console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
    for (const r of results) {
      const rate = (r.pages / r.wallMs) * 1000;
      console.log(
        `| ${r.crawler} | ${r.pages} | ${(r.wallMs / 1000).toFixed(1)} | ${rate.toFixed(1)} | ${(r.cpuMs / r.pages).toFixed(2)} | ${r.peakRssMb} |`,
      );
    }
    const [base, ours] = [
      results.find((r) => r.crawler === 'crawlee'),
      results.find((r) => r.crawler === 'trawl'),
    ];
    if (base && ours) {
      const speedup = ours.pages / ours.wallMs / (base.pages / base.wallMs);
      console.log(
        `\nTrawl / crawlee: ${speedup.toFixed(2)}× pages/s, ${(ours.peakRssMb / base.peakRssMb).toFixed(2)}× peak RSS`,
      );
    }
    return 0;
  } finally {
    site.kill();
  }
}

if (import.meta.main) process.exitCode = await runCrawlBench(process.argv.slice(2));
