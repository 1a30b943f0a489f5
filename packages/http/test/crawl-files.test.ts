import { describe, expect, it } from 'vitest';
import { pageFileName } from '@trawl/http';

describe('the file name of a crawled page', () => {
  it('follows the URL path under the host, with .md and index.md for folders', () => {
    expect(pageFileName('https://example.com/')).toBe('example.com/index.md');
    expect(pageFileName('https://example.com/docs/')).toBe('example.com/docs/index.md');
    expect(pageFileName('https://example.com/docs/intro.html')).toBe('example.com/docs/intro.md');
    expect(pageFileName('https://example.com/blog/2026/post')).toBe(
      'example.com/blog/2026/post.md',
    );
    expect(pageFileName('http://127.0.0.1:8080/a')).toBe('127.0.0.1_8080/a.md');
  });

  it('gives URLs that differ only in their query different files', () => {
    const first = pageFileName('https://example.com/list?page=1');
    const second = pageFileName('https://example.com/list?page=2');
    expect(first).toMatch(/^example\.com\/list_[0-9a-f]{8}\.md$/);
    expect(second).not.toBe(first);
  });

  it('never leaves the output folder and keeps names portable', () => {
    for (const url of [
      'https://example.com/%2e%2e/%2e%2e/etc/passwd',
      'https://example.com/..%2f..%2fsecret',
      'https://example.com/a%00b/c:d*e?x',
      'https://example.com/.hidden',
    ]) {
      const name = pageFileName(url);
      expect(name.split('/')).not.toContain('..');
      expect(name).not.toMatch(/[\0:*?\\]|\/\./);
    }
    expect(pageFileName('https://example.com/caf%C3%A9')).toBe('example.com/café.md');
    expect(pageFileName(`https://example.com/${'x'.repeat(500)}`).length).toBeLessThan(140);
  });
});
