/**
 * Page conversion on the worker pool (scrape/convert-pool.ts), against the fixture
 * site: `convertThreads` decides where pages convert, a page converts the same on the pool as
 * inline, a page nested deeper than the cap converts flattened, and a page whose worker is
 * stopped fails alone while the pool goes on converting the others.
 */
import { describe, expect, inject, it, vi } from 'vitest';
import {
  batchScrape,
  closeWorkerPools,
  resolveEngineConfig,
  scrape,
  type Document,
  type ScrapeOptions,
} from '@trawl/core';
import { conversionPool } from '../../src/scrape/conversion-threads.js';

const site = inject('fixtureUrl');
const at = (path: string) => `${site}${path}`;
const oneThread = { config: resolveEngineConfig({ convertThreads: 1 }) };
const inline = { config: resolveEngineConfig({ convertThreads: 0 }) };

/** Tasks the pool of `threads` threads has answered so far. */
const completed = (threads: number) => conversionPool(threads)?.completed ?? 0;

/** A document without what differs between two scrapes of the same page. */
function comparable(document: Document): Document {
  const { scrapeId: _scrapeId, ...metadata } = document.metadata;
  return { ...document, metadata: metadata as Document['metadata'] };
}

describe('convertThreads', () => {
  it('converts pages on a pool of that many threads, and on the calling thread with 0', async () => {
    const before = completed(1);
    const document = await scrape(at('/articles/plain.html'), {}, oneThread);
    expect(document.markdown).toBeTruthy();
    expect(completed(1)).toBe(before + 1);

    const sizes = [1, 2, resolveEngineConfig().convertThreads];
    const pools = sizes.map(completed);
    await scrape(at('/articles/plain.html'), {}, inline);
    expect(sizes.map(completed)).toEqual(pools);
  });

  it('is validated: a negative number of threads is refused', () => {
    expect(() => resolveEngineConfig({ convertThreads: -1 })).toThrow(
      expect.objectContaining({ code: 'BAD_REQUEST' }),
    );
  });

  it('gives the same document on the pool as inline', async () => {
    const options: ScrapeOptions = { formats: ['markdown', 'html', 'links', 'images'] };
    // UTF-8 pages reach the pool as the bytes they were decoded from (a BOM, text past U+00FF),
    // others as their text encoded again.
    for (const path of [
      '/articles/plain.html',
      '/articles/heavy-boilerplate.html',
      '/tables.html',
      '/enc/utf8-bom.html',
      '/enc/utf8-none.html',
      '/enc/shift_jis-meta.html',
    ]) {
      const pooled = await scrape(at(path), options, oneThread);
      const local = await scrape(at(path), options, inline);
      expect(comparable(pooled)).toEqual(comparable(local));
    }
  });

  it('converts a page nested past the depth cap, flattened and marked, beside the others', async () => {
    // 20,000 nested elements overflowed the stack of every recursive walk of the tree; the
    // parser now flattens what lies deeper than the cap, as browsers do, and says so.
    const before = completed(1);
    const urls = [at('/deep.html?levels=20000'), at('/articles/plain.html'), at('/tables.html')];
    const job = batchScrape(urls, {}, oneThread);
    const documents: Document[] = [];
    for await (const document of job) documents.push(document);
    const summary = await job.done;
    expect(summary.status).toBe('completed');
    expect(documents.map((document) => document.metadata.sourceURL).sort()).toEqual(
      [...urls].sort(),
    );
    expect((await job.errors()).errors).toEqual([]);
    const deep = documents.find((document) => document.metadata.sourceURL === urls[0]);
    expect(deep?.markdown).toContain('bottom');
    expect(deep?.warning).toMatch(/nested more than 512 levels deep were flattened/);
    expect(completed(1)).toBe(before + 3);
  });

  it('fails only the page whose worker is stopped mid-conversion, and the pool replaces the worker', async () => {
    // Eight megabytes of markup take the converter far longer than the page's time budget; the
    // one worker of the pool is terminated at the deadline.
    const error = await scrape(at('/large?mb=8'), { timeout: 1000 }, oneThread).catch(
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ code: 'SCRAPE_TIMEOUT' });
    const before = completed(1);
    const document = await scrape(at('/articles/plain.html'), {}, oneThread);
    expect(document.markdown).toBeTruthy();
    expect(completed(1)).toBe(before + 1);
  });

  it('converts again a page held by a thread that is stopped for another page', async () => {
    // A conversion thread holds its next page while it converts one. Stopping the slow page at
    // its deadline ends the thread, and with it the page waiting behind it, which did nothing
    // wrong: that one is converted again on a fresh thread.
    const slow = scrape(at('/large?mb=8'), { timeout: 1000 }, oneThread).catch(
      (caught: unknown) => caught,
    );
    await vi.waitFor(() => expect(conversionPool(1)?.running).toBeGreaterThan(0), {
      timeout: 20_000,
      interval: 5,
    });
    const waiting = scrape(at('/articles/plain.html'), { timeout: 30_000 }, oneThread);
    expect(await slow).toMatchObject({ code: 'SCRAPE_TIMEOUT' });
    expect((await waiting).markdown).toBeTruthy();
  });

  it('finishes a page in this thread when the pool is closed during its conversion', async () => {
    // What `trawl crawl` does at Ctrl-C: the pools close while pages are converting. A page cut
    // off that way did not fail; reported as failed, it would be lost to a resumed crawl.
    const pending = scrape(at('/large?mb=2'), { timeout: 60_000 }, oneThread);
    await vi.waitFor(() => expect(conversionPool(1)?.running).toBeGreaterThan(0), {
      timeout: 20_000,
      interval: 5,
    });
    await closeWorkerPools();
    const document = await pending;
    expect(document.markdown).toContain('Harbor traffic log');
  });
});
