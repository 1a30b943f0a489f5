/**
 * Main content keeps its text statistics up to date after removing the page's furniture instead
 * of computing them again (stats.ts): on random trees and random removals, the updated
 * statistics must equal a fresh computation on the tree as it stands, entry for entry.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findFirst, parseHtml } from '../../src/convert/dom.js';
import {
  computeStats,
  updateStatsAfterRemovals,
  type TextLengths,
} from '../../src/convert/main-content/stats.js';
import { removeWhere } from '../../src/convert/main-content/tree.js';

// Prose long enough to cross the thresholds (80 characters for a prose block, 120 for text
// written straight into a container), short bits, and white space runs.
const text = fc.oneof(
  fc.constantFrom('', ' ', '  \n ', 'Short words.'),
  fc
    .integer({ min: 1, max: 30 })
    .map((words) => Array.from({ length: words }, (_, i) => `word${i}`).join(' ')),
);
const tags = ['div', 'p', 'a', 'li', 'ul', 'span', 'td', 'pre', 'section', 'blockquote'];

const { node } = fc.letrec<{ node: string }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text,
    fc
      .record({
        tag: fc.constantFrom(...tags),
        children: fc.array(tie('node'), { maxLength: 4 }),
      })
      .map(({ tag, children }) => `<${tag}>${children.join('')}</${tag}>`),
  ),
}));

describe('statistics after removals', () => {
  it('equal a fresh computation on the tree that is left', () => {
    fc.assert(
      fc.property(
        fc.array(node, { minLength: 1, maxLength: 6 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 60 }),
        (children, removeByOrder) => {
          const body = findFirst(parseHtml(`<body>${children.join('')}</body>`), 'body')!;
          const lengths: TextLengths = new Map();
          const stats = computeStats(body, lengths);
          let order = 0;
          const removals = removeWhere(body, () =>
            removeByOrder[order++ % removeByOrder.length] ? 'remove' : 'descend',
          );
          updateStatsAfterRemovals(body, stats, lengths, removals);
          const fresh = computeStats(body);
          expect(stats.size).toBe(fresh.size);
          for (const [element, value] of fresh) expect(stats.get(element)).toEqual(value);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('count link text below a link that loses a child', () => {
    const body = findFirst(
      parseHtml('<body><div><a href="/">Start <span>drop me</span> end</a></div></body>'),
      'body',
    )!;
    const lengths: TextLengths = new Map();
    const stats = computeStats(body, lengths);
    const removals = removeWhere(body, (element) =>
      element.name === 'span' ? 'remove' : 'descend',
    );
    updateStatsAfterRemovals(body, stats, lengths, removals);
    const link = findFirst(body, 'a')!;
    const fresh = computeStats(body);
    expect(stats.get(link)).toEqual(fresh.get(link));
    expect(stats.get(link)?.linkText).toBe(stats.get(link)?.text);
    expect(stats.get(body)).toEqual(fresh.get(body));
  });
});
