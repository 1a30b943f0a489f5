/**
 * Our markdown writer (markdown-writer.ts) must write what remark-stringify writes with our
 * settings, byte for byte: random trees of every node type we build, nested the ways pages nest
 * them (lists in items, quotes in quotes, tables and code in items, setext headings, links with
 * titles and odd destinations, HTML in flow and in text, aligned tables), compared with the
 * library's own output. markdown-escaping.test.ts does the same with text rich in syntax.
 */
import fc from 'fast-check';
import type { BlockContent, List, ListItem, PhrasingContent, Root } from 'mdast';
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

const alphabet = [...'\t\n\r !"#&\'()*+-.:<=>@[\\]_`|~0129aAbpswWx/é\u00a0😀'];
const textValue = fc
  .array(fc.constantFrom(...alphabet), { minLength: 0, maxLength: 10 })
  .map((characters) => characters.join(''));
const url = fc.oneof(
  textValue,
  fc.constantFrom('https://example.com/a_b', 'mailto:x@example.com', 'x@example.com', ''),
);

// HTML of each kind the writer tells apart (CommonMark's HTML block conditions), and not HTML.
const htmlValue = fc.constantFrom(
  '<br>',
  '<b>x</b>',
  '<div>x</div>',
  '</p>',
  '<pre>x</pre>',
  '<!-- c -->',
  '<?x?>',
  '<![CDATA[x]]>',
  '<!X>',
  '<table><tr><td>a</td></tr></table>',
  'a<b',
  '',
);

const { phrasing } = fc.letrec<{ phrasing: PhrasingContent }>((tie) => ({
  phrasing: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    htmlValue.map((value) => ({ type: 'html' as const, value })),
    textValue.map((value) => ({ type: 'text' as const, value })),
    textValue.map((value) => ({ type: 'text' as const, value })),
    textValue.map((value) => ({ type: 'inlineCode' as const, value })),
    fc.constant({ type: 'break' as const }),
    fc
      .record({ url, alt: textValue, title: fc.option(textValue, { nil: undefined }) })
      .map(({ url, alt, title }) => ({
        type: 'image' as const,
        url,
        alt,
        ...(title === undefined ? {} : { title }),
      })),
    ...(['emphasis', 'strong', 'delete'] as const).map((type) =>
      fc.array(tie('phrasing'), { minLength: 1, maxLength: 2 }).map((children) => ({
        type,
        children,
      })),
    ),
    fc
      .record({
        url,
        title: fc.option(textValue, { nil: undefined }),
        children: fc.array(tie('phrasing'), { minLength: 1, maxLength: 2 }),
      })
      .map(({ url, title, children }) => ({
        type: 'link' as const,
        url,
        children,
        ...(title === undefined ? {} : { title }),
      })),
    // An autolink: one text child equal to the destination.
    fc.constantFrom('https://example.com/x', 'mailto:a@b.c').map((value) => ({
      type: 'link' as const,
      url: value,
      children: [{ type: 'text' as const, value }],
    })),
  ),
}));

const phrasingList = fc.array(phrasing, { minLength: 0, maxLength: 4 });
const plainPhrasingList = fc.array(
  fc.oneof(
    textValue.map((value): PhrasingContent => ({ type: 'text', value })),
    fc.record({ url, value: textValue }).map(({ url, value }): PhrasingContent => ({
      type: 'link',
      url,
      children: [{ type: 'text', value }],
    })),
  ),
  { minLength: 1, maxLength: 4 },
);
const anyPhrasing = fc.oneof(phrasingList, plainPhrasingList);
const cell = anyPhrasing.map((children) => ({ type: 'tableCell' as const, children }));
const align = fc.option(
  fc.array(fc.constantFrom('left' as const, 'right' as const, 'center' as const, null), {
    maxLength: 3,
  }),
  { nil: undefined },
);

