/** A crawl's markdown files are named after their URLs, safely, one file per document. */
import { describe, expect, it } from 'vitest';
import { markdownPath } from '../src/jobs/downloads.ts';

describe('markdownPath', () => {
  it('names a page after its host and path, without the page extension', () => {
    expect(markdownPath('https://docs.example.com/guide/install.html', 0)).toBe(
      'docs.example.com/guide/install.md',
    );
    expect(markdownPath('http://127.0.0.1:8080/docs/', 0)).toBe('127.0.0.1-8080/docs.md');
    expect(markdownPath('https://example.com/', 0)).toBe('example.com/index.md');
    expect(markdownPath('https://example.com/list?page=2&sort=a', 0)).toBe(
      'example.com/list-page-2-sort-a.md',
    );
  });

  it('never leaves the folder, whatever the URL says', () => {
    expect(markdownPath('https://example.com/%2e%2e/%2e%2e/etc/passwd', 0)).not.toContain('..');
    expect(markdownPath('https://example.com/a/../../b', 0)).toBe('example.com/b.md');
    expect(markdownPath('not a url', 4)).toBe('document-5.md');
  });
});
