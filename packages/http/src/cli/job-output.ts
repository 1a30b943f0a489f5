/**
 * Writing a running job (a crawl or a batch scrape) out: every document as a JSON line on stdout
 * or as a markdown file in a folder, progress on stderr, and at the end a summary and the pages
 * that failed. Ctrl-C leaves the job in the store and prints how to resume it.
 */
import { createHash } from 'node:crypto';
import {
  accessSync,
  appendFileSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import type { Document, Job, JobProgress } from '@trawl/core';
import { jsonAsStored } from '@trawl/core/server';
import { UsageError } from './args.ts';
import type { CliIo } from './index.ts';

/** Output flags of a job command. */
export interface JobOutputFlags {
  out?: string | undefined;
  quiet?: boolean | undefined;
}

/** Where documents go. */
interface Sink {
  document(document: Document): void;
  /** Settles once the sink can take more; undefined when it can now. */
  backlog(): Promise<void> | undefined;
  errors(errors: readonly { url: string; code: string; error: string }[]): void;
}

/**
 * Writes the job's documents and reports it; resolves with the exit status: 0 when it completed
 * (per-page failures are listed), 1 when it failed or no page could be scraped, 130 when
 * interrupted. `--quiet` prints nothing on stderr but the reason of a failed job.
 */
export async function writeJob(
  job: Job,
  flags: JobOutputFlags,
  io: CliIo,
  context: { command: string; dataDir: string; resumed: boolean },
): Promise<number> {
  const progress = flags.quiet ? undefined : new ProgressLine(io, job);
  progress?.started(context.resumed);
  const sink = flags.out ? new FolderSink(flags.out) : new StdoutSink(io);
  const interrupted = await writeAll(job, sink, io.signal);
  if (interrupted) {
    progress?.stop();
    io.stderr(
      `\nInterrupted. The ${context.command} is kept in ${context.dataDir}; continue it with:\n  trawl ${context.command} --resume ${job.id}\n`,
    );
    return 130;
  }
  const summary = await job.done;
  progress?.stop();
  const { errors, robotsBlocked } = await job.errors();
  sink.errors(errors);

  const counts = summary.progress;
  if (!flags.quiet) {
    io.stderr(
      `${context.command} ${summary.id} ${summary.status}: ${counts.scraped} pages, ${counts.failed} failed` +
        `${counts.robotsBlocked ? `, ${counts.robotsBlocked} blocked by robots.txt` : ''}\n`,
    );
    if (summary.warning) io.stderr(`warning: ${summary.warning}\n`);
    const shown = 20;
    for (const error of errors.slice(0, shown)) {
      io.stderr(`  ${error.url}: ${error.code}: ${error.error}\n`);
    }
    if (errors.length > shown) {
      io.stderr(
        `  … and ${errors.length - shown} more${flags.out ? ` (all in ${join(flags.out, 'errors.jsonl')})` : ''}\n`,
      );
    }
    if (robotsBlocked.length > 0)
      io.stderr(`robots.txt blocked ${robotsBlocked.length} URLs, e.g. ${robotsBlocked[0]}\n`);
  }
  // Even quiet, a failed job says why: the exit status alone would leave the user guessing.
  if (summary.error) io.stderr(`error: ${summary.error}\n`);
  if (summary.status === 'failed') return 1;
  return counts.scraped === 0 && counts.failed > 0 ? 1 : 0;
}

/**
 * Makes `dir` ready for a job's files before the job starts, so a bad `--out` stops the command
 * at once instead of after the first page: a file in the way or a folder that cannot be written
 * is a usage error naming it. The pages an earlier run listed in its index are removed, so a
 * re-run leaves no stale page of a URL that is gone; files Trawl did not write stay.
 */
export function prepareOutFolder(dir: string): void {
  if (existsSync(dir) && !statSync(dir).isDirectory())
    throw new UsageError(`--out ${dir} is a file; give a folder (it is made if missing)`);
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
  } catch (error) {
    throw new UsageError(`--out ${dir} cannot be written: ${(error as Error).message}`);
  }
  const index = join(dir, 'index.jsonl');
  if (!existsSync(index)) return;
  for (const line of readFileSync(index, 'utf8').split('\n')) {
    const file = line.trim() === '' ? undefined : (JSON.parse(line) as { file?: unknown }).file;
    // Only names this command wrote: relative, inside the folder.
    if (typeof file === 'string' && !file.startsWith('/') && !file.split('/').includes('..'))
      rmSync(join(dir, file), { force: true });
  }
}

class StdoutSink implements Sink {
  readonly #io: CliIo;
  constructor(io: CliIo) {
    this.#io = io;
  }
  document(document: Document): void {
    // The text the store wrote for the document's result slot: serialised once, not twice.
    this.#io.stdout(`${jsonAsStored(document)}\n`);
  }
  backlog(): Promise<void> | undefined {
    return this.#io.stdoutBacklog?.();
  }
  errors(): void {
    // Errors are listed on stderr; stdout stays one document per line.
  }
}

