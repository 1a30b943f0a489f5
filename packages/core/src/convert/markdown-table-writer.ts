/**
 * GFM tables as our markdown writer writes them: unpadded (no alignment of the `|`), one space
 * inside each non-empty cell, the header row as long as the table is wide, and every delimiter
 * cell `---` with its alignment colons (a one-dash `| - |` row is valid GFM but refused
 * by stricter table readers). This is what mdast-util-gfm-table writes with `tablePipeAlign` off,
 * with our delimiter row.
 */
import type { Table, TableRow } from 'mdast';
import { writeInline, type WriterState } from './markdown-phrasing.ts';
import { unwritable } from './markdown-syntax.ts';

export function writeTable(state: WriterState, node: Table): string {
  const stack = state.stack;
  stack.push('table');
  const rows = node.children.map((row) => cellsOf(state, row));
  stack.pop();
  const head = rows[0];
  if (head) {
    let columns = node.align ? node.align.length : 0;
    if (!columns) for (const row of rows) if (row.length > columns) columns = row.length;
    while (head.length < columns) head.push('');
  }
  // A table without rows: the delimiter row of no columns, one empty cell.
  if (!head) return '| |';
  const headLine = line(head);
  const rest = rows.slice(1).map(line);
  // A line ending in the head (raw in inline code or HTML) moves the delimiter row down: the
  // dashes of whatever then is the second line become `---`, as our table handler does on the
  // library's output (markdown.ts).
  if (headLine.includes('\n')) {
    const lines = [headLine, delimiterRow(node.align, head.length, '-'), ...rest]
      .join('\n')
      .split('\n');
    lines[1] = lines[1]!.replace(/-+/g, '---');
    return lines.join('\n');
  }
  return [headLine, delimiterRow(node.align, head.length, '---'), ...rest].join('\n');
}

function cellsOf(state: WriterState, row: TableRow): string[] {
  if (row.type !== 'tableRow') throw unwritable;
  const stack = state.stack;
  stack.push('tableRow');
  const cells = row.children.map((cell) => {
    if (cell.type !== 'tableCell') throw unwritable;
    stack.push('tableCell', 'phrasing');
    const value = writeInline(state, cell, '|', '|');
    stack.length -= 2;
    return value;
  });
  stack.pop();
  return cells;
}

/** `| a | b |`, an empty cell `| |`; a row of no cells is one empty cell. */
function line(cells: readonly string[]): string {
  let value = '';
  const count = Math.max(1, cells.length);
  for (let index = 0; index < count; index++) {
    const cell = cells[index] ?? '';
    value += index === 0 ? '|' : '';
    value += cell === '' ? ' |' : ` ${cell} |`;
  }
  return value;
}

/** The delimiter row; a table of no columns has one empty cell there. */
function delimiterRow(align: Table['align'], columns: number, dashes: string): string {
  if (columns === 0) return '| |';
  let value = '';
  for (let index = 0; index < columns; index++) {
    const code = alignmentOf(align?.[index]);
    const cell =
      (code === 'c' || code === 'l' ? ':' : '') +
      dashes +
      (code === 'c' || code === 'r' ? ':' : '');
    value += `${index === 0 ? '|' : ''} ${cell} |`;
  }
  return value;
}

function alignmentOf(value: string | null | undefined): string {
  const code = typeof value === 'string' ? value.charAt(0).toLowerCase() : '';
  return code === 'c' || code === 'l' || code === 'r' ? code : '';
}
