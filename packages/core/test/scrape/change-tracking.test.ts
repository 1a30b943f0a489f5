/**
 * The `changeTracking` format of scrape(): each page compared with the last scrape of its URL
 * (per team and tag) in the call's store — new, same, changed with a git diff, removed — against
 * the live page, never the page cache.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore, scrape, type ScrapeOptions } from '@trawl/core';
import {
  startChangingSite,
  type ChangingSite,
} from '../../../../test/fixture-site/changing-site.ts';

let site: ChangingSite;
beforeAll(async () => {
  site = await startChangingSite();
});
afterAll(() => site.close());

const tracked = (tag?: string, modes: ('git-diff' | 'json')[] = ['git-diff']): ScrapeOptions => ({
  formats: ['markdown', { type: 'changeTracking', modes, ...(tag ? { tag } : {}) }],
});

describe('changeTracking', () => {
  it('says new, then same, then changed with a git diff, then removed when the page is gone', async () => {
    const store = new MemoryStore();
    site.set('/tracked', { title: 'Tracked', text: 'Price: 10 EUR' });
    const url = `${site.url}/tracked`;
    const first = await scrape(url, tracked(), { store });
    expect(first.changeTracking).toEqual({
      previousScrapeAt: null,
      changeStatus: 'new',
      visibility: 'visible',
    });
    const second = await scrape(url, tracked(), { store });
    expect(second.changeTracking).toMatchObject({ changeStatus: 'same' });
    expect(Date.parse(String(second.changeTracking?.['previousScrapeAt']))).not.toBeNaN();
    // The page cache would answer the same copy: changeTracking looks at the live page.
    site.set('/tracked', { title: 'Tracked', text: 'Price: 12 EUR' });
    const third = await scrape(url, tracked(), { store });
    expect(third.metadata.cacheState).not.toBe('hit');
    expect(third.changeTracking).toMatchObject({
      changeStatus: 'changed',
      diff: {
        text: expect.stringContaining('+Price: 12 EUR') as unknown,
        json: { files: [expect.objectContaining({ chunks: expect.any(Array) as unknown })] },
      },
    });
    site.remove('/tracked');
    const gone = await scrape(url, tracked(), { store });
    expect(gone.changeTracking).toMatchObject({ changeStatus: 'removed' });
    await store.close();
  });

  it('gives no diff without the git-diff mode, and keeps tags and teams apart', async () => {
    const store = new MemoryStore();
    site.set('/tagged', { title: 'Tagged', text: 'v1' });
    const url = `${site.url}/tagged`;
    await scrape(url, tracked('a', []), { store });
    site.set('/tagged', { title: 'Tagged', text: 'v2' });
    const changed = await scrape(url, tracked('a', []), { store });
    expect(changed.changeTracking).toMatchObject({ changeStatus: 'changed' });
    expect(changed.changeTracking?.['diff']).toBeUndefined();
    expect((await scrape(url, tracked('b'), { store })).changeTracking).toMatchObject({
      changeStatus: 'new',
    });
    expect(
      (await scrape(url, tracked('a'), { store, team: 'other-team' })).changeTracking,
    ).toMatchObject({ changeStatus: 'new' });
    await store.close();
  });

  it('treats every page as new without a store, and says why', async () => {
    site.set('/storeless', { title: 'No store', text: 'x' });
    const doc = await scrape(`${site.url}/storeless`, tracked());
    expect(doc.changeTracking).toMatchObject({ changeStatus: 'new', previousScrapeAt: null });
    expect(doc.warning).toMatch(/without one every page is new/);
  });

  it('refuses a changeTracking format with a bad mode', async () => {
    await expect(
      scrape(`${site.url}/x`, {
        formats: ['markdown', { type: 'changeTracking', modes: ['word-diff'] } as never],
      }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });
});
