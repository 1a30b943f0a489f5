/**
 * XLSX to the grids sheet-layout.ts lays out as HTML: cells as their values, merged ranges as
 * spans, hidden sheets, rows and columns marked, comments kept as notes. Pictures and charts never make a sheet unreadable: a
 * workbook whose drawings exceljs cannot read is read again without them.
 */
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { ValidationError } from '../errors.ts';
import { blankCell, type GridCell, type SheetGrid, sheetsHtml } from './sheet-layout.ts';
import { readXlsxCells } from './xlsx-cells.ts';
import { readSheetCharts, type SheetCharts } from './xlsx-charts.ts';

/** A cell's value as text: formulas as their result, dates in ISO form, rich text flattened. */
function cellText(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) return '';
    const iso = value.toISOString();
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
  }
  if (typeof value === 'object') {
    if ('result' in value) return cellText(value.result);
    if ('richText' in value && Array.isArray(value.richText))
      return value.richText.map((part) => part.text).join('');
    if ('text' in value) return cellText(value.text);
    if ('error' in value) return String(value.error);
    return '';
  }
  return String(value);
}

/** A comment's text, whichever shape exceljs gives it. */
function noteText(note: ExcelJS.Cell['note'] | undefined): string {
  if (!note) return '';
  if (typeof note === 'string') return note.trim();
  return (note.texts ?? [])
    .map((part) => part.text)
    .join('')
    .trim();
}

/** A sheet as a grid of its visible rows and columns, and how many of each were hidden. */
function readSheet(sheet: ExcelJS.Worksheet): {
  grid: GridCell[][];
  width: number;
  hidden: number;
} {
  const columnCount = Math.min(sheet.columnCount, 16_384);
  const visibleColumns: number[] = [];
  for (let c = 1; c <= columnCount; c++) if (!sheet.getColumn(c).hidden) visibleColumns.push(c);
  const grid: GridCell[][] = [];
  const at = new Map<string, { cell: GridCell; r: number; c: number }>();
  const covered: { cell: GridCell; r: number; c: number; master: string }[] = [];
  let hidden = columnCount - visibleColumns.length;
  let previous = 0;
  sheet.eachRow({ includeEmpty: false }, (row, number) => {
    // Skipped empty rows separate tables: one blank grid row stands for any number of them.
    if (number > previous + 1) grid.push(visibleColumns.map(blankCell));
    previous = number;
    if (row.hidden) {
      hidden++;
      return;
    }
    const r = grid.length;
    grid.push(
      visibleColumns.map((column, c) => {
        const cell = row.getCell(column);
        const master = cell.isMerged ? cell.master : cell;
        const gridCell: GridCell = {
          text: master === cell ? cellText(cell.value).trim() : '',
          rowspan: 1,
          colspan: 1,
          covered: master !== cell,
          note: master === cell ? noteText(cell.note) : '',
        };
        if (gridCell.covered) covered.push({ cell: gridCell, r, c, master: master.address });
        else at.set(cell.address, { cell: gridCell, r, c });
        return gridCell;
      }),
    );
  });
  // Spans from the visible cells each merged cell covers.
  for (const { r, c, master } of covered) {
    const origin = at.get(master);
    if (!origin || origin.r > r || origin.c > c) continue;
    origin.cell.rowspan = Math.max(origin.cell.rowspan, r - origin.r + 1);
    origin.cell.colspan = Math.max(origin.cell.colspan, c - origin.c + 1);
  }
  return { grid, width: visibleColumns.length, hidden };
}

/**
 * A copy of the package without its drawings (pictures, charts, shapes): exceljs fails on some
 * real drawing parts, and a sheet's cells do not depend on them.
 */
