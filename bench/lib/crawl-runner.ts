/**
 * One crawler of the crawl benchmark, run in its own process so that its CPU time and peak RSS
 * are its own: `crawl-runner.ts <trawl|crawlee> <siteUrl> <pages>`. Prints one JSON line.
 *
 * - trawl: `crawl()` with the embedded SQLite store, full documents (markdown, links, metadata).
 * - crawlee: a plain `CheerioCrawler` (same-hostname links) converting each page's body with
 *   turndown, keeping title, markdown and links — what a crawlee user would write.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RunnerResult {
  crawler: string;
  pages: number;
  wallMs: number;
  cpuMs: number;
  peakRssMb: number;
  markdownBytes: number;
}

const [crawler, siteUrl, pagesArg] = process.argv.slice(2);
const pages = Number(pagesArg);
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
      maxRequestsPerCrawl: pages,
      minConcurrency: 10,
      maxConcurrency: 50,
      maxRequestRetries: 1,
      async requestHandler({ $, request, enqueueLinks }) {
        const markdown = turndown.turndown($('body').html() ?? '');
        const links = $('a[href]')
          .map((_, element) => $(element).attr('href'))
          .get();
        const document = { url: request.loadedUrl, title: $('title').text(), markdown, links };
        count += 1;
        bytes += document.markdown.length;
        await enqueueLinks({ strategy: 'same-hostname' });
      },
    },
    new Configuration({ persistStorage: false, logLevel: 2 }),
  );
  await crawler.run([`${siteUrl}/`]);
  return { count, bytes };
}

const started = performance.now();
const cpuBefore = process.cpuUsage();
const { count, bytes } = crawler === 'trawl' ? await runTrawl() : await runCrawlee();
const cpu = process.cpuUsage(cpuBefore);
const result: RunnerResult = {
  crawler: crawler ?? '',
  pages: count,
  wallMs: Math.round(performance.now() - started),
  cpuMs: Math.round((cpu.user + cpu.system) / 1000),
  peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
  markdownBytes: bytes,
};
rmSync(scratch, { recursive: true, force: true });
process.stdout.write(`${JSON.stringify(result)}\n`);
