/** v1 bodies as v2 ones, and v2 answers as v1 ones (the v1 interface's translation). */
import { describe, expect, it } from 'vitest';
import {
  crawlToV2,
  documentToV1,
  mapToV1,
  mapToV2,
  scrapeToV2,
} from '../src/server/v1-translate.js';

describe('v1 to v2', () => {
  it('turns v1 formats and their option objects into v2 format objects', () => {
    expect(
      scrapeToV2({
        url: 'https://example.com',
        formats: ['markdown', 'screenshot@fullPage', 'extract', 'changeTracking'],
        extract: { schema: { type: 'object' }, prompt: 'Find it', systemPrompt: 'Be brief' },
        changeTrackingOptions: { modes: ['git-diff'] },
        parsePDF: false,
        fastMode: false,
      }),
    ).toEqual({
      url: 'https://example.com',
      formats: [
        'markdown',
        { type: 'screenshot', fullPage: true },
        { type: 'json', schema: { type: 'object' }, prompt: 'Be brief\n\nFind it' },
        { type: 'changeTracking', modes: ['git-diff'] },
      ],
      parsers: [],
      fastMode: false,
    });
  });

  it('reads v1 crawl and map settings', () => {
    expect(
      crawlToV2({ url: 'u', maxDepth: 3, ignoreSitemap: true, allowBackwardLinks: true }),
    ).toEqual({ url: 'u', maxDiscoveryDepth: 3, sitemap: 'skip', crawlEntireDomain: true });
    expect(mapToV2({ url: 'u', sitemapOnly: true })).toEqual({ url: 'u', sitemap: 'only' });
  });
});

describe('v2 to v1', () => {
  it('answers an extract format under extract, and map links as URLs', () => {
    expect(documentToV1({ json: { a: 1 }, markdown: 'm' }, true)).toEqual({
      extract: { a: 1 },
      markdown: 'm',
    });
    expect(documentToV1({ json: { a: 1 } }, false)).toEqual({ json: { a: 1 } });
    expect(mapToV1({ success: true, links: [{ url: 'https://a.example/', title: 'A' }] })).toEqual({
      success: true,
      links: ['https://a.example/'],
    });
  });
});
