/**
 * JSON-LD written to hurt the reader: a block nested 100,000 deep and a block of a million offers
 * are skipped whole, while an honest block on the same page is still read.
 */
import { describe, expect, it } from 'vitest';
// Relative `.js`: the module is not on the public surface (see robots.test.ts).
import { jsonLdLimits, readSchemaNodes } from '../../src/convert/structured-data.js';

const honest = '{"@type":"Product","name":"Honest kettle"}';
const pageOf = (...blocks: string[]) =>
  `<!DOCTYPE html><html><head>${blocks
    .map((block) => `<script type="application/ld+json">${block}</script>`)
    .join('')}</head><body><p>Shop.</p></body></html>`;
const names = (html: string) =>
  readSchemaNodes(html, 'https://shop.example/').map((node) => node.data['name']);

describe('JSON-LD past the limits', () => {
  it('skips a block nested deeper than the limit and reads the honest one', () => {
    const depth = 100_000;
    const deep = `${'{"@type":"Product","name":"deep","isRelatedTo":'.repeat(depth)}null${'}'.repeat(depth)}`;
    expect(names(pageOf(deep, honest))).toEqual(['Honest kettle']);
  });

  it('skips a block longer than the limit and reads the honest one', () => {
    const offers = '{"@type":"Offer","price":1},'.repeat(Math.ceil(jsonLdLimits.maxChars / 25));
    const wide = `{"@type":"Product","name":"wide","offers":[${offers}{"price":2}]}`;
    expect(names(pageOf(honest, wide))).toEqual(['Honest kettle']);
  });

  it('keeps a block at the depth limit, brackets inside strings not counted', () => {
    const depth = jsonLdLimits.maxDepth - 1;
    const nested = `{"@type":"Product","name":"[[[{{{","x":${'['.repeat(depth - 1)}1${']'.repeat(depth - 1)}}`;
    expect(names(pageOf(nested))).toEqual(['[[[{{{']);
  });
});
