/**
 * The default number of conversion threads, shared by the engine's configuration and the
 * `trawl` command's early start of the threads (`@trawl/core/threads`), which runs before the
 * configuration is loaded.
 */
import { availableParallelism } from 'node:os';

/**
 * Conversion threads when nothing sets `convertThreads`: the cores less one, at least one. The
 * main thread keeps a core: a crawl keeps it about half busy with the store and the output.
 */
export function defaultConvertThreads(): number {
  return Math.max(1, availableParallelism() - 1);
}
