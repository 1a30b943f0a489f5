/**
 * GET /v2/team/queue-status (the SDK's getQueueStatus) on the embedded queue: the team's pages
 * waiting and being scraped over its running jobs, the limit, and when a job last completed.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MemoryStore, resolveEngineConfig } from '@trawl/core';
import { ApiKeys, buildServer } from '@trawl/http';
import { startArticleSite, type ArticleSite } from '../../../test/fixture-site/article-site.ts';

const key = 'fc-queue-key';
const otherKey = 'fc-queue-other';
let site: ArticleSite;
beforeAll(async () => {
  // Slow pages keep a crawl's queue full while the test looks at it.
  site = await startArticleSite(200, 200);
});
afterAll(() => site.close());

describe('GET /v2/team/queue-status', () => {
  it("counts the team's queued and active pages, and only the team's", async () => {
    const app = buildServer({
      store: new MemoryStore(),
      config: resolveEngineConfig({ allowPrivateAddresses: true }),
      keys: ApiKeys.parse(`team-q:${key},team-o:${otherKey}`),
      logLevel: 'silent',
      limits: { teamConcurrency: 7 },
    });
    const call = (method: 'GET' | 'POST', url: string, payload?: object, bearer = key) =>
      app.inject({
        method,
        url,
        ...(payload ? { payload } : {}),
        headers: { authorization: `Bearer ${bearer}` },
      });
    try {
      const idle = (await call('GET', '/v2/team/queue-status')).json<Record<string, unknown>>();
      expect(idle).toEqual({
        success: true,
        jobsInQueue: 0,
        activeJobsInQueue: 0,
        waitingJobsInQueue: 0,
        maxConcurrency: 7,
        mostRecentSuccess: null,
      });
      const started = await call('POST', '/v2/crawl', {
        url: `${site.url}/`,
        limit: 60,
        maxConcurrency: 3,
      });
      const id = started.json<{ id: string }>().id;
      await vi.waitFor(
        async () => {
          const status = (await call('GET', '/v2/team/queue-status')).json<
            Record<string, number>
          >();
          expect(status['activeJobsInQueue']).toBe(3);
          expect(status['waitingJobsInQueue']).toBeGreaterThan(0);
          expect(status['jobsInQueue']).toBe(
            (status['activeJobsInQueue'] ?? 0) + (status['waitingJobsInQueue'] ?? 0),
          );
        },
        { timeout: 20_000, interval: 50 },
      );
      const other = await call('GET', '/v2/team/queue-status', undefined, otherKey);
      expect(other.json()).toMatchObject({ jobsInQueue: 0 });
      await vi.waitFor(
        async () =>
          expect((await call('GET', `/v2/crawl/${id}`)).json()).toMatchObject({
            status: 'completed',
          }),
        { timeout: 60_000, interval: 200 },
      );
      const done = (await call('GET', '/v2/team/queue-status')).json<Record<string, unknown>>();
      expect(done).toMatchObject({ jobsInQueue: 0 });
      expect(Date.parse(String(done['mostRecentSuccess']))).not.toBeNaN();
    } finally {
      await app.close();
    }
  }, 90_000);
});
