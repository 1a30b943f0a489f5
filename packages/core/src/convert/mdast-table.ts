/**
 * Tables, the one model every reader's output goes through: each reader (HTML pages, DOCX,
 * XLSX and ODS, PPTX and ODP, PDF) writes an HTML table, and this module reads it as a grid of
 * cells with spans, header rows and cells that may hold several blocks, then writes it once:
 *
 * - a GFM table when the grid fits one: a spanned cell keeps its content in its top-left
 *   position and the positions it covers stay empty; a cell's blocks are joined with `<br>`, list
 *   items written as `•` lines;
 * - an HTML table inside the markdown when no GFM table can show it (a table nested in a cell);
 * - the cells' blocks in reading order when the table only lays a page out (one row or one
 *   column of blocks, `role="presentation"`).
 */
import type {
  BlockContent,
  DefinitionContent,
  Html,
  PhrasingContent,
  Table,
  TableCell,
} from 'mdast';
import { escapeHtml } from '../internal/html.ts';
import { headingTags, isTag, isText, type AnyNode, type Element } from './dom.ts';
import { collapse, normaliseInline } from './mdast-whitespace.ts';

type Flow = BlockContent | DefinitionContent;

/** How the markdown converter reads a cell's content: as blocks, or as inline content. */
export interface CellReaders {
  flow(nodes: readonly AnyNode[]): Flow[];
  phrasing(element: Element): PhrasingContent[];
}

/** One cell of the grid, at the position of its top-left corner. */
interface GridCell {
  element: Element;
  rowSpan: number;
  colSpan: number;
}

const blockTags = new Set([
  'p',
  'div',
  'ul',
  'ol',
  'li',
  'pre',
  'blockquote',
  'dl',
  'table',
  'section',
  'article',
  'figure',
  ...headingTags,
]);
// Blocks a layout table is made of: a one-row or one-column table holding these is a page grid.
const structuralTags = new Set(['table', 'ul', 'ol', 'pre', ...headingTags, 'blockquote', 'dl']);

const tableTags = new Set(['table']);

const lineBreak = (): Html => ({ type: 'html', value: '<br>' });

export function tableOf(table: Element, read: CellReaders): Flow[] {
  const rows = collectRows(table);
  if (rows.length === 0) return [];
  const width = Math.max(...rows.map((row) => row.reduce((sum, cell) => sum + span(cell), 0)));
  const holdsStructure = rows.some((row) =>
    row.some((cell) => hasDescendant(cell, structuralTags)),
  );
  if (
    holdsStructure &&
    (rows.length === 1 || width === 1 || table.attribs['role'] === 'presentation')
  )
    return rows.flatMap((row) => row.flatMap((cell) => read.flow(cell.children)));
  if (rows.some((row) => row.some((cell) => hasDescendant(cell, tableTags))))
    return [{ type: 'html', value: htmlTableOf(rows) }];
  return [gfmTableOf(rows, read)];
}

function gfmTableOf(rows: Element[][], read: CellReaders): Table {
  const grid = placeCells(rows);
  const width = Math.max(...grid.map((cells) => cells.length));
  const mdRows = grid.map((cells) => ({
    type: 'tableRow' as const,
    children: Array.from({ length: width }, (_, column): TableCell => {
      const cell = cells[column];
      return { type: 'tableCell', children: cell ? cellContent(cell.element, read) : [] };
    }),
  }));
  const first = rows[0] ?? [];
  const hasHeader =
    first.length > 0 && (first.every((cell) => cell.name === 'th') || isInThead(first[0]));
  if (!hasHeader) {
    mdRows.unshift({
      type: 'tableRow',
      children: Array.from({ length: width }, () => ({ type: 'tableCell', children: [] })),
    });
  }
  const align = (hasHeader ? first : []).flatMap((cell) => {
    const value = (
      cell.attribs['align'] ??
      /text-align:\s*(left|right|center)/.exec(cell.attribs['style'] ?? '')?.[1] ??
      ''
    ).toLowerCase();
    const one = value === 'left' || value === 'right' || value === 'center' ? value : null;
    return Array.from({ length: span(cell) }, () => one);
  });
  return { type: 'table', align: align.length ? align : null, children: mdRows };
}

/**
 * The grid: each cell at its top-left position, the positions its spans cover left undefined so
 * later cells keep their columns. Loops of the module rather than closures per table: V8
 * compiled a closure made per table again after every full GC of the conversion thread.
 */
function placeCells(rows: Element[][]): (GridCell | undefined)[][] {
  const coveredRowsByColumn: number[] = [];
  const grid: (GridCell | undefined)[][] = [];
  for (const [rowIndex, row] of rows.entries()) {
    const cells: (GridCell | undefined)[] = [];
    for (const element of row) {
      skipCovered(cells, coveredRowsByColumn);
      const rowSpan = Math.min(rowSpanOf(element), rows.length - rowIndex);
      const colSpan = span(element);
      for (let extra = 0; extra < colSpan; extra++) {
        if (rowSpan > 1) coveredRowsByColumn[cells.length] = rowSpan - 1;
        cells.push(extra === 0 ? { element, rowSpan, colSpan } : undefined);
      }
    }
    // Columns past the row's last cell that a cell above still covers.
    for (let column = cells.length; column < coveredRowsByColumn.length; column++) {
      if ((coveredRowsByColumn[column] ?? 0) > 0) coveredRowsByColumn[column]!--;
    }
    grid.push(cells);
  }
  return grid;
}