/** Markdown files named after the URL, and an index to find them by URL. */
class FolderSink implements Sink {
  readonly #dir: string;
  readonly #index: string;
  constructor(dir: string) {
    this.#dir = dir;
    mkdirSync(dir, { recursive: true });
    this.#index = join(dir, 'index.jsonl');
    // A resumed job writes every page again; start the index afresh so each URL is listed once.
    writeFileSync(this.#index, '');
  }
  document(document: Document): void {
    const url = document.metadata.url ?? document.metadata.sourceURL ?? '';
    const file = pageFileName(url);
    const path = join(this.#dir, file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${document.markdown ?? ''}\n`);
    const entry = {
      url,
      file,
      title: document.metadata.title,
      statusCode: document.metadata.statusCode,
    };
    appendFileSync(this.#index, `${JSON.stringify(entry)}\n`);
  }
  backlog(): undefined {
    // Files are written synchronously: nothing is ever held back.
    return undefined;
  }
  errors(errors: readonly { url: string; code: string; error: string }[]): void {
    writeFileSync(
      join(this.#dir, 'errors.jsonl'),
      errors.map((error) => `${JSON.stringify(error)}\n`).join(''),
    );
  }
}

/**
 * A relative file path for a page: host, then the path with `.md` in place of an extension,
 * `index.md` for folders, and a short hash of the query when there is one. Segments are
 * reduced to safe characters so no URL can write outside the folder.
 */
export function pageFileName(url: string): string {
  const parsed = new URL(url);
  const safe = (segment: string): string =>
    decodeSafely(segment)
      .replace(/[^\p{L}\p{N}._-]+/gu, '_')
      .replace(/^\.+/, '_')
      .slice(0, 120) || '_';
  const segments = parsed.pathname.split('/').slice(1);
  let last = segments.pop() ?? '';
  if (last === '') last = 'index';
  last = last.replace(/\.(html?|php|aspx?|jsp|md)$/i, '');
  if (parsed.search) {
    last += `_${createHash('sha256').update(parsed.search).digest('hex').slice(0, 8)}`;
  }
  const host = safe(parsed.host.replace(':', '_'));
  return [host, ...segments.filter(Boolean).map(safe), `${safe(last)}.md`].join('/');
}

function decodeSafely(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Writes documents as the job delivers them. Resolves true when `signal` aborted first (the
 * job keeps its frontier in the store), false when every document was written.
 */
async function writeAll(job: Job, sink: Sink, signal: AbortSignal | undefined): Promise<boolean> {
  const iterator = job[Symbol.asyncIterator]();
  for (;;) {
    // Checked before asking for the next page: a page asked for and never taken is work lost.
    if (signal?.aborted) return true;
    const next = await untilAborted(iterator.next(), signal);
    if (next === 'aborted') return true;
    if (next.done) return false;
    sink.document(next.value);
    // The job keeps crawling meanwhile: its documents wait in the store, not in this process.
    const backlog = sink.backlog();
    if (backlog && (await untilAborted(backlog, signal)) === 'aborted') return true;
  }
}

/**
 * What `promise` resolves with, or 'aborted' when `signal` fires first. Each wait has its own
 * listener, removed once it settles: racing every page's wait against one long-lived abort
 * promise would leave a reaction on that promise per document, each holding the document it
 * resolved with, so a long crawl kept every page it printed.
 */
function untilAborted<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T | 'aborted'> {
  if (signal?.aborted) {
    // Nobody waits for it any more: its failure must not surface as an unhandled rejection.
    promise.catch(() => undefined);
    return Promise.resolve('aborted');
  }
  if (!signal) return promise;
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve('aborted');
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: Error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Progress on stderr: one line redrawn in place on a terminal, a plain line every few seconds
 * otherwise (logs, CI).
 */
class ProgressLine {
  readonly #io: CliIo;
  readonly #job: Job;
  readonly #started = performance.now();
  readonly #interval: number;
  #last = 0;
  #timer: NodeJS.Timeout | undefined;
  constructor(io: CliIo, job: Job) {
    this.#io = io;
    this.#job = job;
    this.#interval = io.stderrIsTTY ? 200 : 2000;
  }
  started(resumed: boolean): void {
    const verb = this.#job.kind === 'crawl' ? 'crawling' : 'scraping';
    this.#io.stderr(`${resumed ? 'resuming' : verb} ${this.#job.url} (job ${this.#job.id})\n`);
    this.#job.on('progress', this.#onProgress);
    // A quiet stretch (a long delay, a slow page) still shows the clock moving.
    this.#timer = setInterval(() => this.#draw(this.#job.progress), this.#interval);
    this.#timer.unref();
  }
  stop(): void {
    this.#job.off('progress', this.#onProgress);
    clearInterval(this.#timer);
    if (this.#io.stderrIsTTY) this.#io.stderr('\n');
  }
  readonly #onProgress = (progress: JobProgress): void => {
    if (performance.now() - this.#last >= this.#interval) this.#draw(progress);
  };
  #draw(progress: JobProgress): void {
    this.#last = performance.now();
    const seconds = (this.#last - this.#started) / 1000;
    const rate = seconds > 0 ? progress.completed / seconds : 0;
    const line =
      `${progress.scraped} scraped · ${progress.failed} failed · ${progress.queued} queued · ` +
      `${progress.discovered} discovered · ${rate.toFixed(1)} pages/s · ${seconds.toFixed(0)} s`;
    this.#io.stderr(this.#io.stderrIsTTY ? `\r\x1b[K${line}` : `${line}\n`);
  }
}
