/**
 * zeroDataRetention against changeTracking, as an attacker checks it: a ZDR scrape must leave no
 * baseline behind (the next scrape of the page would otherwise say `same`, since the ZDR
 * scrape's time, so its markdown was kept), and must not be compared with one either.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { serveProcess, type KeyedServeProcess } from './serve-process.ts';

const fixture = inject('fixtureUrl');
let server: KeyedServeProcess;

beforeAll(async () => {
  server = await serveProcess();
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

const tracked = (url: string, zeroDataRetention: boolean) =>
  server.call('POST', '/v2/scrape', {
    url,
    formats: ['markdown', 'changeTracking'],
    zeroDataRetention,
    maxAge: 0,
  });

const trackingOf = (answer: { body: Record<string, unknown> }) =>
  (answer.body['data'] as { changeTracking: Record<string, unknown> }).changeTracking;

describe('changeTracking of zero-data-retention scrapes', () => {
  it('keeps no baseline of a ZDR scrape: the next scrape finds the page new', async () => {
    const url = `${fixture}/?zdr=${Date.now()}`;
    const secret = await tracked(url, true);
    expect(secret.status).toBe(200);
    expect(trackingOf(secret)).toMatchObject({ changeStatus: 'new', previousScrapeAt: null });
    const next = await tracked(url, false);
    expect(trackingOf(next)).toMatchObject({ changeStatus: 'new', previousScrapeAt: null });
  });

  it('does not compare a ZDR scrape with the baseline an ordinary scrape left', async () => {
    const url = `${fixture}/?zdr-read=${Date.now()}`;
    expect(trackingOf(await tracked(url, false))).toMatchObject({ changeStatus: 'new' });
    const secret = await tracked(url, true);
    expect(trackingOf(secret)).toMatchObject({ changeStatus: 'new', previousScrapeAt: null });
    // And the ordinary baseline is still there for ordinary scrapes.
    expect(trackingOf(await tracked(url, false))).toMatchObject({ changeStatus: 'same' });
  });
});