const { block } = fc.letrec<{ block: BlockContent }>((tie) => {
  const blocks = fc.array(tie('block'), { minLength: 1, maxLength: 3 });
  const item = fc
    .record({ spread: fc.boolean(), children: blocks })
    .map(({ spread, children }): ListItem => ({ type: 'listItem', spread, children }));
  return {
    block: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      anyPhrasing.map((children) => ({ type: 'paragraph' as const, children })),
      anyPhrasing.map((children) => ({ type: 'paragraph' as const, children })),
      fc
        .record({ depth: fc.constantFrom(1, 2, 3, 6), children: anyPhrasing })
        .map(({ depth, children }) => ({ type: 'heading' as const, depth: depth as 1, children })),
      blocks.map((children) => ({ type: 'blockquote' as const, children })),
      fc
        .record({
          ordered: fc.boolean(),
          start: fc.constantFrom(undefined, 0, 1, 3, 10),
          spread: fc.boolean(),
          children: fc.array(item, { minLength: 1, maxLength: 3 }),
        })
        .map(({ ordered, start, spread, children }): List => ({
          type: 'list',
          ordered,
          spread,
          children,
          ...(ordered && start !== undefined ? { start } : {}),
        })),
      fc
        .record({
          lang: fc.constantFrom(null, 'js', 'a`b'),
          meta: fc.constantFrom(null, 'x y'),
          value: textValue,
        })
        .map(({ lang, meta, value }) => ({ type: 'code' as const, lang, meta, value })),
      fc.constant({ type: 'thematicBreak' as const }),
      fc
        .record({
          align,
          rows: fc.array(fc.array(cell, { minLength: 1, maxLength: 3 }), {
            minLength: 1,
            maxLength: 3,
          }),
        })
        .map(({ align, rows }) => ({
          type: 'table' as const,
          ...(align === undefined ? {} : { align }),
          children: rows.map((children) => ({ type: 'tableRow' as const, children })),
        })),
      htmlValue.map((value) => ({ type: 'html' as const, value })),
    ),
  };
});

// Enough for the suite's time; MARKDOWN_WRITER_RUNS=100000 for a long run by hand.
const runs = Number(process.env['MARKDOWN_WRITER_RUNS'] ?? 1000);

describe('markdown writer', () => {
  it('writes what the library writes, on random trees', { timeout: 600_000 }, () => {
    let written = 0;
    fc.assert(
      fc.property(fc.array(block, { minLength: 1, maxLength: 5 }), (children) => {
        const tree: Root = { type: 'root', children };
        const expected = library.stringify(structuredClone(tree));
        const ours = markdownWriter().write(structuredClone(tree));
        if (ours !== undefined) written++;
        expect(ours ?? expected).toBe(expected);
        expect(mdastToMarkdown(structuredClone(tree))).toBe(expected);
      }),
      {
        numRuns: runs,
        seed: Number(process.env['MARKDOWN_WRITER_SEED'] ?? 42),
        endOnFailure: true,
      },
    );
    // The comparison means something only if the writer wrote the trees, not the library.
    expect(written).toBe(runs);
  });

  it('leaves trees with nodes it does not write to the library', () => {
    const tree: Root = {
      type: 'root',
      children: [
        { type: 'definition', identifier: 'a', url: 'b' },
        { type: 'paragraph', children: [{ type: 'text', value: 'a' }] },
      ],
    };
    expect(markdownWriter().write(structuredClone(tree))).toBeUndefined();
    expect(mdastToMarkdown(structuredClone(tree))).toBe(library.stringify(structuredClone(tree)));
  });

  it('writes list markers, joins and headings as the library does', () => {
    const tree: Root = {
      type: 'root',
      children: [
        {
          type: 'heading',
          depth: 2,
          children: [
            { type: 'text', value: ' a' },
            { type: 'break' },
            { type: 'text', value: 'b' },
          ],
        },
        {
          type: 'list',
          ordered: false,
          spread: false,
          children: [
            {
              type: 'listItem',
              spread: false,
              children: [{ type: 'paragraph', children: [{ type: 'text', value: 'x' }] }],
            },
          ],
        },
        {
          type: 'list',
          ordered: false,
          spread: false,
          children: [{ type: 'listItem', spread: false, children: [{ type: 'thematicBreak' }] }],
        },
        {
          type: 'list',
          ordered: true,
          start: 3,
          spread: false,
          children: [
            {
              type: 'listItem',
              spread: false,
              children: [
                { type: 'paragraph', children: [{ type: 'text', value: 'y' }] },
                { type: 'code', lang: 'js', meta: null, value: 'a ``` b' },
              ],
            },
            {
              type: 'listItem',
              spread: false,
              children: [
                {
                  type: 'paragraph',
                  children: [
                    {
                      type: 'link',
                      url: 'a b',
                      title: 'T"',
                      children: [{ type: 'text', value: 'l' }],
                    },
                  ],
                },
              ],
            },
          ],
        },
      ],
    };
    const expected = library.stringify(structuredClone(tree));
    expect(expected).toBe(
      '&#x20;a\\\nb\n-\n\n- x\n\n* ---\n\n3. y\n   ````js\n   a ``` b\n   ````\n4. [l](<a b> "T\\"")\n',
    );
    expect(markdownWriter().write(structuredClone(tree))).toBe(expected);
  });
});
