/** Process entry of the `trawl` command. */
import { closeBrowsers, closeWorkerPools } from '@trawl/core';
import { runCli } from './cli/index.ts';
import { userDirectory } from './cli/cwd.ts';

// `npm run -s trawl` in the checkout starts in the repository's root; relative paths (--out,
// parse <file>, the data folder ./.trawl) mean the folder the user ran it from.
const directory = userDirectory(process.env, process.cwd());
if (directory !== process.cwd()) process.chdir(directory);

const interrupt = new AbortController();
// The first Ctrl-C lets a long command stop cleanly; a second one kills the process as usual.
process.once('SIGINT', () => interrupt.abort());

const exitCode = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  signal: interrupt.signal,
  stderrIsTTY: process.stderr.isTTY,
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
