/**
 * `htmlToDocument`'s `url` is where the HTML came from, and HTML is often kept under a label
 * instead (an archive key such as trafilatura's `hard::12`, a file name): such a page still
 * converts, and only links that need a base are left as written.
 */
import { describe, expect, it } from 'vitest';
import { htmlToDocument, TrawlError } from '@trawl/core';

const html = `<html><head><title>Notes</title></head><body>
  <main><h1>Notes</h1><p>Read the <a href="/guide">guide</a> and the
  <a href="https://example.org/faq">FAQ</a> before you start.</p>
  <img src="img/chart.png" alt="Chart"></main></body></html>`;

describe('htmlToDocument url', () => {
  for (const label of ['hard::12', 'page-0042.html', 'not a url at all']) {
    it(`converts a page whose url is the label ${JSON.stringify(label)}`, () => {
      const doc = htmlToDocument(html, { url: label, formats: ['markdown', 'links', 'images'] });
      expect(doc.markdown).toContain('[guide](/guide)');
      expect(doc.markdown).toContain('[FAQ](https://example.org/faq)');
      expect(doc.markdown).toContain('![Chart](img/chart.png)');
      // Only absolute http(s) links are links a crawler could follow.
      expect(doc.links).toEqual(['https://example.org/faq']);
      expect(doc.metadata.url).toBe(label);
      expect(doc.metadata.sourceURL).toBe(label);
    });
  }

  it('resolves relative links against a URL of another scheme when it can be a base', () => {
    const doc = htmlToDocument(html, { url: 'xhttps://example.com/docs/start' });
    expect(doc.markdown).toContain('[guide](xhttps://example.com/guide)');
  });

  it("resolves against the page's own <base href> when the url is a label", () => {
    const withBase = html.replace('<head>', '<head><base href="https://example.com/docs/">');
    const doc = htmlToDocument(withBase, { url: 'hard::12' });
    expect(doc.markdown).toContain('[guide](https://example.com/guide)');
    expect(doc.markdown).toContain('![Chart](https://example.com/docs/img/chart.png)');
  });

  it('still resolves relative links against an http(s) url', () => {
    const doc = htmlToDocument(html, { url: 'https://example.com/docs/start' });
    expect(doc.markdown).toContain('[guide](https://example.com/guide)');
  });

  it('refuses an empty url with BAD_REQUEST', () => {
    let caught: unknown;
    try {
      htmlToDocument(html, { url: '' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(TrawlError);
    expect((caught as TrawlError).code).toBe('BAD_REQUEST');
  });
});
