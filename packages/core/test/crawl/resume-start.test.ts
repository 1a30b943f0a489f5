/**
 * A crawl whose process died after taking the start page's queue number but before writing its
 * queue entry had nothing queued, and a restart left it `scraping` forever (`trawl serve`
 * killed right after accepting a crawl). Resumed, it must crawl from its start page and end.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore, resumeJob } from '@trawl/core';
import { submitJob } from '@trawl/core/server';
import { startArticleSite, type ArticleSite } from '../../../../test/fixture-site/article-site.ts';

let site: ArticleSite;
beforeAll(async () => {
  site = await startArticleSite(3);
});
afterAll(() => site.close());

describe('a crawl resumed before its start page was queued', () => {
  it('queues the start page again and completes', async () => {
    const store = new MemoryStore();
    const record = await submitJob(
      { kind: 'crawl', url: site.urls[0]!, options: { limit: 2 } },
      { store },
    );
    // Where the kill left it: the number taken and saved, no `q/` entry written.
    await store.set('jobs', record.id, { ...record, nextSeq: 1 });
    expect(await store.list(`job:${record.id}`, { prefix: 'q/' })).toEqual([]);

    const resumed = await resumeJob(record.id, { store });
    const summary = await resumed!.done;
    expect(summary.status).toBe('completed');
    const urls: string[] = [];
    for await (const document of resumed!) urls.push(document.metadata.sourceURL ?? '');
    expect(urls).toContain(site.urls[0]);
    expect(resumed!.progress.total).toBe(urls.length);
  });
});
