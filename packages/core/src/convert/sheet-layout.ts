/**
 * A spreadsheet's sheets as HTML, the way their authors laid them out, whichever reader made the
 * grid (exceljs or the XML reader for XLSX, the ODF reader for ODS): each visible sheet is cut
 * into its tables at blank rows and columns, a title row above a table becomes its heading,
 * merged cells keep their span, hidden sheets, rows and columns are left out with a warning, and
 * comments become numbered notes under their table.
 */
import { escapeHtml } from '../internal/html.ts';

/** One visible cell of a sheet's grid; `covered` cells sit under a merged cell's span. */
export interface GridCell {
  text: string;
  rowspan: number;
  colspan: number;
  covered: boolean;
  /** The cell's comment, or ''. */
  note: string;
}

/** A sheet read into a grid of its visible rows and columns. */
export interface SheetGrid {
  name: string;
  visible: boolean;
  grid: GridCell[][];
  width: number;
  /** Hidden rows and columns left out. */
  hidden: number;
  /** HTML that follows the sheet's tables (its charts' data), or nothing. */
  after?: string;
}

export const blankCell = (): GridCell => ({
  text: '',
  rowspan: 1,
  colspan: 1,
  covered: false,
  note: '',
});

/** A rectangle of the grid: rows [top, bottom), columns [left, right). */
interface Block {
  top: number;
  bottom: number;
  left: number;
  right: number;
}

const isFilled = (cell: GridCell | undefined) => !!cell && (cell.text !== '' || cell.covered);

/**
 * Cuts a block at wholly blank rows, then each band at wholly blank columns, and again until
 * nothing changes (an XY cut): tables side by side and one under the other come apart.
 */
function splitBlocks(grid: GridCell[][], block: Block, depth = 0): Block[] {
  const rowFilled = (r: number) =>
    grid[r]!.slice(block.left, block.right).some((cell) => isFilled(cell));
  const bands: Block[] = [];
  for (let r = block.top; r < block.bottom; r++) {
    if (!rowFilled(r)) continue;
    const last = bands.at(-1);
    if (last && last.bottom === r) last.bottom = r + 1;
    else bands.push({ ...block, top: r, bottom: r + 1 });
  }
  const pieces: Block[] = [];
  for (const band of bands) {
    const columnFilled = (c: number) => {
      for (let r = band.top; r < band.bottom; r++) if (isFilled(grid[r]![c])) return true;
      return false;
    };
    let current: Block | undefined;
    for (let c = band.left; c < band.right; c++) {
      if (!columnFilled(c)) current = undefined;
      else if (current) current.right = c + 1;
      else pieces.push((current = { ...band, left: c, right: c + 1 }));
    }
  }
  const settled = pieces.length === 1 && sameBlock(pieces[0]!, block);
  if (settled || depth > 8) return pieces;
  return pieces.flatMap((piece) => splitBlocks(grid, piece, depth + 1));
}

const sameBlock = (a: Block, b: Block) =>
  a.top === b.top && a.bottom === b.bottom && a.left === b.left && a.right === b.right;

/** The filled cells of one row of a block. */
const filledIn = (grid: GridCell[][], block: Block, r: number) =>
  grid[r]!.slice(block.left, block.right).filter((cell) => cell.text !== '');

/**
 * Whether row `r` is a title over the rest of its block: one filled cell, at the block's left
 * edge, or typed alone further right (a centred title). A merged cell further right is a group
 * header over some columns (a merged "Landings" above Q1…Q4), which belongs to the table.
 */
function isTitleRow(grid: GridCell[][], block: Block, r: number): boolean {
  const filled = filledIn(grid, block, r);
  if (filled.length !== 1) return false;
  const row = grid[r]!;
  const c = row.indexOf(filled[0]!);
  return c === block.left || filled[0]!.colspan === 1;
}

const superscripts = '⁰¹²³⁴⁵⁶⁷⁸⁹';

/**
 * A note's number after a cell's value, a space then superscript digits: as text, so it stays
 * apart from the value wherever markup is dropped or text is normalised (a `<sup>`, or "¹" right
 * after the value, would make "15" and note 1 read "151").
 */
