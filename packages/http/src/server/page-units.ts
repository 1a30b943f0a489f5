/**
 * The page unit of a crawl or batch scrape, as a worker runs it: scrape one URL for
 * the job's owner, which may run in another process, and hand back what the scrape gave. A
 * cancel of the job, asked for in any process, aborts the pages of it running here within half
 * a second.
 */
import type { EngineConfig, Queue, QueueUnit, Store } from '@trawl/core';
import { CancelWatch, scrapeJobPage, type PageDispatch } from '@trawl/core/server';
import type { MeteredLlm } from '../process/services.ts';

/** Kind of the page units on the queue. */
export const pageUnitKind = 'page';

/** What a page unit carries. */
interface PageUnitData {
  jobId: string;
  team: string;
  url: string;
  options: Parameters<PageDispatch>[0]['options'];
}

/** A page of a server without an LLM: nothing to charge. */
export const unmeteredPage: MeteredLlm = {
  context: {},
  meter: { settle: () => Promise.resolve(0) },
};

/** The dispatch of one job's pages through the queue, for the job's owner. */
export function pageDispatch(queue: Queue, team: string): PageDispatch {
  return async (page, signal) => {
    const unit: QueueUnit<PageUnitData> = {
      kind: pageUnitKind,
      // Per queue entry: an owner that took the job over waits for the same unit, not a copy.
      id: `${page.jobId}-${page.seq}`,
      data: { jobId: page.jobId, team, url: page.url, options: page.options },
    };
    signal.throwIfAborted();
    // The listener goes with the page: a crawl's signal lives as long as the crawl.
    const settled = new AbortController();
    const aborted = new Promise<never>((_resolve, reject) => {
      const onAbort = () => reject(signal.reason as Error);
      signal.addEventListener('abort', onAbort, { once: true, signal: settled.signal });
    });
    try {
      return await Promise.race([queue.run<Awaited<ReturnType<PageDispatch>>>(unit), aborted]);
    } finally {
      settled.abort();
    }
  };
}

/** Runs page units in this process. */
export class PageUnitRunner {
  readonly #store: Store;
  readonly #config: EngineConfig;
  readonly #metered: (team: string, jobId: string) => MeteredLlm;
  /** A cancel of a job, asked for in any process, aborts its pages running here. */
  readonly #cancels: CancelWatch;

  constructor(
    store: Store,
    config: EngineConfig,
    metered: (team: string, jobId: string) => MeteredLlm,
  ) {
    this.#store = store;
    this.#config = config;
    this.#metered = metered;
    this.#cancels = new CancelWatch(store);
  }

  /** The queue handler of page units. */
  readonly run = async (unit: QueueUnit, signal: AbortSignal): Promise<unknown> => {
    const page = unit.data as PageUnitData;
    const cancel = this.#cancels.hold(page.jobId);
    const metered = this.#metered(page.team, page.jobId);
    try {
      const context = {
        ...metered.context,
        store: this.#store,
        config: this.#config,
        team: page.team,
      };
      return await scrapeJobPage(page, context, AbortSignal.any([signal, cancel.signal]));
    } finally {
      cancel.release();
      await metered.meter.settle();
    }
  };
}
