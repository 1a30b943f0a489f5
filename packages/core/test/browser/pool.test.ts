import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { BrowserPool, FetchError, findChromium, TrawlError } from '@trawl/core';
import { poolBrowserPid, processTree, stillThere } from './processes.ts';
import { chromiumMissing } from './chromium.ts';

const site = inject('fixtureUrl');

/** Waits until `check` holds, polling; fails after `boundMs`. */
async function eventually(check: () => boolean, boundMs: number): Promise<void> {
  const until = Date.now() + boundMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`condition still false after ${boundMs} ms`);
    await sleep(100);
  }
}

describe.skipIf(chromiumMissing)('BrowserPool', () => {
  const pool = new BrowserPool({ maxPages: 2, idleCloseMs: 0 });
  afterAll(() => pool.close());

  it('gives each job its own context, so cookies do not leak between jobs', async () => {
    await pool.withPage({}, async ({ page }) => {
      await page.goto(`${site}/set-cookie?name=job_one&value=1`);
    });
    const seen = await pool.withPage({}, async ({ page }) => {
      await page.goto(`${site}/echo.html`);
      return page.textContent('main');
    });
    expect(seen).toContain('method: GET');
    expect(seen).not.toContain('job_one');
    expect(seen).not.toContain('trawl_session');
  });

  it('keeps one browser across jobs and never opens more pages than maxPages', async () => {
    const launchesBefore = pool.stats.launches;
    let open = 0;
    let mostOpen = 0;
    // A loaded machine can make opening a context slower than a slow page, so the jobs would
    // never overlap by timing alone: each holds its page until a second one is open (or 10 s).
    await Promise.all(
      Array.from({ length: 6 }, () =>
        pool.withPage({}, async ({ page }) => {
          open++;
          mostOpen = Math.max(mostOpen, open);
          await page.goto(`${site}/slow?ms=150`);
          await eventually(() => mostOpen >= 2, 10_000).catch(() => {});
          open--;
        }),
      ),
    );
    expect(mostOpen).toBe(2);
    expect(pool.stats.pagesOpen).toBe(0);
    expect(pool.stats.launches - launchesBefore).toBeLessThanOrEqual(1);
  });

  it('gives up waiting for a page after waitTimeoutMs or when the signal aborts, keeping the line', async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let started = 0;
    const holders = [1, 2].map(() =>
      pool.withPage({}, async () => {
        started++;
        await held;
      }),
    );
    await eventually(() => started === 2, 10_000);
    await expect(
      pool.withPage({}, () => Promise.resolve('never'), { waitTimeoutMs: 50 }),
    ).rejects.toThrow(/No browser page became free within 50 ms/);
    const controller = new AbortController();
    const cancelled = pool.withPage({}, () => Promise.resolve('never'), {
      signal: controller.signal,
    });
    const served = pool.withPage({}, () => Promise.resolve('served'));
    await eventually(() => pool.stats.waiting === 2, 5_000);
    controller.abort(new Error('the caller went away'));
    await expect(cancelled).rejects.toThrow('the caller went away');
    expect(pool.stats.waiting).toBe(1);
    release();
    await Promise.all(holders);
    expect(await served).toBe('served');
    expect(pool.stats.pagesOpen).toBe(0);
  });

  it('replaces a browser killed during a job: the job fails clearly, the next one succeeds', async () => {
    let loading = false;
    const job = pool.withPage({}, async ({ page }) => {
      loading = true;
      await page.goto(`${site}/hang`, { timeout: 20_000 });
    });
    await eventually(() => loading, 10_000);
    await sleep(200);
    process.kill(poolBrowserPid(pool.id)!, 'SIGKILL');
    const failure = await job.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(FetchError);
    expect((failure as FetchError).code).toBe('FETCH_FAILED');
    expect((failure as FetchError).message).toMatch(/Chromium exited during the job/);
    const title = await pool.withPage({}, async ({ page }) => {
      await page.goto(`${site}/articles/plain.html`);
      return page.title();
    });
    expect(title.length).toBeGreaterThan(0);
  });

  it('retires a browser after retireAfterPages jobs and starts a fresh one', async () => {
    const recycling = new BrowserPool({ retireAfterPages: 2, idleCloseMs: 0 });
    try {
      for (let job = 0; job < 5; job++) {
        await recycling.withPage({}, async ({ page }) => page.setContent('<p>job</p>'));
      }
      expect(recycling.stats.launches).toBe(3);
      expect(recycling.stats.pagesServed).toBe(5);
    } finally {
      await recycling.close();
    }
  });
});

describe.skipIf(chromiumMissing)('BrowserPool shutdown', () => {
  it('leaves no Chromium process behind, zombies included, after close()', async () => {
    const pool = new BrowserPool({ idleCloseMs: 0 });
    let tree: number[] = [];
    await pool.withPage({}, async ({ page }) => {
      await page.goto(`${site}/articles/plain.html`);
      tree = processTree(poolBrowserPid(pool.id)!);
    });
    // A browser, its zygotes, a GPU process, a network service and at least one renderer.
    expect(tree.length).toBeGreaterThanOrEqual(4);
    await pool.close();
    // Chromium's zygotes end a moment after the browser and are reaped by the init process.
    await eventually(() => stillThere(tree).length === 0, 20_000);
    expect(stillThere(tree)).toEqual([]);
  });

  it('closes an idle browser after idleCloseMs', async () => {
    const pool = new BrowserPool({ idleCloseMs: 200 });
    try {
      await pool.withPage({}, async ({ page }) => page.setContent('<p>idle soon</p>'));
      expect(pool.stats.browsers).toBe(1);
      await eventually(() => pool.stats.browsers === 0, 10_000);
      // The pool counts a browser gone at its pipe's 'disconnected'; the process itself ends a
      // moment later (on a loaded machine, after the count): wait for it, bounded.
      await eventually(() => poolBrowserPid(pool.id) === undefined, 10_000);
      expect(poolBrowserPid(pool.id)).toBeUndefined();
    } finally {
      await pool.close();
    }
  });
});

describe('finding Chromium', () => {
  it('takes the configured path first, then the usual paths', () => {
    expect(findChromium({ configuredPath: '/opt/x/chrome', isExecutable: () => true })).toBe(
      '/opt/x/chrome',
    );
    expect(findChromium({ candidates: ['/a', '/b'], isExecutable: (path) => path === '/b' })).toBe(
      '/b',
    );
  });

  it('names TRAWL_CHROMIUM_PATH when the configured path is not a browser', () => {
    expect(() => findChromium({ configuredPath: '/nowhere/chromium' })).toThrow(
      /TRAWL_CHROMIUM_PATH \(chromiumPath\) is \/nowhere\/chromium/,
    );
  });

  it('on a machine without a browser, a job fails with NOT_CONFIGURED naming TRAWL_CHROMIUM_PATH', async () => {
    const pool = new BrowserPool({ chromium: { candidates: ['/nowhere/chromium'] } });
    const failure = await pool
      .withPage({}, () => Promise.resolve())
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TrawlError);
    expect((failure as TrawlError).code).toBe('NOT_CONFIGURED');
    expect((failure as TrawlError).message).toMatch(/No Chromium was found.*TRAWL_CHROMIUM_PATH/);
    expect(pool.stats.pagesOpen).toBe(0);
    await pool.close();
  });
});
