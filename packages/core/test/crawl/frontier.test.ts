/**
 * The job's store-side state (crawl/frontier.ts) writes a page's outcome, document and queue
 * removal in that order. On a store that keeps the order of writes started together
 * (`orderedWrites`, as SqliteStore does) it starts them together so that they share one commit
 *; on any other store it waits for each write before the next.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryStore, SqliteStore, type Document, type Store } from '@trawl/core';
import { JobState, type JobRecord, type QueueItem } from '../../src/crawl/frontier.js';
import { jsonAsStored } from '../../src/defaults/stored-json.js';

const directory = mkdtempSync(join(tmpdir(), 'trawl-frontier-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const record: JobRecord = {
  id: 'job-1',
  kind: 'crawl',
  url: 'https://example.com/',
  options: {},
  status: 'scraping',
  createdAt: new Date(0).toISOString(),
  seeded: true,
  nextSeq: 1,
};
const item: QueueItem = { seq: 0, url: 'https://example.com/', depth: 0, key: 'k' };
const document = { markdown: 'page', metadata: { sourceURL: item.url } } as Document;
const pageWrites = ['set d/000000000000', 'set r/000000000000', 'delete q/000000000000'];

/**
 * Watches a store's writes: `started` lists them as called, `beforeFirstSettled` how many had
 * been started when the first one settled.
 */
function watchWrites(store: Store): { started: string[]; beforeFirstSettled: () => number } {
  const started: string[] = [];
  let atFirstSettle = -1;
  const observe = <T>(description: string, write: Promise<T>): Promise<T> => {
    started.push(description);
    if (started.length === 1) {
      void write.finally(() => {
        atFirstSettle = started.length;
      });
    }
    return write;
  };
  const set = store.set.bind(store);
  const remove = store.delete.bind(store);
  store.set = (namespace, key, value, options) =>
    observe(`set ${key}`, set(namespace, key, value, options));
  store.delete = (namespace, key) => observe(`delete ${key}`, remove(namespace, key));
  return { started, beforeFirstSettled: () => atFirstSettle };
}

describe('JobState', () => {
  it('starts a page’s writes together, in order, on a store that keeps their order', async () => {
    const store = new SqliteStore({ path: join(directory, 'ordered.db') });
    try {
      const state = new JobState(store, { ...record });
      const writes = watchWrites(store);
      await state.storeDocument(item, 0, document, undefined);
      expect(writes.started).toEqual(pageWrites);
      expect(writes.beforeFirstSettled()).toBe(3);
      expect(await store.get(state.namespace, 'r/000000000000')).toEqual(document);
    } finally {
      await store.close();
    }
  });

  it('waits for each write before the next on a store that does not promise their order', async () => {
    const store = new MemoryStore();
    const state = new JobState(store, { ...record });
    const writes = watchWrites(store);
    await state.storeDocument(item, 0, document, undefined);
    expect(writes.started).toEqual(pageWrites);
    expect(writes.beforeFirstSettled()).toBe(1);
  });

  it('leaves the text it stored for a document to whoever prints it', async () => {
    // The CLI prints jsonAsStored(document): the store's own text, not a second serialisation.
    const store = new SqliteStore({ path: join(directory, 'printed.db') });
    try {
      const state = new JobState(store, { ...record });
      const page = { markdown: 'stored', metadata: { sourceURL: item.url } } as Document;
      await state.storeDocument(item, 0, page, undefined);
      page.markdown = 'changed after it was stored';
      expect(JSON.parse(jsonAsStored(page))).toEqual(
        await store.get(state.namespace, 'r/000000000000'),
      );
    } finally {
      await store.close();
    }
  });
});
