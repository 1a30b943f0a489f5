/**
 * An OpenDocument spreadsheet's sheet as the grid sheet-layout.ts lays out, so ODS and XLSX read
 * alike: typed cell values (dates, times, booleans, percentages), merged cells as spans, comments
 * (`office:annotation`) as notes, hidden (collapsed or filtered) rows and columns left out, and
 * repeated rows and columns expanded within bounds.
 */
import type { Element } from 'domhandler';
import { blankCell, type GridCell, type SheetGrid } from './sheet-layout.ts';
import { textOf } from './odf.ts';
import { attribute, childElements, localName } from './xml-walk.ts';

/** Most rows one sheet may expand to: a repeated row can claim a million. */
const maxSheetRows = 100_000;
/** Most columns a row may expand to (the ODF limit is 16,384). */
const maxSheetColumns = 16_384;
/** Largest grid built for one sheet, as for XLSX. */
const maxCells = 4_000_000;

/** A cell's value as text: the stored value for numbers, dates and times, else its text. */
export function cellValue(cell: Element): string {
  switch (attribute(cell, 'value-type')) {
    case 'float':
    case 'percentage':
    case 'currency':
      return attribute(cell, 'value') ?? '';
    case 'date':
      return (attribute(cell, 'date-value') ?? '').replace(/T00:00:00(?:\.0+)?$/, '');
    case 'time': {
      const [, hours = '0', minutes = '0', seconds = '0'] =
        /^PT(\d+)H(\d+)M([\d.]+)S$/.exec(attribute(cell, 'time-value') ?? '') ?? [];
      return [hours, minutes, seconds.split('.')[0] ?? '0']
        .map((part) => part.padStart(2, '0'))
        .join(':');
    }
    case 'boolean':
      return attribute(cell, 'boolean-value') === 'true' ? 'TRUE' : 'FALSE';
    default:
      return paragraphsText(cell);
  }
}

