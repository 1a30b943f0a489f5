/**
 * Table truth and scoring for the real-document table bench: reading the tables out of
 * parse()'s markdown (GFM, and the HTML tables kept for merged cells), reading ICDAR 2013
 * structure files and tabula CSVs, and a per-table cell F1 under the best alignment.
 */
import { isTag, type Element } from 'domhandler';
import { parseDocument } from 'htmlparser2';
import { markdownTables, normaliseCell, type Grid } from '../../test/parse-corpus/metrics.ts';

export type { Grid };

const textOf = (element: Element): string =>
  element.children
    .map((child) =>
      isTag(child)
        ? child.name === 'br'
          ? ' '
          : textOf(child)
        : 'data' in child
          ? String(child.data)
          : '',
    )
    .join('');

const elements = (root: { children: unknown[] }, name: string): Element[] => {
  const found: Element[] = [];
  const visit = (node: { children?: unknown[] }) => {
    for (const child of (node.children ?? []) as Element[]) {
      if (!isTag(child)) continue;
      if (child.name === name) found.push(child);
      visit(child);
    }
  };
  visit(root);
  return found;
};

/** An HTML table as a grid; a spanning cell's text sits in its top-left slot. */
function htmlGrid(table: Element): Grid {
  const grid: Grid = [];
  elements(table, 'tr').forEach((tr, r) => {
    grid[r] ??= [];
    let c = 0;
    for (const cell of tr.children.filter(isTag)) {
      if (cell.name !== 'td' && cell.name !== 'th') continue;
      while (grid[r][c] !== undefined) c++;
      const colspan = Math.max(1, Number(cell.attribs.colspan) || 1);
      const rowspan = Math.max(1, Number(cell.attribs.rowspan) || 1);
      for (let dr = 0; dr < rowspan; dr++)
        for (let dc = 0; dc < colspan; dc++) {
          grid[r + dr] ??= [];
          grid[r + dr]![c + dc] = dr === 0 && dc === 0 ? textOf(cell).trim() : '';
        }
      c += colspan;
    }
  });
  return grid.map((row) => Array.from(row, (cell) => cell ?? ''));
}

/** Every table in a markdown text: GFM tables, and raw HTML tables. */
export function outputTables(markdown: string): Grid[] {
  const html = parseDocument(markdown);
  return [...markdownTables(markdown), ...elements(html, 'table').map(htmlGrid)];
}

/** The tables of an ICDAR 2013 `-str.xml` file; the regions of one table (its pages) stack. */
export function icdarTables(xml: string): Grid[] {
  const document = parseDocument(xml, { xmlMode: true });
  return elements(document, 'table').map((table) => {
    const grid: Grid = [];
    let offset = 0;
    for (const region of elements(table, 'region')) {
      let last = 0;
      for (const cell of elements(region, 'cell')) {
        const row = offset + Number(cell.attribs['start-row']);
        const column = Number(cell.attribs['start-col']);
        last = Math.max(last, Number(cell.attribs['end-row'] ?? cell.attribs['start-row']));
        const content = elements(cell, 'content')[0];
        grid[row] ??= [];
        grid[row][column] = content ? textOf(content).replace(/\s+/g, ' ').trim() : '';
      }
      offset += last + 1;
    }
    return Array.from(grid, (row) => Array.from(row ?? [], (cell) => cell ?? ''));
  });
}

/** A tabula CSV (RFC 4180: quoted fields may hold commas, quotes and line breaks) as a grid. */
export function csvTable(text: string): Grid {
  const rows: Grid = [[]];
  const field = /("(?:[^"]|"")*"|[^,\r\n]*)(,|\r?\n|$)/gy;
  for (let match = field.exec(text); match && match.index < text.length; match = field.exec(text)) {
    const raw = match[1]!;
    rows.at(-1)!.push(raw.startsWith('"') ? raw.slice(1, -1).replace(/""/g, '"') : raw);
    if (match[2] !== ',') rows.push([]);
  }
  return rows.filter((row) => row.length > 0);
}

/** A grid's normalised text, wholly empty rows and columns dropped. */
function compact(grid: Grid): Grid {
  const rows = grid
    .map((row) => row.map(normaliseCell))
    .filter((row) => row.some((cell) => cell !== ''));
  const width = Math.max(0, ...rows.map((row) => row.length));
  const used = Array.from({ length: width }, (_, c) => rows.some((row) => (row[c] ?? '') !== ''));
  return rows.map((row) =>
    Array.from({ length: width }, (_, c) => row[c] ?? '').filter((_, c) => used[c]),
  );
}

const cellsOf = (grid: Grid) =>
  grid.flatMap((row, r) => row.flatMap((text, c) => (text ? [{ r, c, text }] : [])));

/**
 * Cell F1 of one output table against one truth table, at the row and column offset that
 * matches most cells (an output with an extra title row or label column is not shifted wrong).
 */
export function pairF1(truth: Grid, output: Grid): number {
  const t = cellsOf(compact(truth));
  const o = cellsOf(compact(output));
  if (t.length === 0 || o.length === 0) return 0;
  const byText = new Map<string, { r: number; c: number }[]>();
  for (const cell of o) byText.set(cell.text, [...(byText.get(cell.text) ?? []), cell]);
  const offsets = new Map<string, number>();
  for (const cell of t)
    for (const other of byText.get(cell.text) ?? []) {
      const key = `${cell.r - other.r},${cell.c - other.c}`;
      offsets.set(key, (offsets.get(key) ?? 0) + 1);
    }
  const best = Math.max(0, ...offsets.values());
  return (2 * best) / (t.length + o.length);
}

/** For each truth table, the best F1 any output table reaches. */
export function bestF1s(truth: readonly Grid[], output: readonly Grid[]): number[] {
  return truth.map((table) => Math.max(0, ...output.map((other) => pairF1(table, other))));
}

/**
 * Where a table's body begins: its first row with a label in the first column and a digit in
 * some other cell. Rows above it are the header block; none when no row looks like that.
 */
function bodyStart(grid: Grid): number {
  const start = grid.findIndex(
    (row) => (row[0] ?? '') !== '' && row.slice(1).some((cell) => /\d/.test(cell)),
  );
  return Math.max(0, start);
}

const headerWords = (grid: Grid) =>
  grid
    .slice(0, bodyStart(grid))
    .flat()
    .flatMap((cell) => cell.split(' ').filter(Boolean))
    .sort()
    .join(' ');

/**
 * Exact under a looser reading of the header: the body (from its first labelled row of figures)
 * must match cell for cell, the header block only word for word. Tabula writes a header of
 * several lines as one row per line (stream) and moves a merged header cell's text into the
 * next free slot of its row (lattice); ICDAR's truth and our output keep one cell per header
 * cell. Both sides are normalised the same way.
 */
export function exactBodyAndHeaderWords(truth: Grid, output: Grid): boolean {
  const t = compact(truth);
  const o = compact(output);
  const [tb, ob] = [t.slice(bodyStart(t)), o.slice(bodyStart(o))];
  return headerWords(t) === headerWords(o) && pairF1(tb, ob) === 1;
}
