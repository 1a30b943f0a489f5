/**
 * The text the built-in search index keeps of a page: its markdown without markup, links and
 * images reduced to their text (an image inside a link's text too), headings listed apart.
 */
import { describe, expect, it } from 'vitest';
import { indexEntryOf, markdownToText } from '../../src/scrape/index-document.js';
import type { Document } from '../../src/document.js';

const words = (text: string) => text.split(/\s+/).filter(Boolean);

describe('search index text', () => {
  it('keeps the text of links and images and drops their targets', () => {
    expect(
      words(markdownToText('See [the docs](https://x.test/docs "Docs") and ![a chart](c.png).')),
    ).toEqual(['See', 'the', 'docs', 'and', 'a', 'chart.']);
  });

  it('reads an image inside a link, alone or among words, as its alt text', () => {
    expect(markdownToText('[![Logo](logo.svg)](https://x.test/)')).toBe('Logo');
    expect(words(markdownToText('[Read ![icon](i.png) more](https://x.test/more) now'))).toEqual([
      'Read',
      'icon',
      'more',
      'now',
    ]);
  });

  it('drops emphasis, heading, quote, table and code marks and line breaks', () => {
    const text = markdownToText('# Title\n\n> *Quoted* __strong__\r\n| a | b |\n`code` ~~gone~~\n');
    expect(text).not.toMatch(/[#*_`>|~\r\n]/);
    expect(words(text)).toEqual(['Title', 'Quoted', 'strong', 'a', 'b', 'code', 'gone']);
  });

  it('leaves brackets that are not a link as they are', () => {
    expect(markdownToText('an [aside] and [unclosed(link')).toBe('an [aside] and [unclosed(link');
  });

  it('makes an entry with the headings and the text of the markdown', () => {
    const document = {
      markdown: '# Guide\n\nIntro with [a link](https://x.test/).\n\n## Setup\n\nSteps.',
      metadata: { url: 'https://X.test/guide', statusCode: 200, title: 'The guide' },
    } as unknown as Document;
    const entry = indexEntryOf(document, 'default');
    expect(entry).toMatchObject({
      url: 'https://x.test/guide',
      domain: 'x.test',
      title: 'The guide',
      headings: 'Guide\nSetup',
    });
    expect(words(entry?.body ?? '')).toEqual([
      'Guide',
      'Intro',
      'with',
      'a',
      'link.',
      'Setup',
      'Steps.',
    ]);
  });
});
