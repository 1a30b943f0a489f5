/**
 * Our text handler skips the escaping rules that cannot match (markdown-text.ts); this checks on
 * random trees rich in markdown syntax characters and line endings that the markdown it writes
 * is byte-for-byte what mdast-util-to-markdown's own handler writes.
 */
import fc from 'fast-check';
import type { PhrasingContent, Root, RootContent } from 'mdast';
import { defaultHandlers } from 'mdast-util-to-markdown';
import remarkGfm from 'remark-gfm';
import remarkStringify from 'remark-stringify';
import { unified } from 'unified';
import { describe, expect, it } from 'vitest';
import { stringifySettings, tableSettings } from '../../src/convert/markdown.js';

const ours = unified().use(remarkGfm, tableSettings).use(remarkStringify, stringifySettings);
const library = unified()
  .use(remarkGfm, tableSettings)
  .use(remarkStringify, {
    ...stringifySettings,
    handlers: { ...stringifySettings.handlers, text: defaultHandlers.text },
  });

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

describe('markdown escaping', () => {
  it('writes what the library writes, on random trees', () => {
    fc.assert(
      fc.property(fc.array(block, { minLength: 1, maxLength: 4 }), (children) => {
        const tree: Root = { type: 'root', children };
        expect(ours.stringify(structuredClone(tree))).toBe(
          library.stringify(structuredClone(tree)),
        );
      }),
      { numRuns: 3000, seed: 17 },
    );
  });

  it('leaves a rule bound to the next node to the library', () => {
    // The library matches such a rule on the text without its neighbours, where `$` matches at
    // the text's end: here the `!` before the emphasis is escaped though `_` follows it.
    const unsafe = [
      {
        character: '!',
        after: '$',
        afterNode: 'emphasis' as const,
        inConstruct: 'phrasing' as const,
      },
    ];
    const tree: Root = {
      type: 'root',
      children: [
        {
          type: 'paragraph',
          children: [
            { type: 'text', value: 'a!' },
            { type: 'emphasis', children: [{ type: 'text', value: 'b' }] },
          ],
        },
      ],
    };
    const withRule = (
      handlers: typeof stringifySettings.handlers | { text: typeof defaultHandlers.text },
    ) =>
      unified()
        .use(remarkGfm, tableSettings)
        .use(remarkStringify, {
          ...stringifySettings,
          handlers: { ...stringifySettings.handlers, ...handlers },
          unsafe,
        });
    const expected = withRule({ text: defaultHandlers.text }).stringify(structuredClone(tree));
    expect(expected).toBe('a\\!_b_\n');
    expect(withRule(stringifySettings.handlers).stringify(structuredClone(tree))).toBe(expected);
  });

  it('escapes what would read as markup in prose', () => {
    const tree: Root = {
      type: 'root',
      children: [
        { type: 'paragraph', children: [{ type: 'text', value: '1. *a* _b_ [c](d) <e> AT&T' }] },
      ],
    };
    expect(ours.stringify(tree)).toBe('1\\. \\*a\\* \\_b\\_ \\[c]\\(d) \\<e> AT\\&T\n');
  });
});
