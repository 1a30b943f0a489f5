/**
 * A hostile site against the browser engine of a real `trawl serve` (real Chromium): refresh and
 * script redirect loops, windows opened without end, dialogs in a loop, a script that never
 * yields or allocates without end, a page 200,000 pixels tall. Each ends with its documented code
 * (or a page) within its timeout while `/health` answers within 1 s, the server's peak memory
 * stays under 1 GB and another team is served normally (hostile-harness.ts). The slower cases
 * (a DOM that grows without end, huge canvases, infinite scroll) are in bench/hostile.ts.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hostileHarness } from './hostile-harness.ts';

const { scrapeWatched } = hostileHarness({ warmBrowser: true });
// waitFor sends the page to the browser; ad blocking is left out to keep its lists' start-up
// out of the timings.
const browser = { waitFor: 200, blockAds: false, timeout: 15_000 };

describe.runIf(existsSync('/usr/bin/chromium'))('a hostile site against the browser engine', () => {
  it.each(['/meta-refresh-loop', '/js-redirect-loop'])(
    'ends %s after 20 navigations with FETCH_FAILED',
    async (path) => {
      const answer = await scrapeWatched(path, browser);
      expect(answer.body).toMatchObject({ success: false, code: 'FETCH_FAILED' });
      expect(answer.body['error']).toMatch(
        /navigated more than 20 times|kept navigating|navigated away/,
      );
    },
    60_000,
  );

  it('reads a page that opens a window every 10 ms as its own page', async () => {
    const answer = await scrapeWatched('/popups', browser);
    expect(answer.status).toBe(200);
    expect((answer.body['data'] as { markdown: string }).markdown).toContain('Popups');
  }, 60_000);

  it('ends a page that raises dialogs in a loop (no longer answered one by one) at its timeout', async () => {
    const answer = await scrapeWatched('/alert-loop', { ...browser, timeout: 3_000 });
    expect(answer).toMatchObject({ status: 408, body: { code: 'SCRAPE_TIMEOUT' } });
  }, 60_000);

  it('ends a page whose script allocates without end when its renderer runs out of heap', async () => {
    const answer = await scrapeWatched('/allocate', browser);
    // The renderer's heap is capped at 512 MB: it crashes long before the timeout.
    expect(answer.body).toMatchObject({ success: false, code: 'FETCH_FAILED' });
    expect(answer.body['error']).toMatch(/crash/i);
  }, 60_000);

  it('cuts a full-page screenshot of a 200,000-pixel page at 16,384 pixels', async () => {
    const answer = await scrapeWatched('/tall', {
      ...browser,
      formats: [{ type: 'screenshot', fullPage: true }],
    });
    expect(answer.status).toBe(200);
    const screenshot = (answer.body['data'] as { screenshot: string }).screenshot;
    const png = screenshot.startsWith('data:')
      ? Buffer.from(screenshot.slice(screenshot.indexOf(',') + 1), 'base64')
      : Buffer.from(await (await fetch(screenshot)).arrayBuffer());
    // The IHDR chunk: width and height, big-endian, at bytes 16 and 20.
    expect(png.readUInt32BE(20)).toBe(16_384);
    expect(answer.body['data']).toMatchObject({
      warning: expect.stringMatching(
        /200,\d{3} pixels tall; the full-page screenshot shows its top 16,384/,
      ) as unknown,
    });
  }, 60_000);
});
