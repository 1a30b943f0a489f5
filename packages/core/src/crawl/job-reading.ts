/**
 * Reading a job back from the store (its record, progress and documents), the same for the
 * process that runs the job and for any other that only reads it (a status request answered by
 * an API process).
 */
import { EventEmitter } from 'node:events';
import type { Document } from '../document.ts';
import type { JobState } from './frontier.ts';
import type { RecentDocuments } from './recent-documents.ts';
import type { JobEvents, JobKind, JobProgress, JobResultsPage } from './types.ts';

/** What every job object (the runner, a stored view) reads straight from the job's record. */
export abstract class RecordedJob extends EventEmitter<JobEvents> {
  readonly state: JobState;

  constructor(state: JobState) {
    super();
    this.state = state;
  }

  get id(): string {
    return this.state.record.id;
  }
  get kind(): JobKind {
    return this.state.record.kind;
  }
  get url(): string {
    return this.state.record.url;
  }
}

/** The progress of a job that has done nothing yet: where a runner's counters start. */
export const noProgress: Readonly<JobProgress> = Object.freeze({
  total: 0,
  completed: 0,
  scraped: 0,
  failed: 0,
  queued: 0,
  discovered: 0,
  robotsBlocked: 0,
});

/**
 * Stored documents from ordinal `skip`, at most `limit`, and where the next page starts when
 * more are stored. Ordinals can have gaps (a page half-stored before a kill is stored again in a
 * new slot), so whether more follow is read, one entry past the page, not counted.
 */
export async function resultsPage(
  state: JobState,
  options: { skip?: number; limit?: number },
): Promise<JobResultsPage> {
  const limit = options.limit ?? 100;
  const entries = await state.documents(options.skip ?? 0, limit + 1);
  const page = entries.slice(0, limit);
  const nextSkip = entries.length > limit ? page.at(-1)!.ordinal + 1 : undefined;
  return { data: page.map((entry) => entry.document), nextSkip };
}

/**
 * Every document of the job in completion order, waiting for more until the job is final.
 * `look()` is read before each store read: whether the job was final then, and a promise that
 * settles when something may have changed. The process running the job passes the documents it
 * stored last (`recent`), so a reader that keeps up takes them from memory.
 */
export async function* readDocuments(
  state: JobState,
  look: () =>
    | { changed: Promise<void>; final: boolean }
    | Promise<{ changed: Promise<void>; final: boolean }>,
  recent?: RecentDocuments,
): AsyncGenerator<Document> {
  const deleteOnRead = (state.record.options as { zeroDataRetention?: boolean }).zeroDataRetention;
  let next = 0;
  for (;;) {
    const { changed, final } = await look();
    const kept = recent?.from(next, 50) ?? [];
    // Only a final job, or one whose next document will not come through `recent`, is read
    // from the store: another owner's slots and a resumed job's earlier pages are there only.
    const fromStore = kept.length === 0 && (final || !recent?.isAhead(next));
    const entries = fromStore ? await state.documents(next, 50) : kept;
    for (const entry of entries) {
      if (kept.length > 0) recent?.release(entry.ordinal);
      yield entry.document;
      if (deleteOnRead) await state.deleteDocument(entry.ordinal);
      next = entry.ordinal + 1;
    }
    if (entries.length > 0) continue;
    if (final) return;
    await changed;
  }
}
