/**
 * What the hostile-site tests share: a real `trawl serve` (its own process, its memory read from
 * /proc) and the hostile site in a process of its own, each attack watched while `/health` is
 * probed, and after each test the server's peak memory checked (under 1 GB) and another team's
 * ordinary scrape served. Registers its own hooks; call it once at the top of a test file.
 */
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { startHostileSiteProcess, type HostileSite } from '../fixture-site/hostile-site.ts';
import { serveProcess, type KeyedServeProcess } from './serve-process.ts';

const MiB = 1024 * 1024;
const otherTeamKey = 'fc-other-team';

export interface HostileHarness {
  server: () => KeyedServeProcess;
  site: () => HostileSite;
  /** A scrape of `path` on the hostile site; fails if `/health` took 1 s or more meanwhile. */
  scrapeWatched: (
    path: string,
    options?: Record<string, unknown>,
  ) => Promise<{ status: number; body: Record<string, unknown> }>;
  /** A crawl, polled to its end; fails if `/health` took 1 s or more meanwhile. */
  crawlWatched: (
    body: Record<string, unknown>,
    within?: number,
  ) => Promise<{ id: string; status: Record<string, unknown> }>;
}

/**
 * `warmBrowser`: one ordinary page through the browser first, as the converter is warmed below:
 * loading Playwright's bundle is seconds of the request thread once per process on a loaded
 * machine, start-up rather than the attack.
 */
export function hostileHarness(
  options: { env?: Record<string, string>; warmBrowser?: boolean } = {},
): HostileHarness {
  const env = options.env ?? {};
  let site: HostileSite;
  let server: KeyedServeProcess;
  beforeAll(async () => {
    // In a process of its own: building its bodies would otherwise delay this one's probes.
    site = await startHostileSiteProcess();
    server = await serveProcess({
      TRAWL_API_KEYS: `fc-security-test,other:${otherTeamKey}`,
      ...env,
    });
    // One friendly page first: the first request loads the converter and its threads, which is
    // start-up, not the attack.
    await server.call('POST', '/v2/scrape', { url: `${site.url}/friendly` }, 60_000);
    if (options.warmBrowser) {
      const warm = { url: `${site.url}/friendly`, waitFor: 1, blockAds: false };
      await server.call('POST', '/v2/scrape', warm, 60_000);
    }
  }, 120_000);
  afterAll(async () => {
    await server?.kill();
    await site?.close();
  });
  afterEach(async () => {
    expect(server.peakRss()).toBeLessThan(1024 * MiB);
    // Another team, on an ordinary page: served normally.
    const response = await fetch(`${server.url}/v2/scrape`, {
      method: 'POST',
      headers: { authorization: `Bearer ${otherTeamKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${site.url}/friendly` }),
      signal: AbortSignal.timeout(30_000),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: { markdown: string } };
    expect(body.data.markdown).toContain('Paragraph 11');
  }, 60_000);

  /** Slowest `/health` answer while `work` ran, in ms; a silent server fails after 5 s. */
  async function watched<T>(work: Promise<T>): Promise<{ result: T; slowestHealthMs: number }> {
    let done = false;
    let slowest = 0;
    const probing = (async () => {
      while (!done) {
        const started = performance.now();
        const answer = await fetch(`${server.url}/health`, { signal: AbortSignal.timeout(5_000) });
        expect(answer.status).toBe(200);
        slowest = Math.max(slowest, performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
    try {
      return { result: await work, slowestHealthMs: slowest };
    } finally {
      done = true;
      await probing;
    }
  }

  /** Polls a crawl until it leaves `scraping`, each poll abandoned after 10 s. */
  async function crawlToEnd(id: string, within: number): Promise<Record<string, unknown>> {
    const deadline = Date.now() + within;
    for (;;) {
      const status = (await server.call('GET', `/v2/crawl/${id}`, undefined, 10_000)).body;
      if (status['status'] !== 'scraping' || Date.now() > deadline) return status;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  return {
    server: () => server,
    site: () => site,
    scrapeWatched: async (path, options = {}) => {
      const { result, slowestHealthMs } = await watched(
        server.call('POST', '/v2/scrape', { url: `${site.url}${path}`, ...options }, 90_000),
      );
      expect(slowestHealthMs).toBeLessThan(1_000);
      return result;
    },
    crawlWatched: async (body, within = 60_000) => {
      const started = await server.call('POST', '/v2/crawl', body);
      expect(started.status).toBe(200);
      const id = started.body['id'] as string;
      const { result, slowestHealthMs } = await watched(crawlToEnd(id, within));
      expect(slowestHealthMs).toBeLessThan(1_000);
      return { id, status: result };
    },
  };
}
