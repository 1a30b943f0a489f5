/**
 * A job resumed after its process died between a page's outcome marker and its document (the
 * slot the marker names is empty) scrapes that page again, and every reader of the job gets it:
 * the iterator of the resumed job, which reads the stored documents from the start, must not
 * have passed the page's slot before the page is stored again (the CLI's `--resume` lost such a
 * page now and then), and so must a reader paging through the results.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchScrape, MemoryStore, resumeJob, type Document } from '@trawl/core';
import { startArticleSite, type ArticleSite } from '../../../../test/fixture-site/article-site.ts';

let site: ArticleSite;
beforeAll(async () => {
  site = await startArticleSite(12);
});
afterAll(() => site.close());

const pad = (n: number) => n.toString().padStart(12, '0');

describe('a job resumed with a half-stored page', () => {
  it('gives every page to the resumed iterator exactly once, the re-scraped one included', async () => {
    const store = new MemoryStore();
    const urls = site.urls.slice(1, 11);
    const first = batchScrape(urls, {}, { store });
    await first.done;
    const namespace = `job:${first.id}`;
    // Undo the end of one page in the middle, as a kill between its writes leaves it: the
    // marker names slot 4, the slot is empty, the queue entry is still there.
    const markers = await store.list<{ kind: string; ordinal?: number }>(namespace, {
      prefix: 'd/',
    });
    const cut = markers.find((entry) => entry.value.ordinal === 4);
    expect(cut).toBeDefined();
    const seq = Number(cut!.key.slice(2));
    const lost = await store.get<Document>(namespace, `r/${pad(4)}`);
    await store.delete(namespace, `r/${pad(4)}`);
    await store.set(namespace, `q/${pad(seq)}`, {
      seq,
      url: lost!.metadata.sourceURL,
      depth: 0,
      key: '',
    });
    const record = await store.get<Record<string, unknown>>('jobs', first.id);
    await store.set('jobs', first.id, { ...record, status: 'scraping', progress: undefined });

    const resumed = await resumeJob(first.id, { store });
    const seen: string[] = [];
    for await (const document of resumed!) seen.push(document.metadata.sourceURL ?? '');
    expect(seen).toHaveLength(new Set(seen).size);
    expect(seen.sort()).toEqual([...urls].sort());
    expect((await resumed!.done).status).toBe('completed');

    // The empty slot stays a gap among the ordinals: paging on past it still reaches the page
    // stored last (the status pages of a split deployment left it out).
    const paged: string[] = [];
    for (let skip: number | undefined = 0; skip !== undefined;) {
      const page = await resumed!.results({ skip, limit: 3 });
      paged.push(...page.data.map((document) => document.metadata.sourceURL ?? ''));
      skip = page.nextSkip;
    }
    expect(paged.sort()).toEqual([...urls].sort());
  });
});
