/**
 * Tables drawn without rules ("stream" tables), found from the text alone, the way
 * Camelot's stream mode and Tabula's guesser read them: a line of text is cut into chunks at gaps
 * wider than a word space; a run of lines most of which have two or more chunks is a table
 * candidate; its columns are the horizontal gaps that stay open across its fullest rows; each
 * line is a row, and a line that only continues the cells above (a wrapped label) joins them.
 */
import type { Fragment } from './extract.ts';
import {
  buildLines,
  isRightToLeft,
  type Line,
  median,
  readingOrder,
  splitWords,
  type Word,
} from './geometry.ts';
import type { Table } from './tables.ts';

/** A run of words on one line with no wide gap inside. */
interface Chunk {
  words: Word[];
  left: number;
  right: number;
}

interface Row {
  line: Line;
  chunks: Chunk[];
}

/** A gap wider than this many font sizes separates cells; a word space is about a quarter. */
const cellGap = 0.9;
/** The gap that separates two figures. */
const figureGap = 0.5;
const isFigure = (text: string) => /^[(]?[-–+±$€£]?[\d.,]+[)%]?$/.test(text) && /\d/.test(text);
/** The share of a table's rows that may cross a column boundary. */
const blockingShare = 0.2;
/** Captions and source lines sit next to tables but are never rows. */
const caption = /^(?:table|figure|fig\.|chart|source|sources|note|notes)\b/i;
const listMarker = /^(?:[•◦▪▫●○■□‣⁃–*-]|\(?\d{1,3}[.)]|\(?[a-z][.)]|\(?[ivx]{1,5}[.)])$/i;

function chunksOf(line: Line): Chunk[] {
  const words = line.fragments.flatMap(splitWords).sort((a, b) => a.left - b.left);
  const chunks: Chunk[] = [];
  for (const word of words) {
    const last = chunks.at(-1);
    const previous = last?.words.at(-1);
    // Two figures side by side are two cells even close together: a cell holds one figure.
    const gap = previous && isFigure(previous.text) && isFigure(word.text) ? figureGap : cellGap;
    if (last && word.left - last.right <= Math.max(word.size, line.size) * gap) {
      last.words.push(word);
      last.right = Math.max(last.right, word.right);
    } else chunks.push({ words: [word], left: word.left, right: word.right });
  }
  return chunks;
}

const chunkText = (chunk: Chunk) => chunk.words.map((word) => word.text).join(' ');

/** A line that reads as table content: several chunks, and not a list marker before its text. */
const isMulti = (row: Row) =>
  row.chunks.length >= 2 &&
  !caption.test(row.line.text) &&
  !(row.chunks.length === 2 && listMarker.test(chunkText(row.chunks[0]!)));

const isProseLine = (row: Row) => row.chunks.every((chunk) => chunk.words.length >= 5);

/** Runs of lines that look like a table: mostly multi-chunk lines, close together. */
function candidateRuns(rows: Row[]): Row[][] {
  const runs: Row[][] = [];
  let run: Row[] = [];
  let pending: Row[] = [];
  const close = () => {
    if (run.filter(isMulti).length >= 3) runs.push(run);
    run = [];
    pending = [];
  };
  for (const row of rows) {
    const previous = pending.at(-1) ?? run.at(-1);
    const gap = previous ? row.line.y - previous.line.y : 0;
    if (previous && gap > Math.max(row.line.size, previous.line.size) * 3) close();
    // A caption or a source line ends a table: what follows is the next table or the text.
    if (caption.test(row.line.text)) {
      close();
      continue;
    }
    // Body prose in columns below a table in smaller type: as many chunks per line as a row,
    // but each a run of words in a larger size.
    const sized = run.find(isMulti)?.line.size;
    if (sized && row.line.size > sized * 1.15 && isProseLine(row)) close();
    if (isMulti(row)) {
      run.push(...pending, row);
      pending = [];
    } else if (run.length && pending.length < 3) pending.push(row);
    else {
      close();
    }
  }
  close();
  return runs;
}