/** The text of an element's paragraphs, one line each joined by spaces. */
const paragraphsText = (element: Element | undefined): string =>
  childElements(element)
    .filter((child) => localName(child) === 'p' || localName(child) === 'h')
    .map((paragraph) => textOf(paragraph).replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join(' ');

const isHidden = (element: Element) => {
  const visibility = attribute(element, 'visibility');
  return visibility === 'collapse' || visibility === 'filter';
};

/** The sheet's columns that are hidden, by index (a declaration may repeat over thousands). */
function hiddenColumnsOf(sheet: Element): Set<number> {
  const hidden = new Set<number>();
  let column = 0;
  const visit = (parent: Element) => {
    for (const child of childElements(parent)) {
      const name = localName(child);
      if (name === 'table-column') {
        const repeat = Math.min(
          Number(attribute(child, 'number-columns-repeated')) || 1,
          maxSheetColumns - column,
        );
        if (isHidden(child)) for (let c = column; c < column + repeat; c++) hidden.add(c);
        column += repeat;
      } else if (
        name === 'table-columns' ||
        name === 'table-header-columns' ||
        name === 'table-column-group'
      )
        visit(child);
    }
  };
  visit(sheet);
  return hidden;
}

/** A table's row elements in order, through header rows and row groups. */
export function rowElementsOf(sheet: Element): Element[] {
  const rows: Element[] = [];
  const visit = (parent: Element) => {
    for (const child of childElements(parent)) {
      const name = localName(child);
      if (name === 'table-row') rows.push(child);
      else if (name === 'table-header-rows' || name === 'table-rows' || name === 'table-row-group')
        visit(child);
    }
  };
  visit(sheet);
  return rows;
}

/** A cell as read, at its position in the sheet (hidden rows and columns counted). */
interface SheetCell {
  column: number;
  text: string;
  note: string;
  rowSpan: number;
  colSpan: number;
}

/** One row's cells that hold something: a value, a comment, a span or a merged cell's cover. */
function rowCells(row: Element): SheetCell[] {
  const cells: SheetCell[] = [];
  let column = 0;
  for (const cell of childElements(row)) {
    const name = localName(cell);
    if (name !== 'table-cell' && name !== 'covered-table-cell') continue;
    const repeat = Math.min(
      Number(attribute(cell, 'number-columns-repeated')) || 1,
      maxSheetColumns - column,
    );
    if (name === 'covered-table-cell') {
      // Covered by a merged cell above: the row belongs to the table even if nothing else is in it.
      cells.push({ column, text: '', note: '', rowSpan: 1, colSpan: 1 });
    } else {
      const read: Omit<SheetCell, 'column'> = {
        text: cellValue(cell),
        note: paragraphsText(childElements(cell, 'annotation')[0]),
        rowSpan: Number(attribute(cell, 'number-rows-spanned')) || 1,
        colSpan: Number(attribute(cell, 'number-columns-spanned')) || 1,
      };
      // Repeated empty cells only matter if something follows them: they are counted, never
      // expanded.
      if (read.text !== '' || read.note !== '' || read.rowSpan > 1 || read.colSpan > 1)
        for (let copy = 0; copy < repeat; copy++) cells.push({ ...read, column: column + copy });
    }
    column += repeat;
    if (column >= maxSheetColumns) break;
  }
  return cells;
}

/**
 * One sheet as a grid of its visible rows and columns. Runs of empty rows (a sheet's tail often
 * claims a million) are counted, never expanded: one blank grid row stands for any run, which is
 * all the layout needs to tell two tables apart.
 */
export function odsSheetGrid(sheet: Element, hiddenStyles: ReadonlySet<string>): SheetGrid {
  const hiddenColumns = hiddenColumnsOf(sheet);
  // Hidden rows with content stay in the list, marked, so they leave no gap where they were.
  const read: { row: number; last: number; cells: SheetCell[]; hidden: boolean }[] = [];
  let hiddenRows = 0;
  let row = 0;
  let width = 0;
  let expanded = 0;
  for (const element of rowElementsOf(sheet)) {
    const repeat = Number(attribute(element, 'number-rows-repeated')) || 1;
    const cells = rowCells(element);
    if (cells.length > 0) {
      if (isHidden(element)) {
        hiddenRows += repeat;
        read.push({ row, last: row + repeat - 1, cells, hidden: true });
      } else {
        const copies = Math.min(repeat, maxSheetRows - expanded);
        for (let copy = 0; copy < copies; copy++)
          read.push({ row: row + copy, last: row + copy, cells, hidden: false });
        expanded += copies;
        for (const cell of cells) width = Math.max(width, cell.column + cell.colSpan);
      }
    }
    row += repeat;
    if (expanded >= maxSheetRows) break;
  }
  width = Math.min(width, maxSheetColumns);
  const columns = Array.from({ length: width }, (_, c) => c).filter((c) => !hiddenColumns.has(c));
  const gridColumnOf = new Map(columns.map((c, index) => [c, index]));
  const grid: GridCell[][] = [];
  const gridRowOf = new Map<number, number>();
  const masters: { cell: SheetCell; row: number }[] = [];
  let previous: number | undefined;
  for (const { row: at, last, cells, hidden } of read) {
    if ((grid.length + 2) * columns.length > maxCells) break;
    if (previous !== undefined && at > previous + 1) grid.push(columns.map(blankCell));
    previous = last;
    if (hidden) continue;
    gridRowOf.set(at, grid.length);
    const gridRow = columns.map(blankCell);
    for (const cell of cells) {
      const index = gridColumnOf.get(cell.column);
      if (index !== undefined) Object.assign(gridRow[index]!, { text: cell.text, note: cell.note });
      if (cell.rowSpan > 1 || cell.colSpan > 1) masters.push({ cell, row: at });
    }
    grid.push(gridRow);
  }
  // Spans in grid positions: the visible rows and columns each merged cell covers.
  for (const { cell, row: top } of masters) {
    const gridTop = gridRowOf.get(top);
    const gridLeft = gridColumnOf.get(cell.column);
    if (gridTop === undefined || gridLeft === undefined) continue;
    const master = grid[gridTop]![gridLeft]!;
    for (let r = top; r < top + Math.min(cell.rowSpan, maxSheetRows); r++) {
      const gridRow = gridRowOf.get(r);
      if (gridRow === undefined) continue;
      for (let c = cell.column; c < Math.min(cell.column + cell.colSpan, width); c++) {
        const gridColumn = gridColumnOf.get(c);
        if (gridColumn === undefined || (gridRow === gridTop && gridColumn === gridLeft)) continue;
        Object.assign(grid[gridRow]![gridColumn]!, { covered: true, text: '', note: '' });
        master.rowspan = Math.max(master.rowspan, gridRow - gridTop + 1);
        master.colspan = Math.max(master.colspan, gridColumn - gridLeft + 1);
      }
    }
  }
  return {
    name: attribute(sheet, 'name') ?? 'Sheet',
    visible: !hiddenStyles.has(attribute(sheet, 'style-name') ?? ''),
    grid,
    width: columns.length,
    hidden: hiddenRows + [...hiddenColumns].filter((c) => c < width).length,
  };
}
