/** Process entry of the `trawl` command. */
import { enableCompileCache } from 'node:module';
import { setFlagsFromString } from 'node:v8';

// Node keeps the compiled (and, for TypeScript sources, type-stripped) modules on disk, in
// NODE_COMPILE_CACHE or the temporary folder: a command then starts in ~0.5 s less, and its
// conversion threads, which load the converter again, ~0.3 s less each (a 2,000-page
// `trawl crawl` spent a tenth of its time starting). Modules loaded before this line are not
// cached, so everything else comes in through dynamic imports. Threads inherit the environment,
// not the setting; NODE_DISABLE_COMPILE_CACHE=1 turns it off.
const compileCache = enableCompileCache();
if (compileCache.directory && !process.env['NODE_COMPILE_CACHE'])
  process.env['NODE_COMPILE_CACHE'] = compileCache.directory;

const { defaultConvertThreads, warmConversionThreads } = await import('@trawl/core/threads');
const { threadsToWarm } = await import('./cli/warm-threads.ts');

// The conversion threads load the converter (~0.4 s) while this thread loads the engine and the
// command, instead of after the first page was fetched. Static imports load before
// any code runs, so the rest comes in through dynamic imports.
const warm = threadsToWarm(process.argv.slice(2), process.env, defaultConvertThreads());
if (warm !== undefined) warmConversionThreads(warm);

const { closeBrowsers, closeWorkerPools } = await import('@trawl/core');
const { runCli } = await import('./cli/index.ts');
const { userDirectory } = await import('./cli/cwd.ts');

// After a full GC, V8 lets the old generation grow to up to four times what survived before it
// runs the next one. A crawl promotes the pages in flight (~1 MB a scavenge), so over a long
// `trawl crawl` the main thread's heap went from ~40–60 MB live to 230–340 MB between full GCs,
// most of the process's RSS. Growing by 100 % keeps it near twice the live set, for
// every isolate of the process (the conversion threads too). This is no cap: a huge page still
// gets all the heap it needs; only the next full GC comes sooner (each ~20–60 ms of CPU, against
// the thousands of scavenges of a crawl). V8 reads the flag at each GC, so setting it here, once
// the modules are loaded, is in time.
setFlagsFromString('--heap-growing-percent=100');

// `npm run -s trawl` in the checkout starts in the repository's root; relative paths (--out,
// parse <file>, the data folder ./.trawl) mean the folder the user ran it from.
const directory = userDirectory(process.env, process.cwd());
if (directory !== process.cwd()) process.chdir(directory);

/**
 * Settles once `stream` has written what it held back, or can write no more. Writes to a pipe are
 * asynchronous: without waiting here, a crawl read by a slower program (`| jq`, a loader)
 * buffered every page it had not read, ~40 KB each.
 */
function outputDrained(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done).off('close', done).off('error', done);
      resolve();
    };
    stream.on('drain', done).on('close', done).on('error', done);
  });
}

const interrupt = new AbortController();
// The first Ctrl-C lets a long command stop cleanly; a second one kills the process as usual.
process.once('SIGINT', () => interrupt.abort());
// A reader that went away (`trawl crawl … | head`) ends the command as Ctrl-C does, the job kept
// to resume, instead of a stack trace for the EPIPE of the next write.
process.stdout.on('error', () => interrupt.abort());

const exitCode = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  signal: interrupt.signal,
  stderrIsTTY: process.stderr.isTTY,
  stdoutBacklog: () =>
    process.stdout.writableNeedDrain ? outputDrained(process.stdout) : undefined,
});
// A command that rendered pages would otherwise wait for Chromium's idle timeout to exit; the
// conversion threads hold no process open, but their memory goes back at once.
await Promise.all([closeBrowsers(), closeWorkerPools()]);
// An interrupted crawl leaves pages in flight; its store already holds everything it needs to
// resume, so do not wait for them. (Node writes stdout and stderr synchronously to files, and on
// Linux to pipes and terminals too, so nothing already written is lost.)
// SIGTERM ends `trawl serve` and `trawl worker` the same way.
if (interrupt.signal.aborted || ['serve', 'worker'].includes(process.argv[2] ?? ''))
  process.exit(exitCode);
process.exitCode = exitCode;