async function withoutDrawings(bytes: Uint8Array): Promise<Buffer> {
  const zip = await JSZip.loadAsync(bytes);
  for (const name of Object.keys(zip.files)) {
    if (/^xl\/(?:drawings|charts)\//.test(name)) zip.remove(name);
    else if (/^xl\/worksheets\/_rels\/.*\.rels$/.test(name)) {
      const rels = await zip.file(name)!.async('string');
      zip.file(name, rels.replace(/<Relationship\b[^>]*\/(?:drawing|vmlDrawing)"[^>]*\/>/g, ''));
    } else if (/^xl\/worksheets\/[^/]+\.xml$/.test(name)) {
      const xml = await zip.file(name)!.async('string');
      zip.file(name, xml.replace(/<(?:\w+:)?(?:drawing|legacyDrawing)\b[^>]*\/>/g, ''));
    }
  }
  return zip.generateAsync({ type: 'nodebuffer' });
}

/** exceljs's merge handling is quadratic: past this many merged ranges the XML reader is used. */
const maxExceljsMerges = 5_000;

async function mergeCount(bytes: Uint8Array): Promise<number> {
  const zip = await JSZip.loadAsync(bytes);
  let count = 0;
  for (const name of Object.keys(zip.files))
    if (/^xl\/worksheets\/[^/]+\.xml$/.test(name))
      count += (await zip.file(name)!.async('string')).split('<mergeCell ').length - 1;
  return count;
}

/** A sheet as exceljs reads it (with dates and comments). */
function exceljsSheet(sheet: ExcelJS.Worksheet): SheetGrid {
  return {
    name: sheet.name,
    visible: sheet.state === 'visible' || !sheet.state,
    ...readSheet(sheet),
  };
}

/**
 * The workbook's sheets: by exceljs, which knows number formats (dates) and comments; again
 * without drawings when exceljs fails on them; by the XML reader when exceljs cannot read the
 * package at all or it has too many merged ranges for exceljs.
 */
async function readSheets(bytes: Uint8Array): Promise<{ sheets: SheetGrid[]; note?: string }> {
  const load = async (data: Uint8Array) => {
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(Buffer.from(data) as unknown as ArrayBuffer);
    return workbook.worksheets.map(exceljsSheet);
  };
  let failure: unknown;
  try {
    if ((await mergeCount(bytes)) <= maxExceljsMerges) {
      const sheets = await load(bytes);
      // No sheet at all: exceljs looked for the parts under their usual names only.
      if (sheets.length) return { sheets };
    }
  } catch (error) {
    failure = error;
    try {
      return {
        sheets: await load(await withoutDrawings(bytes)),
        note: 'Pictures and charts could not be read and were left out.',
      };
    } catch {
      // The XML reader below.
    }
  }
  try {
    return {
      sheets: await readXlsxCells(bytes),
      note: 'Dates are shown as serial numbers and comments are left out (the workbook was read from its XML).',
    };
  } catch (error) {
    const cause = failure ?? error;
    throw new ValidationError(`The spreadsheet cannot be read: ${(cause as Error).message}`, {
      cause,
    });
  }
}

/** A workbook as HTML: one `<h2>` per visible sheet, then its tables (sheet-layout.ts). */
export async function spreadsheetHtml(
  bytes: Uint8Array,
): Promise<{ html: string; warning?: string }> {
  const { sheets, note } = await readSheets(bytes);
  return sheetsHtml(await withCharts(bytes, sheets), note);
}

/**
 * The sheets with their charts' data after their tables, and chart sheets (which exceljs leaves
 * out) in their place as sheets of a chart only. A workbook whose charts cannot be read keeps
 * its cells.
 */
async function withCharts(bytes: Uint8Array, sheets: SheetGrid[]): Promise<SheetGrid[]> {
  let charts: SheetCharts[];
  try {
    charts = await readSheetCharts(bytes);
  } catch {
    return sheets;
  }
  if (charts.every((sheet) => sheet.html === '')) return sheets;
  const byName = new Map(sheets.map((sheet) => [sheet.name, sheet]));
  const out: SheetGrid[] = [];
  for (const sheet of charts) {
    const cells = byName.get(sheet.name);
    if (cells) {
      byName.delete(sheet.name);
      out.push(sheet.html ? { ...cells, after: sheet.html } : cells);
    } else if (sheet.isChartSheet && sheet.html)
      out.push({
        name: sheet.name,
        visible: sheet.visible,
        grid: [],
        width: 0,
        hidden: 0,
        after: sheet.html,
      });
  }
  // Sheets the chart reader did not list (a workbook part it could not follow) stay, at the end.
  return [...out, ...byName.values()];
}
