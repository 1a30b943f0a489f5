// @vitest-environment jsdom
/**
 * Scraped markdown reaches the dashboard's DOM only through renderMarkdown: raw HTML inside it,
 * event handlers, scripts and javascript: links are taken out, and what is left still reads.
 */
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../src/markdown.ts';

describe('renderMarkdown', () => {
  it('keeps headings, emphasis, links and tables', () => {
    const html = renderMarkdown(
      '# Prices\n\nThe **Basic** plan, see [the page](https://example.com/p).\n\n| a | b |\n| - | - |\n| 1 | 2 |\n',
    );
    expect(html).toContain('<h1>Prices</h1>');
    expect(html).toContain('<strong>Basic</strong>');
    expect(html).toContain('href="https://example.com/p"');
    expect(html).toContain('rel="noopener noreferrer nofollow"');
    expect(html).toContain('<td>2</td>');
  });

  it('takes scripts, event handlers, javascript: links and styles out of raw HTML in markdown', () => {
    const html = renderMarkdown(
      [
        'Before <img src="x" onerror="window.__pwned=1"> after',
        '',
        '<script>window.__pwned=2</script>',
        '',
        '[click](javascript:window.__pwned=3)',
        '',
        '<a href="javascript:alert(1)">raw link</a> <svg onload="alert(1)"></svg>',
        '',
        '<div style="position:fixed" onclick="alert(1)">overlay</div><iframe src="https://evil.example"></iframe>',
        '',
        '<form action="https://evil.example"><input name="key"></form>',
      ].join('\n'),
    );
    expect(html).not.toMatch(
      /onerror|onload|onclick|<script|javascript:|style=|<iframe|<form|<input/i,
    );
    expect(html).toContain('Before');
    expect(html).toContain('overlay');
    expect(html).toContain('raw link');
  });
});