/**
 * Column boundaries: x ranges that (almost) no chunk covers. A few rows may cross a boundary —
 * a header cell spanning columns, a title set inside the table — so a range covered by at most a
 * fifth of the rows still counts as a gap.
 */
function columnGaps(rows: Row[], size: number): Array<{ from: number; to: number }> {
  const chunks = rows.flatMap((row) => row.chunks);
  const left = Math.floor(Math.min(...chunks.map((chunk) => chunk.left)));
  const right = Math.ceil(Math.max(...chunks.map((chunk) => chunk.right)));
  const coverage = new Int32Array(Math.max(0, right - left) + 1);
  for (const row of rows)
    for (const chunk of row.chunks)
      for (let x = Math.ceil(chunk.left) - left; x <= Math.floor(chunk.right) - left; x++)
        coverage[x]!++;
  const allowed = rows.length >= 5 ? Math.floor(rows.length * blockingShare) : 0;
  const gaps: Array<{ from: number; to: number }> = [];
  let start = -1;
  for (let x = 0; x < coverage.length; x++) {
    const open = coverage[x]! <= allowed;
    if (open && start < 0) start = x;
    if (!open && start >= 0) {
      if (x - start >= size * 0.5 && start > 0) gaps.push({ from: left + start, to: left + x });
      start = -1;
    }
  }
  return gaps;
}

/** Prose set in columns: long runs of words in every chunk. */
function isProse(rows: Row[]): boolean {
  const chunks = rows.flatMap((row) => row.chunks);
  const words = chunks.map((chunk) => chunk.words.length);
  if (median(words) >= 6) return true;
  // Columns of running text set narrow: most chunks several words long, hardly a figure.
  const wordy = words.filter((count) => count >= 4).length / chunks.length;
  const figures = chunks.filter((chunk) => chunk.words.some((word) => isFigure(word.text)));
  return wordy >= 0.6 && figures.length / chunks.length < 0.1;
}

function tableFromRun(
  run: Row[],
  before: Row | undefined,
  after: Row | undefined,
): Table | undefined {
  // Trim leading and trailing single-chunk lines: titles and notes, not rows.
  while (run.length && !isMulti(run[0]!)) run.shift();
  while (run.length && !isMulti(run.at(-1)!)) run.pop();
  const multi = run.filter(isMulti);
  if (multi.length < 3 || isProse(multi)) return undefined;
  if (before && startsHeaderCell(before, run[0]!)) run.unshift(before);
  const size = median(run.map((row) => row.line.size));
  const gaps = columnGaps(multi, size);
  if (gaps.length === 0) return undefined;
  const columnOf = (x: number) => {
    const index = gaps.findIndex((gap) => x < (gap.from + gap.to) / 2);
    return index < 0 ? gaps.length : index;
  };
  const grid: string[][] = [];
  const lines: Row[] = [];
  for (const row of run) {
    const cellWords = Array.from({ length: gaps.length + 1 }, () => [] as Word[]);
    for (const chunk of row.chunks) {
      // A chunk crossing a column boundary at a wide gap is two cells; at a word space it is
      // one cell spanning columns, kept in the column it starts in.
      for (const piece of piecesOf(chunk, columnOf, size))
        cellWords[columnOfPiece(piece, gaps, columnOf)]!.push(...piece);
    }
    grid.push(
      cellWords.map((words) =>
        readingOrder(words)
          .map((word) => word.text)
          .join(' '),
      ),
    );
    lines.push(row);
  }
  // The last row's label wrapped onto a line of its own: that line has one chunk, so the run
  // ended before it; it is taken when joinWrappedLines would join it.
  const last = run.at(-1)!;
  if (after && wrapsLastLabel(after, last, grid.at(-1)![0]!, gaps[0]!, size)) {
    grid.push([after.line.text, ...gaps.map(() => '')]);
    lines.push(after);
    run.push(after);
  }
  // Dot leaders lead the eye to a figure; a line of dashes is a rule set in type.
  const cleaned = grid.map((cells) => cells.map(withoutLeaders));
  const kept = cleaned.flatMap((cells, i) =>
    cells.every((cell) => cell === '' || /^[-_=–—.\s]{4,}$/.test(cell)) ? [] : [i],
  );
  const merged = joinWrappedLines(
    kept.map((i) => cleaned[i]!),
    kept.map((i) => lines[i]!),
    size,
  );
  const words = run.flatMap((row) => row.chunks);
  const box = {
    left: Math.min(...words.map((chunk) => chunk.left)),
    right: Math.max(...words.map((chunk) => chunk.right)),
    top: Math.min(...run.map((row) => row.line.y - row.line.size)),
    bottom: Math.max(...run.map((row) => row.line.y + row.line.size * 0.3)),
  };
  return { box, rows: merged, headerRows: 1 };
}

