/** Content-Encoding undone up to a limit (scrape/content-coding.ts), in its truncating mode. */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeContent } from '../../src/scrape/content-coding.js';

const url = new URL('http://site.test/robots.txt');

describe('decodeContent with truncate', () => {
  it('keeps what decoded before a body was cut short', async () => {
    const whole = gzipSync(Buffer.from('User-agent: *\nDisallow: /private\n'.repeat(200)));
    const cut = whole.subarray(0, whole.length - 20);
    const head = Buffer.from(await decodeContent(cut, 'gzip', url, 1_000_000, true)).toString();
    expect(head.startsWith('User-agent: *\nDisallow: /private\n')).toBe(true);
  });

  it('refuses a body of which nothing decodes, rather than reading it as empty', async () => {
    await expect(
      decodeContent(Buffer.from('this was never gzip'), 'gzip', url, 1_000_000, true),
    ).rejects.toMatchObject({ code: 'FETCH_FAILED' });
  });
});
