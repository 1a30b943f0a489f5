/**
 * Robustness of parse() on thousands of real and malformed files: every file of
 * `bench/parse-corpora/robustness/` (Apache POI's test-data, pdf.js's test PDFs; made by
 * `bench/tools/parse-corpora.ts`) goes through parse() in a child process, and the outcome of
 * each is counted: parsed, refused with a 4xx code, a 5xx error, an uncaught exception (anything
 * not a TrawlError), a hang past the deadline (killed), an answer more than 2 s after it (late),
 * a peak RSS over 1 GB, or a dead process.
 *
 * A child parses files one after the other (starting Node per file would cost more than most
 * parses); the parent watches it, and kills and replaces it when a file hangs or grows too big.
 *
 *   npm run bench:parse-robustness                        every file
 *   npm run bench:parse-robustness -- --filter poi/spreadsheet --list uncaught
 *   npm run bench:parse-robustness -- --sample 200        a deterministic sample
 *   npm run bench:parse-robustness -- --exclude '\.(doc|xls|ppt)$'   without LibreOffice's share
 *   npm run bench:parse-robustness -- --log out.jsonl     each outcome as it comes
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { parse, TrawlError } from '@trawl/core';

const corpus = join(import.meta.dirname, 'parse-corpora', 'robustness');
/** Codes that refuse the input (4xx): the caller's file, not the engine, is at fault. */
const refusalCodes = new Set([
  'BAD_REQUEST',
  'UNSUPPORTED_FILE_TYPE',
  'CONTENT_TOO_LARGE',
  'SCRAPE_TIMEOUT',
  'PARSE_UNSUPPORTED_OPTIONS',
  'NOT_CONFIGURED',
]);
const rssLimitKb = 1024 * 1024;
const parseTimeoutMs = 20_000;
/** The parent's own bound: parse() was told 20 s; a hang is anything well past it. */
const killAfterMs = parseTimeoutMs + 10_000;
/** An answer later than this after the deadline counts as late even though it came. */
const lateAfterMs = parseTimeoutMs + 2_000;

interface Outcome {
  file: string;
  outcome: string;
  message?: string;
  ms?: number;
}

/** Child side: parses the files named on stdin, one JSON line out per file. */
async function child(): Promise<void> {
  // Ready: the parent starts a file's clock only now, not while Node loads the engine.
  process.stdout.write('ready\n');
  for await (const line of createInterface({ input: process.stdin })) {
    const file = line.trim();
    if (!file) continue;
    const started = performance.now();
    let outcome: Outcome;
    try {
      await parse(new Uint8Array(readFileSync(join(corpus, file))), {
        filename: basename(file),
        timeout: parseTimeoutMs,
      });
      outcome = { file, outcome: 'parsed' };
    } catch (error) {
      const message = (error as Error | undefined)?.message?.slice(0, 200) ?? String(error);
      if (error instanceof TrawlError)
        outcome = {
          file,
          outcome: `${refusalCodes.has(error.code) ? 'refused' : 'error'} ${error.code}`,
          message,
        };
      else
        outcome = { file, outcome: 'uncaught', message: `${(error as Error)?.name}: ${message}` };
    }
    outcome.ms = Math.round(performance.now() - started);
    process.stdout.write(`${JSON.stringify(outcome)}\n`);
  }
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

function rssKb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** Parent side: one worker child at a time per slot, replaced when it is killed or dies. */
async function runAll(files: string[], jobs: number, log?: string): Promise<Outcome[]> {
  const queue = [...files];
  const retried = new Set<string>();
  const results: Outcome[] = [];
  const slot = async () => {
    while (queue.length) {
      const proc: ChildProcess = spawn(
        process.execPath,
        ['--conditions=development', '--experimental-strip-types', import.meta.filename, '--child'],
        { stdio: ['pipe', 'pipe', 'ignore'] },
      );
      const lines = createInterface({ input: proc.stdout! })[Symbol.asyncIterator]();
      let exited = false;
      proc.on('exit', () => (exited = true));
      // A child that died mid-file is recorded as such; writing to it must not kill the parent.
      proc.stdin!.on('error', () => undefined);
      if ((await lines.next()).done) continue;
      while (queue.length && !exited) {
        const file = queue.shift()!;
        proc.stdin!.write(`${file}\n`);
        let peak = 0;
        let verdict: string | undefined;
        const started = Date.now();
        const watch = setInterval(() => {
          peak = Math.max(peak, rssKb(proc.pid!));
          if (peak > rssLimitKb) verdict = 'rss over 1 GB';
          else if (Date.now() - started > killAfterMs) verdict = 'timeout';
          if (verdict) proc.kill('SIGKILL');
        }, 100);
        const next = await lines.next();
        clearInterval(watch);
        // A child that parsed many files carries their garbage: a file over the RSS limit is
        // tried once more in a fresh child before it counts.
        if (next.done && verdict === 'rss over 1 GB' && !retried.has(file)) {
          retried.add(file);
          queue.unshift(file);
          break;
        }
        const outcome: Outcome = next.done
          ? { file, outcome: verdict ?? 'process died' }
          : (JSON.parse(next.value) as Outcome);
        if ((outcome.ms ?? 0) > lateAfterMs) outcome.outcome = `late (${outcome.outcome})`;
        if (peak > 800 * 1024)
          outcome.message = `peak RSS ${Math.round(peak / 1024)} MB; ${outcome.message ?? ''}`;
        results.push(outcome);
        if (log) appendFileSync(log, `${JSON.stringify(outcome)}\n`);
        if (results.length % 100 === 0) console.error(`${results.length}/${files.length}`);
        // The child is gone (killed, or crashed): the next file gets a new one.
        if (next.done) break;
      }
      proc.kill('SIGKILL');
    }
  };
  await Promise.all(Array.from({ length: jobs }, slot));
  return results;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      child: { type: 'boolean', default: false },
      filter: { type: 'string' },
      exclude: { type: 'string' },
      sample: { type: 'string' },
      jobs: { type: 'string', default: '1' },
      list: { type: 'string', multiple: true },
      json: { type: 'boolean', default: false },
      log: { type: 'string' },
    },
  });
  if (values.child) return child();
  let files = walk(corpus)
    .map((path) => relative(corpus, path))
    .sort();
  if (values.filter) files = files.filter((file) => file.includes(values.filter!));
  if (values.exclude) files = files.filter((file) => !new RegExp(values.exclude!).test(file));
  if (values.sample) {
    const hash = (file: string) => createHash('sha256').update(file).digest('hex');
    files = files.sort((a, b) => hash(a).localeCompare(hash(b))).slice(0, Number(values.sample));
  }
  if (values.log) writeFileSync(values.log, '');
  const results = await runAll(files, Number(values.jobs), values.log);
  if (values.json) {
    console.log(JSON.stringify(results, null, 1));
    return;
  }
  const counts = new Map<string, number>();
  for (const result of results) counts.set(result.outcome, (counts.get(result.outcome) ?? 0) + 1);
  console.log(`| outcome | files |\n| - | ---: |`);
  for (const [outcome, count] of [...counts].sort((a, b) => b[1] - a[1]))
    console.log(`| ${outcome} | ${count} |`);
  for (const wanted of values.list ?? [])
    for (const result of results)
      if (result.outcome.startsWith(wanted))
        console.log(`${result.outcome}\t${result.file}\t${result.message ?? ''}`);
}

await main();
