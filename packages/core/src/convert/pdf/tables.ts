/**
 * Tables on a PDF page, found two ways: from ruling lines (a grid of horizontal and vertical
 * rules; a missing rule between two cells means they are merged), and from text alignment alone
 * (stream.ts).
 */
import type { Fragment, PageContent, Segment } from './extract.ts';
import { streamTableIn, streamTables } from './stream.ts';
import {
  type Box,
  centreX,
  cutWord,
  fragmentBox,
  readingOrder,
  splitWords,
  type Word,
} from './geometry.ts';

export interface Table {
  box: Box;
  /** Rows of cells; a merged cell's text is in its top-left cell and the cells it covers are empty. */
  rows: string[][];
  /** How many header rows (bold first rows, or the first row of a ruled table). */
  headerRows: number;
}

const tolerance = 2;

/**
 * Joins rules that continue one another (producers often draw a row's border cell by cell). The
 * pieces of one rule may sit a fraction of a point apart: they are gathered by position first,
 * then joined along their length, so a piece drawn later but further left is not left out.
 */
function mergeSegments(segments: Segment[]): Segment[] {
  const merged: Segment[] = [];
  for (const orientation of ['h', 'v'] as const) {
    const sorted = segments
      .filter((segment) => segment.orientation === orientation)
      .sort((a, b) => a.at - b.at);
    const lines: Segment[][] = [];
    for (const segment of sorted) {
      const line = lines.at(-1);
      if (line && segment.at - line.at(-1)!.at <= tolerance) line.push(segment);
      else lines.push([segment]);
    }
    for (const line of lines) {
      const at = line.reduce((sum, segment) => sum + segment.at, 0) / line.length;
      let run: Segment | undefined;
      for (const segment of line.sort((a, b) => a.from - b.from)) {
        if (run && segment.from <= run.to + tolerance) run.to = Math.max(run.to, segment.to);
        else {
          run = { orientation, at, from: segment.from, to: segment.to };
          merged.push(run);
        }
      }
    }
  }
  return merged;
}

/** Parallel rules at most this far apart (points) with no text between are one rule drawn twice. */
const doubleRuleGap = 3.5;

/**
 * Folds double rules into one: a table whose cells each draw their own border (HTML's
 * `border="1"` with cell spacing, as browsers print it) has two rules a point or two apart
 * between neighbouring cells, which would make an empty column or row of their own.
 */
function foldDoubleRules(segments: Segment[], words: Word[]): Segment[] {
  const folded: Segment[] = [];
  for (const orientation of ['h', 'v'] as const) {
    const sorted = segments
      .filter((segment) => segment.orientation === orientation)
      .sort((a, b) => a.at - b.at);
    // Each word's middle across the rules and along them: a word between two rules, beside
    // both, keeps them apart.
    const across = (word: Word) =>
      orientation === 'v' ? (word.left + word.right) / 2 : word.y - word.size * 0.3;
    const along = (word: Word) =>
      orientation === 'v' ? word.y - word.size * 0.3 : (word.left + word.right) / 2;
    const between = (a: Segment, b: Segment) =>
      words.some((word) => {
        const [x, y] = [across(word), along(word)];
        return (
          x > a.at + 0.5 &&
          x < b.at - 0.5 &&
          y >= Math.max(a.from, b.from) &&
          y <= Math.min(a.to, b.to)
        );
      });
    let group: Segment[] = [];
    const flush = () => {
      const at = group.reduce((sum, segment) => sum + segment.at, 0) / group.length;
      for (const segment of group) folded.push({ ...segment, at });
      group = [];
    };
    for (const segment of sorted) {
      const first = group[0];
      const apart = first ? segment.at - first.at : 0;
      if (first && (apart > doubleRuleGap || between(first, segment))) flush();
      group.push(segment);
    }
    if (group.length) flush();
  }
  return folded;
}

const crosses = (h: Segment, v: Segment) =>
  v.at >= h.from - tolerance &&
  v.at <= h.to + tolerance &&
  h.at >= v.from - tolerance &&
  h.at <= v.to + tolerance;