const noteMark = (number: number) =>
  ' ' + [...String(number)].map((digit) => superscripts[Number(digit)]).join('');

function tableHtml(grid: GridCell[][], block: Block, notes: string[]): string {
  const rows: string[] = [];
  for (let r = block.top; r < block.bottom; r++) {
    const tag = r === block.top ? 'th' : 'td';
    let cells = '';
    for (let c = block.left; c < block.right; c++) {
      const cell = grid[r]![c]!;
      if (cell.covered) continue;
      // A span never reaches outside its table.
      const colspan = Math.min(cell.colspan, block.right - c);
      const rowspan = Math.min(cell.rowspan, block.bottom - r);
      const spans =
        (colspan > 1 ? ` colspan="${colspan}"` : '') + (rowspan > 1 ? ` rowspan="${rowspan}"` : '');
      let text = escapeHtml(cell.text);
      if (cell.note) {
        notes.push(cell.note);
        text += noteMark(notes.length);
      }
      cells += `<${tag}${spans}>${text}</${tag}>`;
    }
    rows.push(`<tr>${cells}</tr>`);
  }
  const [head, ...body] = rows;
  return `<table><thead>${head}</thead><tbody>${body.join('')}</tbody></table>`;
}

/** One sheet's tables: a lone short cell is a heading; a title row above a table is its heading. */
function sheetTablesHtml(grid: GridCell[][], width: number): string {
  const out: string[] = [];
  const notes: string[] = [];
  for (const found of splitBlocks(grid, { top: 0, bottom: grid.length, left: 0, right: width })) {
    const block = { ...found };
    // Title rows stand above a table; a block of lone cells throughout is a one-column table.
    const tableBelow = (from: number) => {
      for (let r = from; r < block.bottom; r++)
        if (filledIn(grid, block, r).length > 1) return true;
      return false;
    };
    while (
      block.bottom - block.top > 1 &&
      isTitleRow(grid, block, block.top) &&
      tableBelow(block.top + 1)
    ) {
      out.push(`<h3>${escapeHtml(filledIn(grid, block, block.top)[0]!.text)}</h3>`);
      block.top++;
    }
    const cells = (block.bottom - block.top) * (block.right - block.left);
    const only = filledIn(grid, block, block.top)[0];
    if (cells === 1 && only) {
      out.push(
        only.text.length <= 100
          ? `<h3>${escapeHtml(only.text)}</h3>`
          : `<p>${escapeHtml(only.text)}</p>`,
      );
      if (only.note) notes.push(only.note);
    } else out.push(tableHtml(grid, block, notes));
    if (notes.length) {
      out.push(`<ol>${notes.map((note) => `<li>${escapeHtml(note)}</li>`).join('')}</ol>`);
      notes.length = 0;
    }
  }
  return out.join('\n');
}

/**
 * A workbook's sheets as HTML: one `<h2>` per visible sheet, then its tables, and a warning that
 * names what was left out (hidden sheets, rows and columns, and the reader's own `note`).
 */
export function sheetsHtml(
  sheets: readonly SheetGrid[],
  note?: string,
): { html: string; warning?: string } {
  const sections: string[] = [];
  const skipped: string[] = [];
  let hiddenLines = 0;
  for (const sheet of sheets) {
    if (!sheet.visible) {
      skipped.push(sheet.name);
      continue;
    }
    hiddenLines += sheet.hidden;
    sections.push(
      `<h2>${escapeHtml(sheet.name)}</h2>\n${sheetTablesHtml(sheet.grid, sheet.width)}${sheet.after ?? ''}`,
    );
  }
  const warnings = [
    skipped.length ? `Hidden sheets were skipped: ${skipped.join(', ')}.` : '',
    hiddenLines ? `${hiddenLines} hidden rows or columns were skipped.` : '',
    note ?? '',
  ].filter(Boolean);
  return { html: sections.join('\n'), ...(warnings.length ? { warning: warnings.join(' ') } : {}) };
}
