/**
 * What a scrape's page may not do through the browser (browser/page-limits.ts): its DOM is read
 * back only up to the limit, measured in the renderer; dialogs answer in the page; other windows
 * close as they open.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { BrowserPool } from '@trawl/core';
import { containPage, readPageHtml } from '../../src/browser/page-limits.js';
import { chromiumMissing } from './chromium.ts';

describe.skipIf(chromiumMissing)('page limits', () => {
  const pool = new BrowserPool({ maxPages: 1, idleCloseMs: 0 });
  afterAll(() => pool.close());
  const url = new URL('http://page.test/');

  it('reads the DOM up to the limit and refuses it past, with CONTENT_TOO_LARGE', async () => {
    await pool.withPage({}, async ({ page }) => {
      await page.setContent(`<p>${'x'.repeat(5_000)}</p>`);
      expect(await readPageHtml(page, url, 10_000)).toContain('x'.repeat(5_000));
      await expect(readPageHtml(page, url, 1_000)).rejects.toMatchObject({
        code: 'CONTENT_TOO_LARGE',
        message: expect.stringMatching(/grew past the 1,000-byte limit/) as unknown,
      });
      // Counted in UTF-8 bytes, as the limit is: 3,000 characters of 'é' are 6,000 bytes.
      await page.setContent(`<p>${'é'.repeat(3_000)}</p>`);
      await expect(readPageHtml(page, url, 4_000)).rejects.toMatchObject({
        code: 'CONTENT_TOO_LARGE',
      });
    });
  });

  it('answers dialogs in the page and closes the windows it opens', async () => {
    const answers = await pool.withPage({}, async ({ page, context }) => {
      await containPage(context, page);
      let dialogs = 0;
      page.on('dialog', () => dialogs++);
      await page.goto('data:text/html,<p>x</p>');
      const seen = await page.evaluate(
        `[confirm('c'), prompt('p'), (alert('a'), 'alerted'), window.open('about:blank') !== null]`,
      );
      // Give a popup the moment it would need to show up in the context.
      await page.waitForTimeout(300);
      return { seen, dialogs, pages: context.pages().length };
    });
    expect(answers).toEqual({ seen: [false, null, 'alerted', true], dialogs: 0, pages: 1 });
  });
});
