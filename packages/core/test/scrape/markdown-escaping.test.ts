/**
 * Our writer's escaping (markdown-escape.ts) skips the rules that cannot match
 * (markdown-escape-filter.ts); this checks on random trees rich in markdown syntax characters
 * and line endings that the markdown it writes is byte for byte what mdast-util-to-markdown
 * writes.
 */
import fc from 'fast-check';
import type { PhrasingContent, Root, RootContent } from 'mdast';
import remarkGfm from 'remark-gfm';
import remarkStringify from 'remark-stringify';
import { unified } from 'unified';
import { describe, expect, it } from 'vitest';
import {
  markdownWriter,
  mdastToMarkdown,
  stringifySettings,
  tableSettings,
} from '../../src/convert/markdown.js';

const library = unified().use(remarkGfm, tableSettings).use(remarkStringify, stringifySettings);

// Every character some escaping rule looks at, letters and digits for the conditions around them
// (`1.`, `www.`, `&amp`), and line endings, which folded text never has but other text may.
const alphabet = [...'\t\r\n !"#&\'()*+-.:<=>@[\\]_`|~0123456789aAbpsWwx\u0000\u001f/é'];
const textValue = fc
  .array(fc.constantFrom(...alphabet), { minLength: 1, maxLength: 14 })
  .map((characters) => characters.join(''));

const { phrasing } = fc.letrec<{ phrasing: PhrasingContent }>((tie) => ({
  phrasing: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    textValue.map((value) => ({ type: 'text' as const, value })),
    textValue.map((value) => ({ type: 'inlineCode' as const, value })),
    fc.constant({ type: 'break' as const }),
    fc.record({ url: textValue, alt: textValue }).map(({ url, alt }) => ({
      type: 'image' as const,
      url,
      alt,
    })),
    ...(['emphasis', 'strong', 'delete'] as const).map((type) =>
      fc.array(tie('phrasing'), { minLength: 1, maxLength: 3 }).map((children) => ({
        type,
        children,
      })),
    ),
    fc
      .record({
        url: textValue,
        children: fc.array(tie('phrasing'), { minLength: 1, maxLength: 3 }),
      })
      .map(({ url, children }) => ({ type: 'link' as const, url, children })),
  ),
}));

const phrasingList = fc.array(phrasing, { minLength: 1, maxLength: 4 });
const cell = phrasingList.map((children) => ({ type: 'tableCell' as const, children }));
const block: fc.Arbitrary<RootContent> = fc.oneof(
  phrasingList.map((children) => ({ type: 'paragraph' as const, children })),
  fc
    .record({ depth: fc.constantFrom(1, 2, 3), children: phrasingList })
    .map(({ depth, children }) => ({ type: 'heading' as const, depth, children })),
  phrasingList.map((children) => ({
    type: 'blockquote' as const,
    children: [{ type: 'paragraph' as const, children }],
  })),
  fc
    .record({
      ordered: fc.boolean(),
      items: fc.array(phrasingList, { minLength: 1, maxLength: 3 }),
    })
    .map(({ ordered, items }) => ({
      type: 'list' as const,
      ordered,
      spread: false,
      children: items.map((children) => ({
        type: 'listItem' as const,
        spread: false,
        children: [{ type: 'paragraph' as const, children }],
      })),
    })),
  fc
    .array(fc.array(cell, { minLength: 2, maxLength: 2 }), { minLength: 1, maxLength: 3 })
    .map((rows) => ({
      type: 'table' as const,
      children: rows.map((children) => ({ type: 'tableRow' as const, children })),
    })),
);

// Enough for the suite's time; MARKDOWN_WRITER_RUNS=100000 for a long run by hand.
const runs = Number(process.env['MARKDOWN_WRITER_RUNS'] ?? 800);

describe('markdown escaping', () => {
  it('writes what the library writes, on random trees', { timeout: 600_000 }, () => {
    fc.assert(
      fc.property(fc.array(block, { minLength: 1, maxLength: 4 }), (children) => {
        const tree: Root = { type: 'root', children };
        const ours = markdownWriter().write(structuredClone(tree));
        // Every tree here is one our writer writes itself, not one it leaves to the library.
        expect(ours).toBeDefined();
        expect(ours).toBe(library.stringify(structuredClone(tree)));
      }),
      {
        numRuns: runs,
        seed: Number(process.env['MARKDOWN_WRITER_SEED'] ?? 17),
        endOnFailure: true,
      },
    );
  });

  it('escapes what would read as markup in prose', () => {
    const tree: Root = {
      type: 'root',
      children: [
        { type: 'paragraph', children: [{ type: 'text', value: '1. *a* _b_ [c](d) <e> AT&T' }] },
      ],
    };
    expect(mdastToMarkdown(tree)).toBe('1\\. \\*a\\* \\_b\\_ \\[c]\\(d) \\<e> AT\\&T\n');
  });

  it('writes prose that looks like markup as the library does, in every construct', () => {
    const samples = [
      'snake_case and __init__',
      '1. not a list',
      '2) nor this',
      '+ plus',
      '- dash',
      '-- double',
      '# not a heading #',
      '> not a quote',
      '=== underline',
      'a * b ** c',
      'a | b || c',
      '[x](y) ![z](w)',
      '<div> & &amp; AT&T',
      'trailing backslash \\',
      '~~ tilde ~',
      '`tick` ``two``',
      'www.example.com user@example.com https://x.y',
      ' leading and trailing ',
    ];
    for (const value of samples) {
      const text = (): PhrasingContent[] => [{ type: 'text', value }];
      const tree: Root = {
        type: 'root',
        children: [
          { type: 'paragraph', children: text() },
          { type: 'heading', depth: 3, children: text() },
          { type: 'paragraph', children: [{ type: 'strong', children: text() }] },
          { type: 'paragraph', children: [{ type: 'link', url: value, children: text() }] },
          {
            type: 'table',
            children: [{ type: 'tableRow', children: [{ type: 'tableCell', children: text() }] }],
          },
          {
            type: 'list',
            ordered: true,
            spread: false,
            children: [
              {
                type: 'listItem',
                spread: false,
                children: [{ type: 'paragraph', children: text() }],
              },
            ],
          },
        ],
      };
      expect(markdownWriter().write(structuredClone(tree))).toBe(
        library.stringify(structuredClone(tree)),
      );
    }
  });
});
