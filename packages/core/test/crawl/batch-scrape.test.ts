/**
 * batchScrape(): a list of URLs as one job, against the fixture site — every valid URL once,
 * invalid ones reported, page options applied, concurrency bounded, the job shape of a crawl.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { batchScrape, resumeJob, SqliteStore, TrawlError, type Document } from '@trawl/core';

const site = inject('fixtureUrl');
const at = (path: string) => `${site}${path}`;

async function collect(job: AsyncIterable<Document>): Promise<Document[]> {
  const documents: Document[] = [];
  for await (const document of job) documents.push(document);
  return documents;
}

describe('batchScrape', () => {
  it('scrapes every URL once, keeps error statuses as documents and lists invalid URLs', async () => {
    const urls = [at('/articles/plain.html'), at('/tables.html'), at('/status/404'), 'not a url'];
    const job = batchScrape(urls, { formats: ['markdown', 'links'] });
    expect(job.invalidURLs).toEqual(['not a url']);
    const documents = await collect(job);
    const summary = await job.done;
    expect(summary.status).toBe('completed');
    expect(documents.map((doc) => doc.metadata.sourceURL).sort()).toEqual(urls.slice(0, 3).sort());
    const notFound = documents.find((doc) => doc.metadata.sourceURL === at('/status/404'));
    expect(notFound?.metadata.statusCode).toBe(404);
    expect(documents.every((doc) => doc.links !== undefined && doc.markdown !== undefined)).toBe(
      true,
    );
    expect(summary.progress).toMatchObject({ total: 3, completed: 3, scraped: 3, failed: 0 });
  });

  it('applies the page options to every URL', async () => {
    const job = batchScrape([at('/articles/plain.html'), at('/tables.html')], {
      formats: ['html'],
      onlyMainContent: false,
    });
    const documents = await collect(job);
    expect(documents).toHaveLength(2);
    for (const doc of documents) {
      expect(doc.html).toBeDefined();
      expect(doc.markdown).toBeUndefined();
    }
  });

  it('records fetch failures per URL and finishes', async () => {
    const job = batchScrape([at('/articles/plain.html'), 'http://127.0.0.1:1/refused'], {
      timeout: 5000,
    });
    const documents = await collect(job);
    expect(documents.map((doc) => doc.metadata.sourceURL)).toEqual([at('/articles/plain.html')]);
    const { errors } = await job.errors();
    expect(errors).toMatchObject([
      { url: 'http://127.0.0.1:1/refused', code: 'SCRAPE_CONNECTION_REFUSED' },
    ]);
    expect((await job.done).progress).toMatchObject({ total: 2, completed: 2, failed: 1 });
  });

  it('refuses invalid URLs when ignoreInvalidURLs is false, and bad options, before starting', () => {
    expect(() => batchScrape(['nope'], { ignoreInvalidURLs: false })).toThrow(TrawlError);
    try {
      batchScrape([at('/')], { formats: ['markdown'], maxConcurrency: 0 });
      expect.unreachable();
    } catch (error) {
      expect((error as TrawlError).code).toBe('BAD_REQUEST');
    }
    expect(() => batchScrape(['nope'])).toThrow(/at least one valid URL/);
  });

  it('keeps to maxConcurrency', async () => {
    // Each /slow page answers after 150 ms; one at a time, three cannot finish in under 450 ms
    // (a lower bound, which no slow machine can break).
    const urls = [1, 2, 3].map((n) => at(`/slow?ms=150&n=${n}`));
    const job = batchScrape(urls, { maxConcurrency: 1, maxAge: 0 });
    const started = Date.now();
    await collect(job);
    expect(Date.now() - started).toBeGreaterThanOrEqual(3 * 150);
  });

  it('reads back from the store after the process that ran it is gone', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'trawl-batch-')), 'store.sqlite');
    const store = new SqliteStore({ path });
    const job = batchScrape([at('/articles/plain.html'), at('/tables.html')], {}, { store });
    await job.done;
    await store.close();
    const reopened = new SqliteStore({ path });
    const again = await resumeJob(job.id, { store: reopened });
    expect(again?.status).toBe('completed');
    const page = await again?.results();
    expect(page?.data.map((doc) => doc.metadata.sourceURL).sort()).toEqual(
      [at('/articles/plain.html'), at('/tables.html')].sort(),
    );
    await reopened.close();
  });
});