/** Distinct positions, closer ones folded together. */
function clusterPositions(values: number[]): number[] {
  const sorted = [...values].sort((a, b) => a - b);
  const clusters: number[][] = [];
  for (const value of sorted) {
    const last = clusters.at(-1);
    if (last && value - last.at(-1)! <= tolerance) last.push(value);
    else clusters.push([value]);
  }
  return clusters.map((cluster) => cluster.reduce((sum, v) => sum + v, 0) / cluster.length);
}

const covered = (segments: Segment[], at: number, along: number) =>
  segments.some(
    (segment) =>
      Math.abs(segment.at - at) <= tolerance &&
      segment.from - tolerance <= along &&
      segment.to + tolerance >= along,
  );

/** Orders a cell's words as lines, top to bottom, left to right. */
function cellText(words: Word[]): string {
  const sorted = [...words].sort((a, b) => a.y - b.y || a.left - b.left);
  const lines: Word[][] = [];
  for (const word of sorted) {
    const line = lines.at(-1);
    if (line && Math.abs(line[0]!.y - word.y) <= word.size * 0.45) line.push(word);
    else lines.push([word]);
  }
  return lines
    .map((line) =>
      readingOrder(line)
        .map((word) => word.text)
        .join(' '),
    )
    .join(' ')
    .replace(/(\p{L})- (\p{Ll})/gu, '$1$2')
    .replace(/(?:\s*\.){3,}\s*$/, '');
}

/** A number as tables print it: signs, currency, footnote stars, percent, (X) for n/a. */
const figure = /^[*†‡]*[-–+±$€£]?\(?[\d.,]+\)?%?[*†‡]*$|^\(X\)$|^[–-]$|^\*+$/;

/**
 * A ruled row's cells as rows of text. A row whose rules enclose lines of figures — baselines
 * shared by at least two cells, mostly figures (producers that rule only the header and the
 * frame, or a group of rows) — is one row per baseline; otherwise its cells' lines join (wrapped
 * cell text).
 */
function textRows(cells: Word[][]): string[][] {
  const baselines: number[] = [];
  for (const word of cells.flat().sort((a, b) => a.y - b.y)) {
    const last = baselines.at(-1);
    if (last === undefined || word.y - last > word.size * 0.45) baselines.push(word.y);
  }
  const lineOf = (word: Word) =>
    baselines.reduce(
      (best, y, i) => (Math.abs(y - word.y) < Math.abs(baselines[best]! - word.y) ? i : best),
      0,
    );
  const fullColumns = cells.filter(
    (words) => new Set(words.map(lineOf)).size >= baselines.length * 0.5,
  ).length;
  if (baselines.length < 3 || fullColumns < 2) return [cells.map(cellText)];
  const split = baselines.map((_, line) =>
    cells.map((words) => cellText(words.filter((word) => lineOf(word) === line))),
  );
  // Wrapped prose in two cells side by side shares baselines too; a column of figures is data.
  const pieces = split.flat().filter((text) => text !== '');
  const figures = pieces.filter((text) => figure.test(text)).length;
  return figures >= pieces.length * 0.5 ? split : [cells.map(cellText)];
}

/**
 * Whether the words in a band hold columns of figures of their own: most of its lines have a gap
 * wider than a word space before a figure (a gap after a bullet or in spaced text does not count). Such a band beside the column rules is a part of the table set without rules.
 */
function severalColumns(words: Word[], left: number, right: number, top: number, bottom: number) {
  const inside = words.filter(
    (word) => word.left >= left && word.right <= right && word.y > top && word.y < bottom,
  );
  const lines = new Map<number, Word[]>();
  for (const word of inside) {
    const key = Math.round(word.y);
    lines.set(key, [...(lines.get(key) ?? []), word]);
  }
  let split = 0;
  for (const line of lines.values()) {
    const sorted = line.sort((a, b) => a.left - b.left);
    const gapBefore = (word: Word, i: number) =>
      i > 0 && word.left - sorted[i - 1]!.right > word.size * 0.9;
    if (sorted.some((word, i) => gapBefore(word, i) && figure.test(word.text))) split++;
  }
  return lines.size > 0 && split > lines.size / 2;
}

/**
 * A word that runs across a column rule drawn where it stands is cut there: pdf.js joins a
 * cell's overflowing text and the next cell's into one run ("Elizab" + "2165" as "Elizab2165"),
 * and each part belongs to its own cell.
 */
