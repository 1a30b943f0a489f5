/**
 * An OpenDocument spreadsheet's sheet as an HTML table: typed cell values (dates, times,
 * booleans, percentages), repeated rows and columns expanded within bounds.
 */
import type { Element } from 'domhandler';
import { escapeHtml } from '../internal/html.ts';
import { textOf } from './odf.ts';
import { attribute, childElements, localName } from './xml-walk.ts';

/** Most rows one sheet may expand to: a repeated row can claim a million. */
const maxSheetRows = 100_000;
/** Most columns a row may expand to (the ODF limit is 16,384). */
const maxSheetColumns = 16_384;

/** A cell's value as text: the stored value for numbers, dates and times, else its text. */
function cellValue(cell: Element): string {
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
      return childElements(cell, 'p')
        .map((paragraph) => textOf(paragraph).replace(/\s+/g, ' ').trim())
        .join(' ');
  }
}

/**
 * One sheet as a heading and a table of its used range: rows and columns empty throughout are
 * left out, as for XLSX, and repeated empty rows and cells (a sheet's tail often claims a
 * million) are counted, never expanded.
 */
export function sheetHtml(sheet: Element): string {
  const rows: string[][] = [];
  const rowElements: Element[] = [];
  const collect = (parent: Element) => {
    for (const child of childElements(parent)) {
      const name = localName(child);
      if (name === 'table-row') rowElements.push(child);
      else if (name === 'table-header-rows' || name === 'table-rows' || name === 'table-row-group')
        collect(child);
    }
  };
  collect(sheet);
  for (const row of rowElements) {
    const cells: string[] = [];
    for (const cell of childElements(row)) {
      const name = localName(cell);
      if (name !== 'table-cell' && name !== 'covered-table-cell') continue;
      const repeat = Number(attribute(cell, 'number-columns-repeated')) || 1;
      const value = name === 'table-cell' ? cellValue(cell) : '';
      // Repeated empty cells only matter if something follows them.
      const count = Math.min(repeat, maxSheetColumns - cells.length);
      for (let copy = 0; copy < count; copy++) cells.push(value);
      if (cells.length >= maxSheetColumns) break;
    }
    while (cells.length > 0 && cells[cells.length - 1] === '') cells.pop();
    if (cells.length === 0) continue;
    const repeat = Math.min(
      Number(attribute(row, 'number-rows-repeated')) || 1,
      maxSheetRows - rows.length,
    );
    for (let copy = 0; copy < repeat; copy++) rows.push(cells);
    if (rows.length >= maxSheetRows) break;
  }
  const width = Math.max(0, ...rows.map((row) => row.length));
  const used = Array.from({ length: width }, (_, column) =>
    rows.some((row) => (row[column] ?? '') !== ''),
  );
  const grid = rows.map((row) =>
    used.flatMap((isUsed, column) => (isUsed ? [row[column] ?? ''] : [])),
  );
  const name = escapeHtml(attribute(sheet, 'name') ?? 'Sheet');
  if (grid.length === 0) return `<h2>${name}</h2>`;
  const cellsOf = (row: string[], tag: 'th' | 'td') =>
    `<tr>${row.map((cell) => `<${tag}>${escapeHtml(cell)}</${tag}>`).join('')}</tr>`;
  const [head, ...body] = grid;
  return `<h2>${name}</h2><table><thead>${cellsOf(head!, 'th')}</thead><tbody>${body.map((row) => cellsOf(row, 'td')).join('')}</tbody></table>`;
}
