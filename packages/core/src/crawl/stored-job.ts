/**
 * A job as the store shows it, for a process that does not run it: an API process answering a
 * status request while a worker elsewhere owns the crawl. Opening one never starts
 * anything; its status and counters are what the owner last published (twice a second), and a
 * cancel is a request the owner acts on.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Document } from '../document.ts';
import type { Store } from '../interfaces/store.ts';
import { requestCancel } from '../jobs/cancels.ts';
import { JobState, type JobRecord } from './frontier.ts';
import { noProgress, readDocuments, RecordedJob, resultsPage } from './job-reading.ts';
import type { Job, JobSummary } from './types.ts';

/** How often a reader looks at the record again while it waits for the job to change. */
const pollMs = 250;
/** How long a cancel waits for the owner before it writes the final status itself. */
const cancelWaitMs = 2000;

/** A read-only view of a job kept in a store; emits no events (read the documents instead). */
export class StoredJob extends RecordedJob implements Job {
  #done: Promise<JobSummary> | undefined;

  constructor(store: Store, record: JobRecord) {
    super(new JobState(store, record));
  }

  get status(): Job['status'] {
    return this.state.record.status;
  }
  get progress(): Job['progress'] {
    const progress = this.state.record.progress ?? noProgress;
    return { ...progress, queued: progress.total - progress.completed };
  }
  /** Pages being scraped when the owner last published its counters. */
  get activePages(): number {
    return this.status === 'scraping' ? (this.state.record.activePages ?? 0) : 0;
  }
  /** Batch scrape: inputs skipped as invalid. */
  get invalidURLs(): string[] {
    return this.state.record.invalidURLs ?? [];
  }

  get done(): Promise<JobSummary> {
    this.#done ??= (async () => {
      while (this.status === 'scraping') {
        await sleep(pollMs * 2);
        await this.refresh();
      }
      const { record } = this.state;
      return {
        id: record.id,
        status: record.status,
        progress: this.progress,
        ...(record.error ? { error: record.error } : {}),
        ...(record.warning ? { warning: record.warning } : {}),
      };
    })();
    return this.#done;
  }

  /** Reads the record again (the owner publishes its counters twice a second). */
  async refresh(): Promise<void> {
    const record = await JobState.load(this.state.store, this.id);
    if (record) this.state.record = record;
  }

  /**
   * Asks the owner to stop and waits (at most two seconds) until it has; an owner that does not
   * answer (dead, its lease not yet expired) finds the job cancelled when it takes it over.
   */
  async cancel(): Promise<void> {
    if (this.status !== 'scraping') return;
    await requestCancel(this.state.store, this.id);
    const deadline = Date.now() + cancelWaitMs;
    while (Date.now() < deadline) {
      await sleep(pollMs / 2);
      await this.refresh();
      if (this.status !== 'scraping') return;
    }
    const { record } = this.state;
    record.status = 'cancelled';
    record.finishedAt = new Date().toISOString();
    await this.state.saveRecord();
  }

  errors(): ReturnType<Job['errors']> {
    return this.state.errors();
  }

  results(options: { skip?: number; limit?: number } = {}): ReturnType<Job['results']> {
    return resultsPage(this.state, options);
  }

  [Symbol.asyncIterator](): AsyncGenerator<Document> {
    return readDocuments(this.state, async () => {
      await this.refresh();
      return { changed: sleep(pollMs), final: this.status !== 'scraping' };
    });
  }
}

/** The job with this id as the store shows it, without running it; undefined when there is none. */
export async function openJob(id: string, store: Store): Promise<StoredJob | undefined> {
  const record = await JobState.load(store, id);
  return record ? new StoredJob(store, record) : undefined;
}