/**
 * A lone line tight above a table's first row, over one of its cells and no wider than it: the
 * first line of a header cell set on more lines than its neighbours (a title spans the table,
 * or stands apart).
 */
function startsHeaderCell(line: Row, first: Row): boolean {
  if (line.chunks.length !== 1 || first.line.y - line.line.y > first.line.size * 1.3) return false;
  const [chunk] = line.chunks as [Chunk];
  return first.chunks.some(
    (cell) =>
      chunk.left >= cell.left - first.line.size &&
      chunk.right <= cell.right + first.line.size &&
      chunk.right - chunk.left <= (cell.right - cell.left) * 1.5,
  );
}

/** A chunk's words cut where they cross a column boundary at a gap wider than a word space. */
function piecesOf(chunk: Chunk, columnOf: (x: number) => number, size: number): Word[][] {
  const pieces: Word[][] = [];
  let current = columnOf(chunk.words[0]!.left);
  for (const word of chunk.words) {
    const previous = pieces.at(-1)?.at(-1);
    const column = columnOf(word.left);
    if (!previous || (column !== current && word.left - previous.right > size * 0.5)) {
      pieces.push([word]);
      current = column;
    } else pieces.at(-1)!.push(word);
  }
  return pieces;
}

/**
 * The column a piece of text belongs to: the one its left edge is in, unless most of it lies
 * in another (a right-aligned header over figures starts left of its column's boundary).
 */
function columnOfPiece(
  piece: Word[],
  gaps: Array<{ from: number; to: number }>,
  columnOf: (x: number) => number,
): number {
  const left = piece[0]!.left;
  const right = Math.max(...piece.map((word) => word.right));
  const bounds = [-Infinity, ...gaps.map((gap) => (gap.from + gap.to) / 2), Infinity];
  const overlap = (c: number) =>
    Math.max(0, Math.min(right, bounds[c + 1]!) - Math.max(left, bounds[c]!));
  const start = columnOf(left);
  if (overlap(start) * 2 >= right - left) return start;
  let best = start;
  for (let c = 0; c < bounds.length - 1; c++) if (overlap(c) > overlap(best)) best = c;
  return best;
}

/**
 * A line whose first column is empty, set tight under a row whose first column is not, and with
 * text only where that row has text, continues that row's cells (a wrapped label or value).
 */
