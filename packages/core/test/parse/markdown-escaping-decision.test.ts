/**
 * The escaping decision (docs/markdown-escaping.md): a character is escaped only where leaving it
 * would change the rendered text. Checked on parse() of CSV files, whose cells are plain text
 * taken as they are, against remark's own reading of the markdown with GFM.
 */
import fc from 'fast-check';
import type { Root, Table } from 'mdast';
import { toString } from 'mdast-util-to-string';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { describe, expect, it } from 'vitest';
import { parse } from '@trawl/core';

const reader = unified().use(remarkParse).use(remarkGfm);

/** The cells of the first table of a markdown text, as remark renders their text. */
function renderedCells(markdown: string): string[][] {
  const tree: Root = reader.parse(markdown);
  const table = tree.children.find((node): node is Table => node.type === 'table');
  return (table?.children ?? []).map((row) => row.children.map((cell) => toString(cell)));
}

/** A CSV of the rows, every field quoted, so any text is one cell. */
const csvOf = (rows: string[][]) =>
  rows.map((row) => row.map((cell) => `"${cell.replace(/"/g, '""')}"`).join(',')).join('\r\n');

// Characters some escaping rule looks at, and the letters around them that decide whether it
// applies (`www.`, `http:`, `a@b.c`, `1.`).
const alphabet = [...' !"#&\'()*+-.:<=>@[\\]_`|~019abehlmoptsw/'];
const cellText = fc
  .array(fc.constantFrom(...alphabet), { minLength: 1, maxLength: 16 })
  .map((characters) => characters.join('').trim())
  // A cell is read trimmed, and an empty one has nothing to render.
  .filter((text) => text !== '');

describe('markdown escaping of parsed documents', () => {
  it('renders every cell back to its own text, whatever markdown syntax it holds', async () => {
    await fc.assert(
      // Many rows per file: each parse() is a round trip to the conversion thread.
      fc.asyncProperty(
        fc.array(fc.array(cellText, { minLength: 3, maxLength: 3 }), {
          minLength: 1,
          maxLength: 25,
        }),
        async (body) => {
          const rows = [['h0', 'h1', 'h2'], ...body];
          const doc = await parse(new TextEncoder().encode(csvOf(rows)), {
            filename: 'cells.csv',
            csv: { delimiter: ',', header: true },
          });
          // Runs of white space collapse to one space, as in any HTML the document passes through.
          const collapsed = rows.map((row) => row.map((text) => text.replace(/\s+/g, ' ')));
          expect(renderedCells(doc.markdown ?? '')).toEqual(collapsed);
        },
      ),
      { numRuns: 15 },
    );
  });

  // The markdown writer writes exactly what remark-stringify writes today, autolink-literal
  // escapes included; this turns into a plain `it` when it leaves those three rules out.
  it.fails(
    'writes e-mail addresses and URLs without the escapes that only stop autolinks',
    async () => {
      const rows = [
        ['Email', 'Website'],
        ['zunigavanessa@smith.info', 'http://www.stephenson.com/'],
        ['ana@example.org', 'www.example.org'],
      ];
      const doc = await parse(new TextEncoder().encode(csvOf(rows)), { filename: 'people.csv' });
      const markdown = doc.markdown ?? '';
      expect(renderedCells(markdown)).toEqual(rows);
      expect(markdown).toContain('| zunigavanessa@smith.info | http://www.stephenson.com/ |');
      expect(markdown).toContain('| ana@example.org | www.example.org |');
    },
  );
});
