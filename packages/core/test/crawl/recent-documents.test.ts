/**
 * The in-memory hand-over of just-stored documents to a job's iterator (crawl/recent-documents.ts):
 * it must only ever give a consecutive run starting where the reader is, so that a gap (a page
 * still being stored) sends the reader to the store rather than past the missing document.
 */
import { describe, expect, it } from 'vitest';
import { MemoryStore, type Document } from '@trawl/core';
import { JobState } from '../../src/crawl/frontier.js';
import { readDocuments } from '../../src/crawl/job-reading.js';
import { RecentDocuments } from '../../src/crawl/recent-documents.js';

const doc = (n: number) =>
  ({ markdown: `page ${n}`, metadata: { sourceURL: `u${n}` } }) as Document;

const record = (status: 'scraping' | 'completed') => ({
  id: 'job-1',
  kind: 'crawl' as const,
  url: 'https://example.com/',
  options: {},
  status,
  createdAt: new Date(0).toISOString(),
  seeded: true,
  nextSeq: 3,
});

/** A job state whose store holds `stored` and counts how often the reader lists it. */
class CountingState extends JobState {
  reads = 0;
  readonly stored: number[];
  constructor(stored: number[]) {
    super(new MemoryStore(), record('scraping'));
    this.stored = stored;
  }
  override documents(from: number, limit: number) {
    this.reads += 1;
    const found = this.stored.filter((n) => n >= from).slice(0, limit);
    return Promise.resolve(found.map((ordinal) => ({ ordinal, document: doc(ordinal) })));
  }
}

/** A `look()` the test drives: `change()` wakes the reader, `end()` makes the job final. */
function drivenLook() {
  let wake: () => void = () => undefined;
  let changed = new Promise<void>((resolve) => (wake = resolve));
  let final = false;
  return {
    look: () => ({ changed, final }),
    change: () => {
      const previous = wake;
      changed = new Promise<void>((resolve) => (wake = resolve));
      previous();
    },
    end: () => {
      final = true;
      wake();
    },
  };
}

/** Starts an iterator over the job, collecting the markdown of what it yields into `taken`. */
function startReading(state: JobState, recent: RecentDocuments) {
  const driven = drivenLook();
  const taken: string[] = [];
  const reading = (async () => {
    for await (const document of readDocuments(state, driven.look, recent))
      taken.push(document.markdown ?? '');
  })();
  return { driven, taken, reading };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('RecentDocuments', () => {
  it('knows which ordinals are still to come, and nothing before the first', () => {
    const recent = new RecentDocuments(10);
    expect(recent.isAhead(0)).toBe(false);
    recent.remember(3, doc(3));
    expect(recent.isAhead(3)).toBe(false);
    expect(recent.isAhead(4)).toBe(true);
    recent.release(3);
    expect(recent.isAhead(4)).toBe(true);
  });

  it('in a shared store, where another owner may fill slots, nothing counts as still to come', () => {
    const recent = new RecentDocuments(10, { onlyWriter: false });
    recent.remember(3, doc(3));
    expect(recent.isAhead(4)).toBe(false);
  });

  it('a reader that caught up waits for the next document instead of reading the store', async () => {
    const recent = new RecentDocuments(10);
    recent.remember(0, doc(0));
    // Document 1 is committed but not yet remembered: the reader must not parse it from the store.
    const state = new CountingState([0, 1]);
    const { driven, taken, reading } = startReading(state, recent);
    await tick();
    expect(taken).toEqual(['page 0']);
    expect(state.reads).toBe(0);
    recent.remember(1, doc(1));
    driven.change();
    await tick();
    expect(taken).toEqual(['page 0', 'page 1']);
    expect(state.reads).toBe(0);
    driven.end();
    await reading;
    // Once final, the store is read for anything this process did not hand over.
    expect(state.reads).toBe(1);
  });

  it('reads the store past a gap, and for pages stored before the job remembered any', async () => {
    const recent = new RecentDocuments(10);
    // 0 and 1 come from an earlier run; 2 was lost with a failed write; 3 is this run's.
    recent.remember(3, doc(3));
    const state = new CountingState([0, 1, 3]);
    const { driven, taken, reading } = startReading(state, recent);
    await tick();
    expect(taken).toEqual(['page 0', 'page 1', 'page 3']);
    driven.end();
    await reading;
  });

  it('gives the consecutive documents from the reader position, and stops at a gap', () => {
    const recent = new RecentDocuments(10);
    for (const n of [0, 1, 2, 4]) recent.remember(n, doc(n));
    expect(recent.from(0, 50).map((entry) => entry.ordinal)).toEqual([0, 1, 2]);
    expect(recent.from(3, 50)).toEqual([]);
    expect(recent.from(1, 1)).toEqual([{ ordinal: 1, document: doc(1) }]);
  });

  it('keeps only the latest documents up to its limit', () => {
    const recent = new RecentDocuments(3);
    for (let n = 0; n < 6; n++) recent.remember(n, doc(n));
    expect(recent.from(0, 50)).toEqual([]);
    expect(recent.from(3, 50).map((entry) => entry.ordinal)).toEqual([3, 4, 5]);
  });

  it('lets go of each document once the reader has taken it, so it does not outlive its page', async () => {
    const recent = new RecentDocuments(10);
    for (const n of [0, 1, 2]) recent.remember(n, doc(n));
    const state = new JobState(new MemoryStore(), {
      id: 'job-1',
      kind: 'crawl',
      url: 'https://example.com/',
      options: {},
      status: 'completed',
      createdAt: new Date(0).toISOString(),
      seeded: true,
      nextSeq: 3,
    });
    const look = () => ({ changed: Promise.resolve(), final: true });
    const taken: string[] = [];
    for await (const document of readDocuments(state, look, recent)) {
      taken.push(document.markdown ?? '');
      // The one just handed over is gone; the ones after it wait for the reader.
      expect(recent.from(taken.length - 1, 50)).toEqual([]);
      expect(recent.from(taken.length, 50)).toHaveLength(3 - taken.length);
    }
    expect(taken).toEqual(['page 0', 'page 1', 'page 2']);
  });
});
