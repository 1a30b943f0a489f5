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

describe('RecentDocuments', () => {
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
