/**
 * The conversion threads themselves (convert-pool.ts converts pages on them): one pool per size,
 * shared by scrape, batch scrape, crawl and the server, and the default size. Kept apart from
 * the converter so that a command can start the threads before it loads the rest of the engine:
 * a thread takes ~0.4 s to load the converter, which the `trawl` command otherwise waited for
 * after its own start-up, on every crawl and scrape.
 */
import { WorkerPool } from '../internal/worker-pool.ts';

/**
 * A page's heap: a 20 MB page (the default body limit) of dense markup builds a tree of a few
 * hundred MB; more than this is refused rather than let grow.
 */
const maxHeapMb = 512;
/**
 * Conversion allocates much and keeps little, but more than 8 MB a page: with semi-spaces of
 * 8 MB (a 24 MB young generation) a page's tree outlived two scavenges mid-conversion and was
 * promoted, and the thread ran a full GC every ~35 pages, after which V8 compiled its per-call
 * closures again (62 full GCs and ~18 % more CPU in a 2,000-page crawl). 48 MB gives 16 MB
 * semi-spaces: 3 full GCs. A process-wide --max-semi-space-size takes precedence
 * (the trawl command sets 16).
 */
const maxYoungMb = 48;
/**
 * A conversion thread holds its next page while it converts one: between two pages it would
 * otherwise wait for the crawl's thread, busy with the store (a SQLite commit, the search index),
 * to hand the next one over — a fifth of its time in a profiled crawl.
 */
const pagesPerThread = 2;

// The worker module sits beside this one, as .ts in the sources and .js once built.
const workerModule = new URL(
  `./convert-worker.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`,
  import.meta.url,
);

const pools = new Map<number, WorkerPool>();

/** The shared conversion pool of `threads` threads; undefined for 0 (convert inline). */
export function conversionPool(threads: number): WorkerPool | undefined {
  if (threads <= 0) return undefined;
  let pool = pools.get(threads);
  if (!pool) {
    pool = new WorkerPool({
      module: workerModule,
      what: 'Converting the page',
      maxHeapMb,
      maxYoungMb,
      threads,
      tasksPerThread: pagesPerThread,
    });
    pools.set(threads, pool);
  }
  return pool;
}

/**
 * Starts the pool of `threads` threads loading the converter, so that the first page finds it
 * ready. A pool of the wrong size only costs a thread's start-up, and `closeWorkerPools()` ends it.
 */
export function warmConversionThreads(threads: number): void {
  void conversionPool(threads)?.usable();
}
