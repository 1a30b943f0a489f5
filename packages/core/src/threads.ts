/**
 * @trawl/core/threads — starting the conversion threads before the engine is loaded. The
 * `trawl` command calls it first thing for commands that convert pages, so that the threads load
 * the converter while the command loads the rest (~0.4 s of every crawl or scrape).
 * Library users need none of it: the threads start on the first page.
 */
export { defaultConvertThreads } from './internal/cores.ts';
export { warmConversionThreads } from './scrape/conversion-threads.ts';
