/**
 * Which conversion threads a command will use, guessed before its configuration is loaded, so
 * that `bin.ts` can start them while the command loads (~0.4 s of every crawl and
 * scrape went to threads starting only once the first page was fetched). The guess reads what
 * the configuration reads first, TRAWL_CONVERT_THREADS, then the command's default; a config
 * file that sets another size leaves one pool started for nothing, which costs a thread's
 * start-up and ends with the command.
 */
import { availableParallelism } from 'node:os';

/** Commands whose work is converting pages; the others never start a conversion thread. */
const convertingCommands = new Set(['scrape', 'crawl', 'batch', 'serve']);

/** The pool size to start for `argv` (without node and script), or undefined for none. */
export function threadsToWarm(
  argv: readonly string[],
  env: Record<string, string | undefined>,
  defaultThreads: number,
): number | undefined {
  const [command, ...rest] = argv;
  if (!command || !convertingCommands.has(command)) return undefined;
  if (rest.includes('--help') || rest.includes('-h')) return undefined;
  const fromEnv = env['TRAWL_CONVERT_THREADS']?.trim();
  if (fromEnv) {
    const threads = Number(fromEnv);
    return Number.isInteger(threads) && threads > 0 && threads <= 256 ? threads : undefined;
  }
  return command === 'serve' ? servedConvertThreads() : defaultThreads;
}

/**
 * Conversion threads of `trawl serve`: one per core. A server's main thread spends about half
 * its time waiting on sockets (measured under full load), so the pool gets a thread per core
 * rather than the cores less one: on 2 cores, `POST /v2/scrape` answered 66–69 requests/s
 * against 51–54 with one thread, p99 ~0.4 s against ~2 s (bench/README.md). A crawl's
 * main thread is busier (store, output) and keeps the general default.
 */
export function servedConvertThreads(): number {
  return availableParallelism();
}