function skipCovered(cells: (GridCell | undefined)[], coveredRowsByColumn: number[]): void {
  while ((coveredRowsByColumn[cells.length] ?? 0) > 0) {
    coveredRowsByColumn[cells.length]!--;
    cells.push(undefined);
  }
}

/**
 * A cell's content on one GFM line: inline content as it is, line breaks as `<br>` (a cell has
 * no other way to keep them); a cell of blocks (paragraphs, a list) as its blocks joined by
 * `<br>`, each list item a `•` line, so the table keeps its grid.
 */
function cellContent(cell: Element, read: CellReaders): PhrasingContent[] {
  const inline = hasDescendant(cell, blockTags)
    ? joinLines(read.flow(cell.children).flatMap((block) => linesOf(block)))
    : normaliseInline(read.phrasing(cell));
  return inline.map((node) => (node.type === 'break' ? lineBreak() : node));
}

function joinLines(lines: PhrasingContent[][]): PhrasingContent[] {
  const out: PhrasingContent[] = [];
  for (const line of lines) {
    if (line.length === 0) continue;
    if (out.length > 0) out.push(lineBreak());
    out.push(...line);
  }
  return out;
}

function linesOf(block: Flow, marker = ''): PhrasingContent[][] {
  const prefix = (line: PhrasingContent[]): PhrasingContent[] =>
    marker && line.length > 0 ? [{ type: 'text', value: marker }, ...line] : line;
  switch (block.type) {
    case 'paragraph':
    case 'heading':
      return [prefix(block.children)];
    case 'list':
      return block.children.flatMap((item, index) => {
        const bullet = block.ordered ? `${(block.start ?? 1) + index}. ` : '• ';
        return item.children.flatMap((child, at) =>
          // The item's first block carries its marker; nested lists and later blocks follow it.
          linesOf(child, at === 0 && child.type !== 'list' ? bullet : ''),
        );
      });
    case 'blockquote':
      return block.children.flatMap((child) => linesOf(child, marker));
    case 'code':
      return block.value
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => prefix([{ type: 'inlineCode', value: line }]));
    case 'html':
      return [prefix([{ type: 'html', value: block.value }])];
    default:
      return [];
  }
}

/** The table as compact HTML: its structure, spans and inline markup, no presentation. */
function htmlTableOf(rows: Element[][]): string {
  const body = rows.map((row) => `<tr>${row.map((cell) => htmlOf(cell)).join('')}</tr>`).join('');
  return `<table>${body}</table>`;
}

const keptTags = new Set([
  'table',
  'tr',
  'th',
  'td',
  'p',
  'ul',
  'ol',
  'li',
  'br',
  'a',
  'strong',
  'b',
  'em',
  'i',
  'code',
  'pre',
  'img',
  'sub',
  'sup',
  ...headingTags,
]);
const keptAttributes = ['colspan', 'rowspan', 'href', 'src', 'alt'];

function htmlOf(node: AnyNode): string {
  if (isText(node)) return escapeHtml(collapse(node.data));
  if (!isTag(node)) return '';
  if (node.name === 'table') return htmlTableOf(collectRows(node));
  const inner = node.children.map((child) => htmlOf(child)).join('');
  if (!keptTags.has(node.name)) return inner;
  const attributes = keptAttributes
    .filter((name) => node.attribs[name] !== undefined)
    .map((name) => ` ${name}="${escapeHtml(node.attribs[name]!)}"`)
    .join('');
  if (node.name === 'br' || node.name === 'img') return `<${node.name}${attributes}>`;
  return `<${node.name}${attributes}>${inner.trim()}</${node.name}>`;
}

function isInThead(cell: Element | undefined): boolean {
  const section = cell?.parent?.parent;
  return section !== null && section !== undefined && isTag(section) && section.name === 'thead';
}

function collectRows(table: Element): Element[][] {
  const rows: Element[][] = [];
  const visit = (parent: Element) => {
    for (const child of parent.children) {
      if (!isTag(child)) continue;
      if (child.name === 'tr')
        rows.push(
          child.children.filter(
            (cell): cell is Element => isTag(cell) && (cell.name === 'td' || cell.name === 'th'),
          ),
        );
      else if (child.name === 'thead' || child.name === 'tbody' || child.name === 'tfoot')
        visit(child);
    }
  };
  visit(table);
  return rows.filter((row) => row.length > 0);
}

function hasDescendant(element: Element, tags: ReadonlySet<string>): boolean {
  for (const child of element.children) {
    if (!isTag(child)) continue;
    if (tags.has(child.name) || hasDescendant(child, tags)) return true;
  }
  return false;
}

function rowSpanOf(cell: Element): number {
  const value = Number.parseInt(cell.attribs['rowspan'] ?? '1', 10);
  return Number.isFinite(value) && value > 1 ? Math.min(value, 1000) : 1;
}

function span(cell: Element): number {
  const value = Number.parseInt(cell.attribs['colspan'] ?? '1', 10);
  return Number.isFinite(value) && value > 1 ? Math.min(value, 50) : 1;
}
