/**
 * Two owners of one job can overlap for a moment in a shared store: the one that lost the job's
 * lease stores what it had in hand before it notices. Each result slot is claimed in the store
 * first, so the new owner never writes a document over one the old owner stored there (a page
 * lost with no error). Real Redis on 127.0.0.1:6379, the fixture article site on 127.0.0.1.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resumeJob, type Document } from '@trawl/core';
import { submitJob } from '@trawl/core/server';
import { RedisStore } from '@trawl/adapters';
import { startArticleSite, type ArticleSite } from '../../../../test/fixture-site/article-site.ts';

const prefix = `trawl_test_slots_${randomUUID()}`;
let store: RedisStore;
let site: ArticleSite;
beforeAll(async () => {
  store = new RedisStore({ url: 'redis://127.0.0.1:6379', prefix });
  site = await startArticleSite(6);
});
afterAll(async () => {
  await site.close();
  await store.close();
});

describe('result slots of a job in a shared store', () => {
  it('are claimed before they are written: a slot another owner took is left to it', async () => {
    const urls = site.urls.slice(1, 5);
    const record = await submitJob({ kind: 'batch', urls, options: {} }, { store });
    const namespace = `job:${record.id}`;
    // The other owner's claim on the first slot, its document not written yet.
    expect(await store.claim(namespace, `o/${'0'.padStart(12, '0')}`, 'other', 60_000)).toBe(true);

    const job = await resumeJob(record.id, { store });
    expect((await job!.done).status).toBe('completed');
    const slots = await store.list<Document>(namespace, { prefix: 'r/' });
    expect(slots.map((slot) => slot.key)).not.toContain(`r/${'0'.padStart(12, '0')}`);
    expect(slots.map((slot) => slot.value.metadata.sourceURL).sort()).toEqual([...urls].sort());
    await store.clear(namespace);
  });
});
