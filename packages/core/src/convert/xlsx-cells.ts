/**
 * A second XLSX reader, straight from the package's XML. exceljs throws on a share of
 * real workbooks (a workbook part under an unusual name, tables with auto-filters, inline strings,
 * alternate content in the properties) and takes quadratic time on sheets with tens of thousands
 * of merged ranges; this reader takes only what a document needs — sheet names and visibility,
 * cell values (shared, inline and formula strings, numbers, booleans), hidden rows and columns,
 * merged ranges — in one pass per sheet. Number formats (dates) are not applied.
 */
import type { Element } from 'domhandler';
import { isTag } from 'domhandler';
import { ValidationError } from '../errors.ts';
import type JSZip from 'jszip';
import { openPackage, readRelationships, readXmlPart, type Relationship } from './ooxml.ts';
import { blankCell, type GridCell, type SheetGrid } from './sheet-layout.ts';
import { attribute, childElements, localName } from './xml-walk.ts';

/** Largest grid built for one sheet: a cell far out (XFD1048576) must not allocate the sheet. */
const maxCells = 4_000_000;

/** Text of an element's `t` descendants, phonetic runs (`rPh`) left out. */
function runText(element: Element): string {
  let text = '';
  const visit = (node: Element) => {
    for (const child of node.children) {
      if (!isTag(child)) continue;
      const name = localName(child);
      if (name === 'rPh' || name === 'phoneticPr') continue;
      if (name === 't')
        text += child.children.map((n) => ('data' in n ? String(n.data) : '')).join('');
      else visit(child);
    }
  };
  visit(element);
  return text;
}

const nodeText = (element: Element | undefined) =>
  element ? element.children.map((n) => ('data' in n ? String(n.data) : '')).join('') : '';

/** "BC12" → { row: 11, column: 54 } (zero-based). */
function position(ref: string): { row: number; column: number } | undefined {
  const match = /^\$?([A-Z]{1,3})\$?(\d{1,7})$/i.exec(ref);
  if (!match) return undefined;
  let column = 0;
  for (const char of match[1]!.toUpperCase()) column = column * 26 + char.charCodeAt(0) - 64;
  return { row: Number(match[2]) - 1, column: column - 1 };
}

function cellValue(cell: Element, shared: string[]): string {
  const type = attribute(cell, 't');
  if (type === 'inlineStr') return runText(childElements(cell, 'is')[0] ?? cell);
  const value = nodeText(childElements(cell, 'v')[0]);
  if (type === 's') return shared[Number(value)] ?? '';
  if (type === 'b') return value === '1' ? 'TRUE' : value === '0' ? 'FALSE' : value;
  return value;
}

