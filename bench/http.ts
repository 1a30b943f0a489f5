/**
 * The /v2 server's own cost: requests/s and latency of `POST /v2/scrape` (served from the page
 * cache, and fetched fresh each time) and of `GET /v2/crawl/{id}` on a crawl of 10,000 stored
 * pages, measured with autocannon on loopback. The server runs as `trawl serve` in its own
 * process, as users run it; `--server` starts another checkout's server (a before/after pair).
 *
 * The scrapes go round the site's pages, one URL after another, as a server's traffic does: a
 * single URL scraped again and again measured that one page's conversion (a 52 KB article that
 * costs three times the site's average) and let repeated-URL shortcuts pass for speed. The crawl
 * runs first, so that every page is in the page cache for the "cache hit" line.
 *
 *   npm run bench:http                     10,000-page crawl, 10 s per measurement
 *   npm run bench:http -- --pages 2000 --duration 5
 *   npm run bench:http -- --server ../before/packages/http/src/bin.ts
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { pagePath, startGeneratedSite } from './lib/generated-site.ts';

const ownBin = join(import.meta.dirname, '../packages/http/src/bin.ts');

interface Measured {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
}

async function measure(name: string, options: autocannon.Options): Promise<Measured> {
  const result = await autocannon(options);
  return {
    name,
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

export async function runHttpBench(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      pages: { type: 'string', default: '10000' },
      duration: { type: 'string', default: '10' },
      server: { type: 'string', default: ownBin },
    },
  });
  const pages = Number(values.pages);
  const duration = Number(values.duration);
  const site = await startGeneratedSite({ pages });
  const dataDir = mkdtempSync(join(tmpdir(), 'trawl-bench-http-'));
  const server = spawn(
    process.execPath,
    ['--max-semi-space-size=16', '--conditions=development', values.server, 'serve'],
    {
      env: {
        ...process.env,
        PORT: '0',
        TRAWL_DATA_DIR: dataDir,
        TRAWL_ALLOW_PRIVATE_ADDRESSES: 'true',
        TRAWL_LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  try {
    const api = await new Promise<string>((resolve, reject) => {
      server.stderr.setEncoding('utf8').on('data', (text: string) => {
        const address = /server on (http:\/\/[\d.]+:\d+)/.exec(text);
        if (address?.[1]) resolve(address[1]);
      });
      server.once('exit', (code) => reject(new Error(`trawl serve exited ${code}`)));
    });
    const json = { 'content-type': 'application/json' };
    const started = performance.now();
    const crawl = (await (
      await fetch(`${api}/v2/crawl`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ url: `${site.url}/`, limit: pages, sitemap: 'include' }),
      })
    ).json()) as { id: string };
    let status = { status: 'scraping', completed: 0 };
    while (status.status === 'scraping') {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      status = (await (await fetch(`${api}/v2/crawl/${crawl.id}?limit=1`)).json()) as typeof status;
    }
    const crawlSeconds = (performance.now() - started) / 1000;

    // Each scrape takes the next page of the site; every autocannon connection shares the count.
    let next = 0;
    const scrapes = (extra: object): autocannon.Options => ({
      url: `${api}/v2/scrape`,
      method: 'POST',
      headers: json,
      connections: 10,
      duration,
      requests: [
        {
          setupRequest: (request) => {
            const url = `${site.url}${pagePath(next++ % pages)}`;
            return { ...request, body: JSON.stringify({ url, ...extra }) };
          },
        },
      ],
    });
    // One unrecorded second first: code warms up and worker threads start once per process,
    // which a long-running server pays only at its start.
    await measure('warm-up', { ...scrapes({}), duration: 1 });
    const results: Measured[] = [];
    results.push(await measure('POST /v2/scrape (page cache hit)', scrapes({})));
    results.push(await measure('POST /v2/scrape (fresh fetch, maxAge 0)', scrapes({ maxAge: 0 })));
    for (const [label, query] of [
      ['first page of 100 documents', ''],
      ['a page of 10 documents deep in the crawl', `?skip=${pages - 20}&limit=10`],
    ] as const) {
      results.push(
        await measure(`GET /v2/crawl/{id}, ${label}`, {
          url: `${api}/v2/crawl/${crawl.id}${query}`,
          connections: 10,
          duration,
        }),
      );
    }

    console.log(
      `/v2 server on loopback; autocannon, 10 connections, ${duration} s each; crawl of ${status.completed} pages stored in ${crawlSeconds.toFixed(0)} s\n`,
    );
    console.log('| request | requests/s | p50 ms | p99 ms | errors |');
    console.log('| --- | ---: | ---: | ---: | ---: |');
    for (const r of results)
      console.log(`| ${r.name} | ${r.requestsPerSecond} | ${r.p50} | ${r.p99} | ${r.errors} |`);
    return results.some((r) => r.errors > 0) ? 1 : 0;
  } finally {
    server.kill('SIGTERM');
    await site.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.main) process.exitCode = await runHttpBench(process.argv.slice(2));