function joinWrappedLines(grid: string[][], rows: Row[], size: number): string[][] {
  const out: string[][] = [];
  let previous: Row | undefined;
  // Header lines: those above the first line with a figure past the label column.
  const firstData = grid.findIndex((cells) => cells.slice(1).some((cell) => isFigure(cell)));
  const filled = (cells: string[]) => cells.flatMap((cell, c) => (cell ? [c] : []));
  const within = (a: number[], b: number[]) => a.every((c) => b.includes(c));
  const labelOnly = (cells?: string[]) =>
    cells !== undefined && cells[0] !== '' && cells.slice(1).every((cell) => cell === '');
  for (let i = 0; i < grid.length; i++) {
    const cells = grid[i]!;
    const last = out.at(-1);
    // A label wrapped over two lines with the row's figures set on a line between them,
    // centred on the cell: the three lines are one row (in the body: header lines are not).
    const [middle, below] = [grid[i + 1], grid[i + 2]];
    if (
      i + 1 >= firstData &&
      labelOnly(cells) &&
      labelOnly(below) &&
      middle?.[0] === '' &&
      middle.slice(1).some((cell) => cell !== '') &&
      rows[i + 2]!.line.y - rows[i]!.line.y <= size * 2.8
    ) {
      out.push([`${cells[0]} ${below![0]}`, ...middle.slice(1)]);
      previous = rows[i + 2];
      i += 2;
      continue;
    }
    const tight = previous && rows[i]!.line.y - previous.line.y <= size * 1.3;
    // A header cell wrapped over lines: tight lines, one's cells among the other's.
    if (last && tight && i < firstData) {
      const [a, b] = [filled(last), filled(cells)];
      if (a.length && b.length && (within(a, b) || within(b, a))) {
        cells.forEach((cell, c) => cell && (last[c] = last[c] ? `${last[c]} ${cell}` : cell));
        previous = rows[i];
        continue;
      }
    }
    const continues =
      last &&
      tight &&
      cells[0] === '' &&
      last[0] !== '' &&
      cells.every((cell, c) => cell === '' || last[c] !== '');
    // A label wrapped onto a line of its own: the label above breaks mid-phrase. A row with
    // no label (a group title over the columns) has none to continue.
    const wrappedLabel =
      last &&
      tight &&
      cells[0] !== '' &&
      last[0] !== '' &&
      cells.slice(1).every((cell) => cell === '') &&
      (/[/,-]$/.test(last[0]!) || /^\p{Ll}/u.test(cells[0]!) || hanging(rows[i]!, previous!));
    if (wrappedLabel) last[0] = `${last[0]} ${cells[0]}`;
    else if (continues) cells.forEach((cell, c) => cell && (last[c] = `${last[c]} ${cell}`));
    else out.push([...cells]);
    previous = rows[i];
  }
  return out;
}

/**
 * Whether a one-chunk line tight under a table's last row, in its label column and type size,
 * continues that row's label: the label breaks mid-phrase, the line starts in lower case, or
 * it hangs indented under the label (the tests joinWrappedLines makes).
 */
function wrapsLastLabel(
  line: Row,
  last: Row,
  label: string,
  firstGap: { from: number; to: number },
  size: number,
): boolean {
  if (line.chunks.length !== 1 || label === '' || isRightToLeft(line.line.text)) return false;
  if (line.line.y - last.line.y > size * 1.3 || Math.abs(line.line.size - last.line.size) > 0.6)
    return false;
  if (line.chunks[0]!.right > firstGap.from + 1 || caption.test(line.line.text)) return false;
  return /[/,-]$/.test(label) || /^\p{Ll}/u.test(line.line.text) || hanging(line, last);
}

/** A line set a little right of the label above it: the hanging indent of a wrapped label. */
const hanging = (row: Row, above: Row) =>
  row.line.left > above.line.left + row.line.size * 0.15 &&
  row.line.left < above.line.left + row.line.size * 1.5;

/** A cell's text without the dot leaders that run from a label to its figures. */
const withoutLeaders = (text: string): string =>
  text
    .replace(/(?:\s*\.){3,}\s*$/, '')
    .replace(/^\s*(?:\.\s*){3,}/, '')
    .trim();

/** Stream tables among fragments no ruled table took. */
export function streamTables(fragments: Fragment[]): Table[] {
  const rows = buildLines(fragments).map((line) => ({ line, chunks: chunksOf(line) }));
  return candidateRuns(rows).flatMap((run) => {
    const first = rows.indexOf(run.find(isMulti)!);
    return tableFromRun(run, rows[first - 1], rows[rows.indexOf(run.at(-1)!) + 1]) ?? [];
  });
}

/**
 * The one table set by alignment inside a region whose rules frame it (tables.ts): every line
 * of the region is a row, blank lines and all, since the frame and not the spacing bounds it.
 */
export function streamTableIn(fragments: Fragment[]): Table | undefined {
  const rows = buildLines(fragments).map((line) => ({ line, chunks: chunksOf(line) }));
  return tableFromRun(rows, undefined, undefined);
}
