/**
 * One crawler of the crawl benchmark, run in its own process so that its CPU time and peak RSS
 * are its own: `crawl-runner.ts <trawl|trawl-cli|crawlee> <siteUrl> <pages> [concurrency]`.
 * Prints one JSON line.
 *
 * - trawl: `crawl()` with the embedded SQLite store, full documents (markdown, links, metadata).
 * - trawl-cli: `trawl crawl <url> --limit <pages> --formats markdown,links` as a user runs it,
 *   JSON lines to a pipe read at full speed into a file, checked after the crawl; CPU and peak
 *   RSS are those of the CLI's whole process tree, not this runner.
 * - crawlee: a plain `CheerioCrawler` (same-hostname links) converting each page's body with
 *   turndown, keeping title, markdown and links — what a crawlee user would write — with its
 *   concurrency pinned: left to its autoscaler it idles at 15–19 pages/s on this machine with
 *   most of a core unused, which would flatter us. Pinning takes `desiredConcurrency` too:
 *   `HttpCrawler` starts its pool at 10 whatever `minConcurrency` says, and the pool climbs by
 *   5 % per 10 s. And it runs without `maxRequestsPerCrawl`, since the generated site has exactly
 *   `pages` pages: with that option, crawlee 3.18's `enqueueLinks` adds a page's links in chunks
 *   sized by the crawl's remaining budget, sleeping 1 s between chunks inside the handler, and a
 *   2,000-page crawl spent minutes with every slot asleep there (1–2 pages/s).
 */
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { measureCommand } from './process-tree.ts';

export interface RunnerResult {
  crawler: string;
  pages: number;
  wallMs: number;
  cpuMs: number;
  peakRssMb: number;
  markdownBytes: number;
  /** Distinct page URLs among the documents; equal to `pages` when no page came twice. */
  distinctUrls: number;
  /** crawlee's pinned concurrency; the CLI's when given. */
  concurrency?: number;
}

const [crawler, siteUrl, pagesArg, concurrencyArg] = process.argv.slice(2);
const pages = Number(pagesArg);
const concurrency = concurrencyArg ? Number(concurrencyArg) : undefined;
const urls = new Set<string>();
const scratch = mkdtempSync(join(tmpdir(), `trawl-bench-${crawler}-`));

async function runTrawl(): Promise<{ count: number; bytes: number }> {
  const { crawl, SqliteStore } = await import('@trawl/core');
  const store = new SqliteStore({ path: join(scratch, 'store.sqlite') });
  const job = crawl(
    `${siteUrl}/`,
    { limit: pages, scrapeOptions: { formats: ['markdown', 'links'] } },
    { store },
  );
  let count = 0;
  let bytes = 0;
  for await (const document of job) {
    count += 1;
    bytes += document.markdown?.length ?? 0;
    urls.add(document.metadata.url ?? document.metadata.sourceURL ?? '');
  }
  const summary = await job.done;
  if (summary.status !== 'completed')
    throw new Error(`crawl ended ${summary.status}: ${summary.error}`);
  await store.close();
  return { count, bytes };
}

async function runCrawlee(): Promise<{ count: number; bytes: number }> {
  process.env['CRAWLEE_STORAGE_DIR'] = scratch;
  const { CheerioCrawler, Configuration } = await import('@crawlee/cheerio');
  const { default: TurndownService } = await import('turndown');
  const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' });
  let count = 0;
  let bytes = 0;
  const crawler = new CheerioCrawler(
    {
      minConcurrency: concurrency ?? 40,
      maxConcurrency: concurrency ?? 40,
      autoscaledPoolOptions: { desiredConcurrency: concurrency ?? 40 },
      maxRequestRetries: 1,
      async requestHandler({ $, request, enqueueLinks }) {
        const markdown = turndown.turndown($('body').html() ?? '');
        const links = $('a[href]')
          .map((_, element) => $(element).attr('href'))
          .get();
        const document = { url: request.loadedUrl, title: $('title').text(), markdown, links };
        count += 1;
        bytes += document.markdown.length;
        urls.add(request.loadedUrl ?? request.url);
        await enqueueLinks({ strategy: 'same-hostname' });
      },
    },
    new Configuration({ persistStorage: false, logLevel: 2 }),
  );
  await crawler.run([`${siteUrl}/`]);
  return { count, bytes };
}

/**
 * `trawl crawl` in a process of its own, started the way `npm run trawl` starts it. Its stdout
 * goes through a pipe drained at full speed into a file, as `trawl crawl <url> > docs.jsonl`
 * would write it, and the documents are checked once the crawl is over: parsing each line as it
 * came took this runner a tenth of a core, taken from the crawl it was measuring on a two-core
 * machine.
 */
async function runTrawlCli(): Promise<RunnerResult> {
  const bin = join(import.meta.dirname, '../../packages/http/src/bin.ts');
  const output = join(scratch, 'docs.jsonl');
  const usage = await measureCommand(
    [
      process.execPath,
      '--max-semi-space-size=16',
      '--conditions=development',
      '--experimental-strip-types',
      bin,
      'crawl',
      `${siteUrl}/`,
      '--limit',
      String(pages),
      // The same full documents as the library run: without --formats the CLI prints markdown
      // and metadata only.
      '--formats',
      'markdown,links',
      '--quiet',
      ...(concurrency ? ['--concurrency', String(concurrency)] : []),
    ],
    (stdout) => pipeline(stdout, createWriteStream(output)),
    { env: { ...process.env, TRAWL_DATA_DIR: scratch } },
  );
  let count = 0;
  let bytes = 0;
  for await (const line of createInterface({
    input: createReadStream(output),
    crlfDelay: Infinity,
  })) {
    const document = JSON.parse(line) as {
      markdown?: string;
      links?: string[];
      metadata: { url?: string; sourceURL?: string };
    };
    if (!Array.isArray(document.links)) throw new Error('trawl crawl printed a page without links');
    count += 1;
    bytes += document.markdown?.length ?? 0;
    urls.add(document.metadata.url ?? document.metadata.sourceURL ?? '');
  }
  if (usage.exitCode !== 0) throw new Error(`trawl crawl exited with ${usage.exitCode}`);
  return {
    crawler: 'trawl-cli',
    pages: count,
    wallMs: usage.wallMs,
    cpuMs: usage.cpuMs,
    peakRssMb: usage.peakRssMb,
    markdownBytes: bytes,
    distinctUrls: urls.size,
    ...(concurrency ? { concurrency } : {}),
  };
}

async function runInProcess(): Promise<RunnerResult> {
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const { count, bytes } = crawler === 'trawl' ? await runTrawl() : await runCrawlee();
  const cpu = process.cpuUsage(cpuBefore);
  return {
    crawler: crawler ?? '',
    pages: count,
    wallMs: Math.round(performance.now() - started),
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    markdownBytes: bytes,
    distinctUrls: urls.size,
    ...(crawler === 'crawlee' ? { concurrency: concurrency ?? 40 } : {}),
  };
}

const result = crawler === 'trawl-cli' ? await runTrawlCli() : await runInProcess();
rmSync(scratch, { recursive: true, force: true });
process.stdout.write(`${JSON.stringify(result)}\n`);