function cutAtRules(word: Word, xs: number[], verticals: Segment[]): Word[] {
  const y = word.y - word.size * 0.3;
  const rule = xs.find((x) => word.left < x - 1 && word.right > x + 1 && covered(verticals, x, y));
  if (rule === undefined) return [word];
  const [left, right] = cutWord(word, rule);
  return [...(left ? [left] : []), ...(right ? cutAtRules(right, xs, verticals) : [])];
}

/**
 * Grids from the page's rules. A grid whose rules frame the table but do not give its columns
 * (column rules only in the header, a ruled cell holding columns of figures) is returned as a
 * region for stream.ts to read as one table: the rules say where the table is, the text's
 * alignment where its columns are.
 */
function ruledTables(page: PageContent, words: Word[]): { tables: Table[]; regions: Box[] } {
  const lines = mergeSegments(foldDoubleRules(mergeSegments(page.segments), words));
  const horizontals = lines.filter((segment) => segment.orientation === 'h');
  const verticals = lines.filter((segment) => segment.orientation === 'v');
  // Connected groups of crossing rules: each is one grid.
  const parent = lines.map((_, index) => index);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  horizontals.forEach((h) => {
    verticals.forEach((v) => {
      if (crosses(h, v)) parent[find(lines.indexOf(h))] = find(lines.indexOf(v));
    });
  });
  const groups = new Map<number, Segment[]>();
  lines.forEach((segment, index) => {
    const root = find(index);
    groups.set(root, [...(groups.get(root) ?? []), segment]);
  });
  const tables: Table[] = [];
  const regions: Box[] = [];
  for (const group of groups.values()) {
    const hs = group.filter((segment) => segment.orientation === 'h');
    const vs = group.filter((segment) => segment.orientation === 'v');
    const ys = clusterPositions(hs.map((segment) => segment.at));
    const xs = clusterPositions(vs.map((segment) => segment.at));
    // Grids open at the sides: row rules run past the outermost column rules, and the label
    // column (or the last one) lies between a column rule and the rules' ends. Two rules must
    // reach that far, so one long rule (a caption's underline) does not widen the grid.
    if (hs.length >= 2 && xs.length >= 3) {
      const froms = hs.map((segment) => segment.from).sort((a, b) => a - b);
      const tos = hs.map((segment) => segment.to).sort((a, b) => b - a);
      const top = ys[0]!;
      const bottom = ys.at(-1)!;
      if (
        froms[1]! < xs[0]! - tolerance * 2 &&
        !severalColumns(words, froms[1]!, xs[0]!, top, bottom)
      )
        xs.unshift(froms[1]!);
      if (
        tos[1]! > xs.at(-1)! + tolerance * 2 &&
        !severalColumns(words, xs.at(-1)!, tos[1]!, top, bottom)
      )
        xs.push(tos[1]!);
    }
    if (ys.length < 2 || xs.length < 2) continue;
    const rowCount = ys.length - 1;
    const columnCount = xs.length - 1;
    // A lone framed box is a frame, not a table; rules that only frame rows (no inner column
    // rules) leave the columns to the text alignment of stream tables.
    if (rowCount * columnCount < 2 || columnCount === 1) continue;
    // A ruled column whose lines hold columns of their own: the rules are the frame of a table
    // set by alignment (a label column ruled off from its figures), left to stream tables.
    const box = { left: xs[0]!, right: xs.at(-1)!, top: ys[0]!, bottom: ys.at(-1)! };
    const bands = xs.slice(1).map((right, c) => [xs[c]!, right] as const);
    if (bands.some(([left, right]) => severalColumns(words, left, right, ys[0]!, ys.at(-1)!))) {
      regions.push(box);
      continue;
    }
    // Cells joined where the rule between them is missing.
    const owner = Array.from({ length: rowCount }, (_, r) =>
      Array.from({ length: columnCount }, (_, c) => [r, c] as [number, number]),
    );
    for (let r = 0; r < rowCount; r++) {
      const middleY = (ys[r]! + ys[r + 1]!) / 2;
      for (let c = 1; c < columnCount; c++) {
        if (!covered(vs, xs[c]!, middleY)) owner[r]![c] = owner[r]![c - 1]!;
      }
    }
    // Column rules only in the header: the body's columns come from text alignment instead.
    const unruledRows = owner.filter((row) => row.every(([, c]) => c === 0)).length;
    if (unruledRows > rowCount / 2) {
      regions.push(box);
      continue;
    }
    // The same when most of the text lies in rows where cells merged across the header's column
    // rules hold columns of figures of their own: the rules stop at the header (and perhaps one
    // rule keeps the labels apart), so the columns are the text's.
    const lineCount = (top: number, bottom: number) =>
      new Set(
        words
          .filter((w) => w.y > top && w.y < bottom && w.left >= box.left && w.right <= box.right)
          .map((w) => Math.round(w.y)),
      ).size;
    const alignedLines = owner.reduce((sum, row, r) => {
      const spans = row.flatMap(([, c], k) =>
        k > 0 && c === row[k - 1]![1] ? [] : [[c, row.findLastIndex(([, o]) => o === c)]],
      );
      const [top, bottom] = [ys[r]!, ys[r + 1]!];
      const aligned = spans.some(
        ([from, to]) => to! > from! && severalColumns(words, xs[from!]!, xs[to! + 1]!, top, bottom),
      );
      return aligned ? sum + lineCount(top, bottom) : sum;
    }, 0);
    if (alignedLines > lineCount(ys[0]!, ys.at(-1)!) / 2) {
      regions.push(box);
      continue;
    }
    for (let r = 1; r < rowCount; r++) {
      for (let c = 0; c < columnCount; c++) {
        const middleX = (xs[c]! + xs[c + 1]!) / 2;
        if (!covered(hs, ys[r]!, middleX) && owner[r]![c]![1] === c) {
          const above = owner[r - 1]![c]!;
          // Spread the vertical merge over the whole horizontal span of the cell above.
          for (let k = c; k < columnCount && owner[r]![k]![1] === owner[r]![c]![1]; k++)
            owner[r]![k] = above;
        }
      }
    }
    const texts = Array.from({ length: rowCount }, () =>
      Array.from({ length: columnCount }, () => [] as Word[]),
    );
    const inside = words
      .filter((word) => {
        const x = (word.left + word.right) / 2;
        const y = word.y - word.size * 0.3;
        return x > box.left && x < box.right && y > box.top && y < box.bottom;
      })
      .flatMap((word) => cutAtRules(word, xs, vs));
    for (const word of inside) {
      const x = (word.left + word.right) / 2;
      const y = word.y - word.size * 0.3;
      const r = ys.findIndex((top, i) => i < rowCount && y >= top && y < ys[i + 1]!);
      const c = xs.findIndex((left, i) => i < columnCount && x >= left && x < xs[i + 1]!);
      if (r < 0 || c < 0) continue;
      const [ownerRow, ownerColumn] = owner[r]![c]!;
      texts[ownerRow]![ownerColumn]!.push(word);
    }
    const rows = texts.flatMap((row, r) =>
      owner[r]!.every(([ownerRow]) => ownerRow === r) ? textRows(row) : [row.map(cellText)],
    );
    if (rows.flat().every((cell) => cell === '')) continue;
    tables.push({ box, rows, headerRows: 1 });
  }
  return { tables, regions };
}

/** The page's tables, and the fragments they took out of the text flow. */
export function findTables(page: PageContent): { tables: Table[]; used: Set<Fragment> } {
  const words = page.fragments.flatMap(splitWords);
  const { tables: ruled, regions } = ruledTables(page, words);
  const used = new Set<Fragment>();
  const inBox = (fragment: Fragment, box: Box) => {
    const x = centreX(fragmentBox(fragment));
    const y = fragment.y - fragment.size * 0.3;
    return x > box.left - 1 && x < box.right + 1 && y > box.top - 1 && y < box.bottom + 1;
  };
  const take = (table: Table) => {
    for (const fragment of page.fragments)
      if (!used.has(fragment) && inBox(fragment, table.box)) used.add(fragment);
  };
  ruled.forEach(take);
  const framed = regions.flatMap((region) => {
    const table = streamTableIn(
      page.fragments.filter((fragment) => !used.has(fragment) && inBox(fragment, region)),
    );
    if (table) take(table);
    return table ?? [];
  });
  const aligned = streamTables(page.fragments.filter((fragment) => !used.has(fragment)));
  aligned.forEach(take);
  return { tables: [...ruled, ...framed, ...aligned], used };
}
