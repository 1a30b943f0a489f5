/**
 * `trawl batch <url>...`: a list of pages scraped as one job (the batch scrape of `/v2`), written
 * as `trawl crawl` writes a site: JSON lines on stdout or markdown files with `--out`, resumable.
 */
import { readFileSync } from 'node:fs';
import { batchScrape, type BatchScrapeOptions } from '@trawl/core';
import { parseFlags, UsageError } from './args.ts';
import type { Command } from './index.ts';
import { jobFlagOptions, jobOutputHelp, jobPageOptionsFrom, runJob } from './job-command.ts';
import { pageCacheHelp, pageFlagsHelp, toInteger } from './page-flags.ts';

const usage = `Usage: trawl batch <url>... [options]
       trawl batch --input <file> [options]
       trawl batch --resume <id> [output options]

Scrapes a list of pages as one job. By default each page is one JSON line on stdout (the whole
document); with --out, markdown files in a folder. Progress goes to stderr. Ctrl-C stops the
job and keeps it: continue it with --resume <id>.

Options:
  --input <file>         read URLs from a file, one per line ('-' for stdin; # comments)
  --concurrency <n>      pages at once (maxConcurrency)
  --format <list>        comma-separated or repeated: markdown (default), html, rawHtml,
                         links, images (--formats is the same flag)
${pageFlagsHelp}

${jobOutputHelp('batch')}

Exit status: 0 when the batch completed (per-page failures are listed on stderr), 1 when no
page could be scraped, 2 for bad options, 130 when interrupted.
${pageCacheHelp}

Examples:
  trawl batch https://example.com/a https://example.com/b > pages.jsonl
  trawl batch --input urls.txt --out pages/
`;

/** The batch command. */
export const batchCommand: Command = {
  usage,
  async run(args, io) {
    const { values, positionals } = parseFlags(args, {
      input: { type: 'string' },
      concurrency: { type: 'string' },
      ...jobFlagOptions,
    });
    const urls = [...positionals, ...(values.input ? urlsOf(values.input) : [])];
    if (values.resume !== undefined && urls.length > 0)
      throw new UsageError('--resume takes the job id instead of URLs');
    if (values.resume === undefined && urls.length === 0)
      throw new UsageError('give at least one URL, or --input <file>');
    const options: BatchScrapeOptions = jobPageOptionsFrom(values);
    if (values.concurrency !== undefined)
      options.maxConcurrency = toInteger(values.concurrency, '--concurrency', 'pages');

    return runJob('batch', values, io, options, (context) => {
      const started = batchScrape(urls, options, context);
      for (const invalid of started.invalidURLs)
        io.stderr(`skipped '${invalid}': not a valid URL\n`);
      return started;
    });
  },
};

/** The URLs of a file (or stdin), one per line; blank lines and `#` comments are skipped. */
function urlsOf(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch {
    throw new UsageError(`--input: cannot read '${path}'`);
  }
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}