/** One worksheet part as a grid. */
function readWorksheet(
  root: Element | undefined,
  shared: string[],
): Omit<SheetGrid, 'name' | 'visible'> {
  const worksheet = root;
  const hiddenColumns = new Set<number>();
  for (const col of childElements(childElements(worksheet, 'cols')[0], 'col'))
    if (attribute(col, 'hidden') === '1' || attribute(col, 'hidden') === 'true')
      for (
        let c = Number(attribute(col, 'min')) - 1;
        c < Number(attribute(col, 'max')) && c < 16_384;
        c++
      )
        hiddenColumns.add(c);
  const cells = new Map<number, Map<number, string>>();
  const hiddenRows = new Set<number>();
  let rowIndex = -1;
  let width = 0;
  for (const row of childElements(childElements(worksheet, 'sheetData')[0], 'row')) {
    rowIndex = Number(attribute(row, 'r') ?? rowIndex + 2) - 1;
    if (attribute(row, 'hidden') === '1' || attribute(row, 'hidden') === 'true')
      hiddenRows.add(rowIndex);
    let columnIndex = -1;
    const values = new Map<number, string>();
    for (const cell of childElements(row, 'c')) {
      const at = position(attribute(cell, 'r') ?? '');
      columnIndex = at ? at.column : columnIndex + 1;
      const text = cellValue(cell, shared).trim();
      if (text) values.set(columnIndex, text);
    }
    if (values.size) {
      cells.set(rowIndex, values);
      width = Math.max(width, ...[...values.keys()].map((c) => c + 1));
    }
  }
  const merges = childElements(childElements(worksheet, 'mergeCells')[0], 'mergeCell').flatMap(
    (merge) => {
      const [from, to] = (attribute(merge, 'ref') ?? '').split(':').map(position);
      return from && to ? [{ from, to }] : [];
    },
  );
  // Rows that hold a value or a merged range, in order; one blank row stands for a gap.
  const used = new Set(cells.keys());
  for (const { from, to } of merges) {
    used.add(from.row);
    used.add(to.row);
    width = Math.max(width, to.column + 1);
  }
  width = Math.min(width, 16_384);
  const columns = Array.from({ length: width }, (_, c) => c).filter((c) => !hiddenColumns.has(c));
  const gridRowOf = new Map<number, number>();
  const grid: GridCell[][] = [];
  let previous = -1;
  const ordered = [...used].sort((a, b) => a - b);
  for (const row of ordered) {
    if (grid.length * columns.length > maxCells) break;
    if (hiddenRows.has(row)) continue;
    if (row > previous + 1 && grid.length) grid.push(columns.map(blankCell));
    previous = row;
    gridRowOf.set(row, grid.length);
    const values = cells.get(row);
    grid.push(columns.map((c) => ({ ...blankCell(), text: values?.get(c) ?? '' })));
  }
  const gridColumnOf = new Map(columns.map((c, i) => [c, i]));
  for (const { from, to } of merges) {
    const top = gridRowOf.get(from.row);
    const left = gridColumnOf.get(from.column);
    if (top === undefined || left === undefined) continue;
    const master = grid[top]![left]!;
    for (let r = from.row; r <= to.row; r++) {
      const gr = gridRowOf.get(r);
      if (gr === undefined) continue;
      for (let c = from.column; c <= to.column; c++) {
        const gc = gridColumnOf.get(c);
        if (gc === undefined || (gr === top && gc === left)) continue;
        grid[gr]![gc]!.covered = true;
        grid[gr]![gc]!.text = '';
        master.rowspan = Math.max(master.rowspan, gr - top + 1);
        master.colspan = Math.max(master.colspan, gc - left + 1);
      }
    }
  }
  const hidden = hiddenRows.size + [...hiddenColumns].filter((c) => c < width).length;
  return { grid, width: columns.length, hidden };
}

/** An XLSX package, its workbook part and that part's relationships. */
export interface Workbook {
  zip: JSZip;
  workbookPath: string;
  workbook: Element;
  rels: Map<string, Relationship>;
}

/**
 * Opens an XLSX package at its workbook part, which is wherever the package's relationships
 * say, not always xl/workbook.xml.
 *
 * @throws BAD_REQUEST when the package has no readable workbook part
 */
export async function openWorkbook(bytes: Uint8Array): Promise<Workbook> {
  const zip = openPackage(bytes, 'spreadsheet');
  const packageRels = await readRelationships(zip, '');
  const workbookPath =
    [...packageRels.values()].find((rel) => rel.type === 'officeDocument')?.target ??
    'xl/workbook.xml';
  const workbook = await readXmlPart(zip, workbookPath);
  if (!workbook)
    throw new ValidationError('The spreadsheet cannot be read: it has no workbook part');
  return { zip, workbookPath, workbook, rels: await readRelationships(zip, workbookPath) };
}

/**
 * The sheets of an XLSX package, read from its XML.
 *
 * @throws BAD_REQUEST when the package has no readable workbook part
 */
export async function readXlsxCells(bytes: Uint8Array): Promise<SheetGrid[]> {
  const { zip, workbook, rels } = await openWorkbook(bytes);
  const sharedPath = [...rels.values()].find((rel) => rel.type === 'sharedStrings')?.target;
  const sharedRoot = sharedPath ? await readXmlPart(zip, sharedPath) : undefined;
  const shared = childElements(sharedRoot, 'si').map(runText);
  const sheets: SheetGrid[] = [];
  for (const sheet of childElements(childElements(workbook, 'sheets')[0], 'sheet')) {
    const target = rels.get(attribute(sheet, 'id', { prefixed: true }) ?? '')?.target;
    const root = target ? await readXmlPart(zip, target) : undefined;
    if (!root || localName(root) !== 'worksheet') continue;
    const state = attribute(sheet, 'state');
    sheets.push({
      name: attribute(sheet, 'name') ?? `Sheet ${sheets.length + 1}`,
      visible: state !== 'hidden' && state !== 'veryHidden',
      ...readWorksheet(root, shared),
    });
  }
  return sheets;
}
