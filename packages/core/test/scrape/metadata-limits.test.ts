/**
 * Page metadata written to hurt: a `<title>` and a description of megabytes are cut to the limit
 * and marked, and a page of 100,000 meta tags of one name gives at most the tag limit.
 */
import { describe, expect, it } from 'vitest';
// Relative `.js`: the modules are not on the public surface (see robots.test.ts).
import { parseHtml } from '../../src/convert/dom.js';
import { metadataLimits, readPageHead } from '../../src/convert/metadata.js';

const headOf = (head: string) =>
  readPageHead(
    parseHtml(`<!DOCTYPE html><html><head>${head}</head><body></body></html>`),
    'https://example.com/',
  ).metadata;

describe('metadata past the limits', () => {
  it('cuts a 4 MB title and description to the limit and marks the cut', () => {
    const metadata = headOf(
      `<title>${'T'.repeat(4 << 20)}</title><meta name="description" content="${'d'.repeat(4 << 20)}">`,
    );
    expect(metadata.title).toBe(`${'T'.repeat(metadataLimits.maxValueChars)}…`);
    expect(metadata.description).toBe(`${'d'.repeat(metadataLimits.maxValueChars)}…`);
  });

  it('reads at most the meta tag limit of 100,000 tags of one name', () => {
    const metadata = headOf('<meta name="k" content="v">'.repeat(100_000));
    expect(metadata['k']).toHaveLength(metadataLimits.maxMetaTags);
  });

  it('leaves short values as the page wrote them', () => {
    expect(headOf('<title>Plain</title>').title).toBe('Plain');
  });
});
