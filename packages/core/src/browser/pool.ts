/**
 * The browser pool: one Chromium process at a time (playwright-core, launched from the Chromium
 * found on the machine), a fresh browser context per job so that no cookie or storage leaks from
 * one job to the next, and a bounded number of pages open at once.
 *
 * A context costs a few milliseconds, a browser half a second: the process is kept and recycled
 * (retired after `retireAfterPages` jobs, as crawlee's browser pool does, to bound the memory
 * Chromium accumulates), while contexts are per job. A browser that crashes or is killed is
 * replaced by the next job; the jobs that were running on it fail with FETCH_FAILED.
 */
import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { FetchError, TimeoutError, TrawlError } from '../errors.ts';
import { Semaphore } from '../internal/semaphore.ts';
import { findChromium, type ChromiumLookup } from './find-chromium.ts';
import { loadPlaywright } from './playwright.ts';

/**
 * Switches every Chromium of Trawl starts with: no sandbox (containers rarely allow
 * its namespaces), and no background traffic to Google services. A page's JavaScript heap is
 * capped as a conversion thread's is: a script that allocates without end took its
 * renderer to 4.7 GB, where it now crashes alone at 512 MB and the scrape fails with it.
 */
export const chromiumArgs: readonly string[] = [
  '--no-sandbox',
  '--js-flags=--max-old-space-size=512',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Options of a BrowserPool. */
export interface BrowserPoolOptions {
  /** How to find Chromium (configured path, candidate paths). */
  chromium?: ChromiumLookup;
  /**
   * Pages open at once across all jobs; more jobs wait for a free page.
   * @default 2 per CPU
   */
  maxPages?: number;
  /**
   * Jobs a browser serves before it is replaced by a fresh one.
   * @default 200
   */
  retireAfterPages?: number;
  /**
   * How long the browser stays up without any job before it is closed, in ms; 0 keeps it.
   * @default 10000
   */
  idleCloseMs?: number;
  /**
   * Longest wait for Chromium to start, in ms.
   * @default 30000
   */
  launchTimeoutMs?: number;
  /** More Chromium switches, after {@link chromiumArgs}. */
  extraArgs?: readonly string[];
}

/** Counters of a pool, for health checks and benchmarks. */
export interface BrowserPoolStats {
  /** Browsers running (a retiring one finishing its last jobs counts too). */
  browsers: number;
  /** Browsers started since the pool was made. */
  launches: number;
  /** Pages open right now. */
  pagesOpen: number;
  /** Jobs finished since the pool was made. */
  pagesServed: number;
  /** Jobs waiting for a free page. */
  waiting: number;
  maxPages: number;
}

interface RunningBrowser {
  browser: Browser;
  /** Jobs running on it. */
  active: number;
  /** Jobs it served. */
  served: number;
  /** No new jobs: it is closed when its last job ends. */
  retired: boolean;
  /** Closed by the pool (as opposed to crashed or killed). */
  closing: boolean;
  /** Resolves when Chromium is gone, whoever ended it. */
  disconnected: Promise<void>;
}

/** What a job gets: its own context and one page in it. */
export interface PooledPage {
  page: Page;
  context: BrowserContext;
}

/** Options of one job. */
export interface PageJobOptions {
  /** Cancels the wait for a page and the job. */
  signal?: AbortSignal | undefined;
  /** Longest wait for a free page, in ms; the job's own time is the caller's to bound. */
  waitTimeoutMs?: number | undefined;
}

/** A bounded pool of Chromium pages. Close it when done: `await pool.close()`. */
export class BrowserPool {
  /** Marks this pool's Chromium on the command line (`--trawl-pool=<id>`), for `ps` and tests. */
  readonly id = randomUUID();
  readonly maxPages: number;
  readonly #options: BrowserPoolOptions;
  readonly #retireAfterPages: number;
  readonly #idleCloseMs: number;
  #current: RunningBrowser | undefined;
  #launching: Promise<RunningBrowser> | undefined;
  readonly #running = new Set<RunningBrowser>();
  #launches = 0;
  #served = 0;
  readonly #slots: Semaphore;
  #idleTimer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: BrowserPoolOptions = {}) {
    this.#options = options;
    this.maxPages = options.maxPages ?? availableParallelism() * 2;
    this.#slots = new Semaphore(this.maxPages);
    this.#retireAfterPages = options.retireAfterPages ?? 200;
    this.#idleCloseMs = options.idleCloseMs ?? 10_000;
  }

  /** Counters right now. */
  get stats(): BrowserPoolStats {
    return {
      browsers: this.#running.size,
      launches: this.#launches,
      pagesOpen: this.#pagesOpen,
      pagesServed: this.#served,
      waiting: this.#slots.waiting,
      maxPages: this.maxPages,
    };
  }

  /**
   * Runs `work` with a page in a fresh context, closing the context afterwards whatever happens.
   *
   * @throws NOT_CONFIGURED when no Chromium is found; FETCH_FAILED when Chromium cannot start or
   * exits during the job; SCRAPE_TIMEOUT when no page frees up in time
   */
  async withPage<T>(
    contextOptions: BrowserContextOptions,
    work: (pooled: PooledPage) => Promise<T>,
    options: PageJobOptions = {},
  ): Promise<T> {
    if (this.#closed) throw new FetchError('The browser pool is closed', { retryable: false });
    await this.#acquireSlot(options);
    let running: RunningBrowser | undefined;
    let context: BrowserContext | undefined;
    try {
      running = await this.#browser();
      running.active++;
      try {
        context = await running.browser.newContext(contextOptions);
        const page = await context.newPage();
        // A dead browser fails the job at once, even where a Playwright call would wait on.
        const died = running.disconnected.then(() => {
          throw new Error('Browser has been closed (disconnected)');
        });
        died.catch(() => undefined);
        return await Promise.race([work({ page, context }), died]);
      } catch (error) {
        throw await this.#explain(error, running);
      }
    } finally {
      if (context) await context.close().catch(() => undefined);
      if (running) this.#jobEnded(running);
      this.#releaseSlot();
    }
  }

  /** Closes every browser and refuses new jobs. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#idleTimer);
    const launching = this.#launching;
    if (launching) await launching.catch(() => undefined);
    await Promise.all([...this.#running].map((running) => this.#shutDown(running)));
  }

  /** Starts Chromium now rather than on the first job (benchmarks, health checks). */
  async warmUp(): Promise<void> {
    await this.#browser();
    this.#scheduleIdleClose();
  }

  async #acquireSlot(options: PageJobOptions): Promise<void> {
    const signals = [options.signal].filter((signal) => signal !== undefined);
    if (options.waitTimeoutMs !== undefined && this.#slots.available === 0) {
      const message = `No browser page became free within ${options.waitTimeoutMs} ms (all ${this.maxPages} are busy): try later or raise the pool size`;
      const expiry = new AbortController();
      const timer = setTimeout(
        () => expiry.abort(new TimeoutError(message)),
        options.waitTimeoutMs,
      );
      timer.unref();
      signals.push(expiry.signal);
      try {
        await this.#waitForSlot(AbortSignal.any(signals));
      } finally {
        clearTimeout(timer);
      }
    } else {
      await this.#waitForSlot(signals.length > 0 ? AbortSignal.any(signals) : undefined);
    }
    clearTimeout(this.#idleTimer);
  }

  async #waitForSlot(signal: AbortSignal | undefined): Promise<void> {
    try {
      await this.#slots.acquire(signal);
    } catch (error) {
      if (signal?.aborted && !(signal.reason instanceof Error))
        throw new TimeoutError('Cancelled while waiting for a browser page');
      throw error;
    }
  }

  #releaseSlot(): void {
    this.#slots.release();
    this.#scheduleIdleClose();
  }

  /** Pages in use now. */
  get #pagesOpen(): number {
    return this.maxPages - this.#slots.available;
  }

  #scheduleIdleClose(): void {
    if (this.#pagesOpen > 0 || this.#idleCloseMs <= 0 || this.#closed) return;
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => {
      if (this.#pagesOpen > 0) return;
      for (const running of this.#running) void this.#shutDown(running);
    }, this.#idleCloseMs);
    // The timer alone must not keep a process alive that has nothing else to do.
    this.#idleTimer.unref();
  }

  /** The browser new jobs go to, launching one when there is none (one launch at a time). */
  async #browser(): Promise<RunningBrowser> {
    const current = this.#current;
    if (current && !current.retired && current.browser.isConnected()) return current;
    this.#launching ??= this.#launch().finally(() => (this.#launching = undefined));
    return this.#launching;
  }

  async #launch(): Promise<RunningBrowser> {
    const executablePath = findChromium(this.#options.chromium);
    let browser: Browser;
    try {
      const { chromium } = await loadPlaywright();
      browser = await chromium.launch({
        executablePath,
        args: [...chromiumArgs, ...(this.#options.extraArgs ?? []), `--trawl-pool=${this.id}`],
        timeout: this.#options.launchTimeoutMs ?? 30_000,
      });
    } catch (error) {
      throw new FetchError(
        `Chromium at ${executablePath} did not start: ${firstLine(error)}. Check that it runs (${executablePath} --headless --version) or point chromiumPath at another one`,
        { cause: error },
      );
    }
    this.#launches++;
    let markGone = () => undefined as void;
    const running: RunningBrowser = {
      browser,
      active: 0,
      served: 0,
      retired: false,
      closing: false,
      disconnected: new Promise<void>((resolve) => (markGone = resolve)),
    };
    browser.once('disconnected', () => {
      this.#running.delete(running);
      if (this.#current === running) this.#current = undefined;
      markGone();
    });
    this.#running.add(running);
    if (this.#closed) {
      await this.#shutDown(running);
      throw new FetchError('The browser pool is closed', { retryable: false });
    }
    this.#current = running;
    return running;
  }

  #jobEnded(running: RunningBrowser): void {
    running.active--;
    running.served++;
    this.#served++;
    if (running.served >= this.#retireAfterPages && !running.retired) {
      running.retired = true;
      if (this.#current === running) this.#current = undefined;
    }
    if (running.retired && running.active === 0) void this.#shutDown(running);
  }

  async #shutDown(running: RunningBrowser): Promise<void> {
    running.retired = true;
    running.closing = true;
    if (this.#current === running) this.#current = undefined;
    // Browser.close ends the process and waits for it; a dead browser resolves at once.
    await running.browser.close().catch(() => undefined);
    await running.disconnected;
  }

  /**
   * The error a job's failure should surface as: a browser that died under the job becomes a
   * clear FETCH_FAILED (the next job launches a new one); anything else is passed on.
   */
  async #explain(error: unknown, running: RunningBrowser): Promise<unknown> {
    if (error instanceof TrawlError) return error;
    const message = firstLine(error);
    if (!running.closing && /closed|crash|disconnected/i.test(message)) {
      // Playwright may reject the pending call a moment before it reports the disconnection.
      const gone = await Promise.race([
        running.disconnected.then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 1000).unref()),
      ]);
      if (gone) {
        return new FetchError(
          'Chromium exited during the job (it crashed or was killed); the job failed, and the next job starts a new browser',
          { cause: error },
        );
      }
      if (/crash/i.test(message)) {
        return new FetchError(
          'The page crashed in Chromium (out of memory, or a renderer fault); try again',
          { cause: error },
        );
      }
    }
    return error;
  }
}

/** The first line of an error's message (playwright appends call logs below it). */
export function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}
