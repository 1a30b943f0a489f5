/**
 * The browser engine's cost: pages/s rendering the fixture site's pages through `scrape()` with
 * the pool at its default size, memory per open page (the RSS of Chromium's processes), and the
 * cost of the automatic HTTP → browser decision (the check on every HTML answer, and what a page
 * that it sends to the browser costs over HTTP alone).
 *
 *   npm run bench:browser                  120 renders
 *   npm run bench:browser -- --pages 60
 */
import { readFile, readdir } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { extname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { readdirSync, readFileSync } from 'node:fs';
import {
  BrowserFetcher,
  BrowserPool,
  HttpFetcher,
  resolveEngineConfig,
  scrape,
  type EngineContext,
} from '@trawl/core';
import { looksJsRendered } from '@trawl/core/server';

const publicDir = join(import.meta.dirname, '../test/fixture-site/public');
const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css',
  '.js': 'text/javascript',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** The fixture site's static pages, served as they are. */
async function serveFixturePages(): Promise<{
  url: string;
  pages: string[];
  close: () => Promise<void>;
}> {
  const entries = await readdir(publicDir, { recursive: true, withFileTypes: true });
  const pages = entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.html'))
    .map((entry) =>
      join(entry.parentPath, entry.name).slice(publicDir.length).split('\\').join('/'),
    )
    .filter((path) => !path.startsWith('/private/'))
    .sort();
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
    readFile(join(publicDir, path)).then(
      (body) =>
        response
          .writeHead(200, { 'content-type': types[extname(path)] ?? 'application/octet-stream' })
          .end(body),
      () => response.writeHead(404).end(),
    );
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, pages, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/**
 * Memory of a pool's Chromium (the browser and every process under it), in MB: the sum of each
 * process's proportional set size, which shares libraries and shared memory out fairly instead of
 * counting them once per process as RSS would.
 */
function chromiumPssMb(poolId: string): number {
  const all = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => {
      try {
        const status = readFileSync(`/proc/${name}/status`, 'utf8');
        const rollup = readFileSync(`/proc/${name}/smaps_rollup`, 'utf8');
        const command = readFileSync(`/proc/${name}/cmdline`, 'utf8');
        return {
          pid: Number(name),
          ppid: Number(/PPid:\s+(\d+)/.exec(status)?.[1]),
          pssKb: Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0),
          command,
        };
      } catch {
        return undefined;
      }
    })
    .filter((entry) => entry !== undefined);
  const root = all.find(
    (entry) =>
      entry.command.includes(`--trawl-pool=${poolId}`) && !entry.command.includes('--type='),
  );
  if (!root) return 0;
  const tree = new Set([root.pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const entry of all) {
      if (!tree.has(entry.pid) && tree.has(entry.ppid)) {
        tree.add(entry.pid);
        grew = true;
      }
    }
  }
  return (
    all.filter((entry) => tree.has(entry.pid)).reduce((sum, entry) => sum + entry.pssKb, 0) / 1024
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { pages: { type: 'string', default: '120' } } });
  const renders = Number(values.pages);
  const site = await serveFixturePages();
  const config = resolveEngineConfig();
  const pool = new BrowserPool({
    maxPages: availableParallelism() * config.browserPagesPerCpu,
    idleCloseMs: 0,
  });
  const http = new HttpFetcher();
  const context: EngineContext = {
    config,
    fetchers: [http, new BrowserFetcher(pool, { adblockLists: config.adblockLists })],
  };
  const urls = site.pages.map((path) => `${site.url}${path}`);
  console.log(`${urls.length} fixture pages, pool of ${pool.maxPages} pages, ${renders} renders`);

  // 1. Throughput: `waitFor: 1` sends every page to the browser; as many jobs at once as pages.
  await pool.warmUp();
  let next = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: pool.maxPages }, async () => {
      while (next < renders) {
        const url = urls[next++ % urls.length]!;
        await scrape(url, { waitFor: 1, maxAge: 0 }, context).catch(() => failures++);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `rendered ${renders} pages in ${seconds.toFixed(1)} s: ${(renders / seconds).toFixed(2)} pages/s, ${failures} failed`,
  );

  // 2. Memory: Chromium's RSS with every page slot holding a loaded page, against none.
  const idleMb = chromiumPssMb(pool.id);
  let release = () => undefined as void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let loaded = 0;
  const holders = Array.from({ length: pool.maxPages }, (_, index) =>
    pool.withPage({ viewport: { width: 1920, height: 1080 } }, async ({ page }) => {
      await page.goto(`${site.url}${site.pages[index % site.pages.length]}`);
      loaded++;
      await held;
    }),
  );
  while (loaded < pool.maxPages) await new Promise((resolve) => setTimeout(resolve, 50));
  await new Promise((resolve) => setTimeout(resolve, 500));
  const busyMb = chromiumPssMb(pool.id);
  release();
  await Promise.all(holders);
  console.log(
    `Chromium PSS: ${idleMb.toFixed(0)} MB with no page, ${busyMb.toFixed(0)} MB with ${pool.maxPages} pages: ${((busyMb - idleMb) / pool.maxPages).toFixed(1)} MB per page`,
  );

  // 3. The automatic decision: the check itself on every fixture page's HTML …
  const htmls = await Promise.all(
    site.pages.map((path) => readFile(join(publicDir, path), 'utf8')),
  );
  const rounds = 2000;
  const checkStart = performance.now();
  let shells = 0;
  for (let round = 0; round < rounds; round++)
    for (const html of htmls) if (looksJsRendered(html)) shells++;
  const perCheckUs = ((performance.now() - checkStart) * 1000) / (rounds * htmls.length);
  const meanKb = htmls.reduce((sum, html) => sum + html.length, 0) / htmls.length / 1024;
  console.log(
    `looksJsRendered: ${perCheckUs.toFixed(1)} µs per page (mean ${meanKb.toFixed(1)} KB), ${shells / rounds} of ${htmls.length} pages judged JavaScript shells`,
  );
  // … and a JavaScript shell scraped with the decision (HTTP, then the browser) against HTTP only.
  const shell = `${site.url}/app-shell.html`;
  const time = async (work: () => Promise<unknown>, times: number) => {
    const begin = performance.now();
    for (let run = 0; run < times; run++) await work();
    return (performance.now() - begin) / times;
  };
  const httpOnlyMs = await time(
    () => scrape(shell, { maxAge: 0 }, { config, fetchers: [http] }),
    20,
  );
  const autoMs = await time(() => scrape(shell, { maxAge: 0 }, context), 20);
  console.log(
    `app-shell.html: ${httpOnlyMs.toFixed(1)} ms over HTTP alone, ${autoMs.toFixed(1)} ms with the automatic browser render`,
  );

  await pool.close();
  await site.close();
}

await main();
