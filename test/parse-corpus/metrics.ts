/**
 * Quality measures of a parser's markdown against a hand-written truth, shared by the corpus
 * tests and the parse benchmark. All of them compare normalised word tokens, so markdown syntax,
 * punctuation, case, line breaks and soft hyphens never count:
 *
 * - text similarity: 1 − (token-level Levenshtein distance) / (length of the longer sequence);
 * - reading-order accuracy: each truth block (heading, paragraph, list item, note) is located in
 *   the output by fuzzy matching (see {@link locateBlocks}); the score is the fraction of all
 *   pairs of truth blocks (i before j) found in the output with i still before j, so a missing
 *   block loses every pair it is part of;
 * - table-cell F1: GFM tables are read out of the markdown, each truth table is paired with the
 *   output table sharing most cells, and a cell counts when (row, column, normalised text) agree;
 *   empty cells are not counted, but an empty cell dropped shifts its row's later cells, and
 *   a merged cell's text repeated into the cells it covers counts against precision;
 * - furniture leaks: how many times a running header or footer appears in the output.
 */

/** Word tokens of a text: NFKC, lower case, soft hyphens gone, split on anything but letters and digits. */
export function tokenize(text: string): string[] {
  return (
    text
      .normalize('NFKC')
      .replace(/\u00AD/g, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/**
 * The words of a markdown text without its syntax: link and image targets, list markers and
 * HTML tags would otherwise add tokens the truth does not have.
 */
export function markdownToText(markdown: string): string {
  return (
    markdown
      // [text](target) and ![alt](src) keep only text and alt.
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>\n]+>/g, ' ')
      // "1." and "-" list markers, and GFM table delimiter rows.
      .replace(/^[ \t]*(?:[-*+]|\d+[.)])[ \t]+/gm, '')
      .replace(/^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/gm, '')
  );
}

/** Levenshtein distance between two token sequences (two rows of the table, O(n·m) time). */
export function tokenDistance(a: readonly string[], b: readonly string[]): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** Token-level Levenshtein ratio of two texts, 1 when identical, 0 when nothing is shared. */
export function textSimilarity(truth: string, output: string): number {
  const a = tokenize(truth);
  const b = tokenize(markdownToText(output));
  const longer = Math.max(a.length, b.length);
  return longer === 0 ? 1 : 1 - tokenDistance(a, b) / longer;
}

/** Most edits, as a share of a block's tokens, for the block to count as found. */
const maxBlockEditShare = 0.25;

/**
 * Where each block starts in the output's tokens, or -1 when it is not there: the window of the
 * output with the fewest token edits from the block (approximate substring matching), accepted
 * when those edits are at most a quarter of the block's tokens (none for blocks under four
 * tokens). Longer blocks are placed first and their tokens are then taken, so a one-word
 * heading is not found inside a paragraph that happens to use the same word.
 */
export function locateBlocks(blocks: readonly string[], outputTokens: readonly string[]): number[] {
  const taken: (string | undefined)[] = [...outputTokens];
  const positions = blocks.map(() => -1);
  const order = blocks
    .map((block, index) => ({ index, tokens: tokenize(block) }))
    .sort((x, y) => y.tokens.length - x.tokens.length);
  for (const { index, tokens } of order) {
    if (tokens.length === 0) continue;
    const match = bestWindow(tokens, taken);
    if (!match || match.distance > Math.floor(tokens.length * maxBlockEditShare)) continue;
    positions[index] = match.start;
    for (let at = match.start; at < match.end; at++) taken[at] = undefined;
  }
  return positions;
}

/**
 * The output window closest to `pattern` (Sellers' algorithm: a free start anywhere in the
 * text), with its start and end. Tokens already taken (undefined) never match.
 */
function bestWindow(
  pattern: readonly string[],
  text: readonly (string | undefined)[],
): { start: number; end: number; distance: number } | undefined {
  // column[i] = edits to match pattern[0..i) ending at the current text position; start[i] is
  // where that match begins.
  let column = Array.from({ length: pattern.length + 1 }, (_, i) => i);
  let start = Array.from({ length: pattern.length + 1 }, () => 0);
  let best: { start: number; end: number; distance: number } | undefined;
  for (let j = 1; j <= text.length; j++) {
    const nextColumn = [0];
    const nextStart = [j];
    for (let i = 1; i <= pattern.length; i++) {
      const substitute = column[i - 1]! + (text[j - 1] === pattern[i - 1] ? 0 : 1);
      const skipText = column[i]! + 1;
      const skipPattern = nextColumn[i - 1]! + 1;
      if (substitute <= skipText && substitute <= skipPattern) {
        nextColumn[i] = substitute;
        nextStart[i] = start[i - 1]!;
      } else if (skipText <= skipPattern) {
        nextColumn[i] = skipText;
        nextStart[i] = start[i]!;
      } else {
        nextColumn[i] = skipPattern;
        nextStart[i] = nextStart[i - 1]!;
      }
    }
    column = nextColumn;
    start = nextStart;
    const distance = column[pattern.length]!;
    if (!best || distance < best.distance)
      best = { start: start[pattern.length]!, end: j, distance };
  }
  return best;
}

/** Reading-order accuracy, with how many truth blocks were found at all. */
export interface ReadingOrder {
  /** Share of truth block pairs (i before j) found in the output in that order. */
  accuracy: number;
  found: number;
  total: number;
}

/** Reading-order accuracy of `markdown` against truth blocks listed in reading order. */
export function readingOrder(blocks: readonly string[], markdown: string): ReadingOrder {
  const positions = locateBlocks(blocks, tokenize(markdownToText(markdown)));
  const found = positions.filter((position) => position >= 0).length;
  if (blocks.length < 2)
    return { accuracy: found === blocks.length ? 1 : 0, found, total: blocks.length };
  let kept = 0;
  let pairs = 0;
  for (let i = 0; i < positions.length; i++) {
    for (let j = i + 1; j < positions.length; j++) {
      pairs++;
      if (positions[i]! >= 0 && positions[j]! >= 0 && positions[i]! < positions[j]!) kept++;
    }
  }
  return { accuracy: kept / pairs, found, total: blocks.length };
}

/** A table as rows of cell texts. */
export type Grid = string[][];

const delimiterRow = /^\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?$/;

/** Splits one GFM table row on its unescaped pipes. */
function splitRow(line: string): string[] {
  const cells: string[] = [];
  let cell = '';
  for (let at = 0; at < line.length; at++) {
    const char = line[at]!;
    if (char === '\\' && at + 1 < line.length) {
      cell += char + line[at + 1]!;
      at++;
    } else if (char === '|') {
      cells.push(cell);
      cell = '';
    } else cell += char;
  }
  cells.push(cell);
  // A leading and a trailing pipe leave an empty piece outside the table.
  if (line.trimStart().startsWith('|')) cells.shift();
  if (line.trimEnd().endsWith('|') && !line.trimEnd().endsWith('\\|')) cells.pop();
  return cells.map((text) => text.replace(/\\([!-/:-@[-`{-~])/g, '$1').trim());
}

/** The GFM tables of a markdown text: a header row, a delimiter row, then body rows. */
export function markdownTables(markdown: string): Grid[] {
  const lines = markdown.split('\n');
  const tables: Grid[] = [];
  for (let at = 0; at + 1 < lines.length; at++) {
    const head = lines[at]!.trim();
    if (!head.includes('|') || !delimiterRow.test(lines[at + 1]!.trim())) continue;
    const rows = [splitRow(head)];
    at += 2;
    while (at < lines.length && lines[at]!.trim().startsWith('|'))
      rows.push(splitRow(lines[at++]!.trim()));
    tables.push(rows);
    at--;
  }
  return tables;
}

/** A cell's comparable text: its words, and a number in one canonical form (1,250.0 → 1250). */
export function normaliseCell(text: string): string {
  const plain = markdownToText(text).replace(/[*_`]/g, '').trim();
  if (/^[+-]?(?:\d{1,3}(?:,\d{3})+|\d*)(?:\.\d+)?$/.test(plain) && /\d/.test(plain))
    return String(Number(plain.replace(/,/g, '')));
  return tokenize(plain).join(' ');
}

/** The non-empty cells of a grid as "row␟column␟text" keys, rows wholly empty left out. */
function cellKeys(grid: Grid): Set<string> {
  const keys = new Set<string>();
  const rows = grid
    .map((row) => row.map(normaliseCell))
    .filter((row) => row.some((cell) => cell !== ''));
  rows.forEach((row, r) =>
    row.forEach((cell, c) => {
      if (cell !== '') keys.add(`${r}\u001f${c}\u001f${cell}`);
    }),
  );
  return keys;
}

/** Table-cell precision, recall and F1 of a document. */
export interface TableScore {
  f1: number;
  precision: number;
  recall: number;
  truthCells: number;
  outputCells: number;
  matchedCells: number;
}

/**
 * Cell F1 of output tables against truth tables: each truth table is paired with the unpaired
 * output table sharing most cells with it (greedily, best pair first); cells of unpaired tables
 * count as missed or spurious. No tables on either side scores 1.
 */
export function tableCellScore(truth: readonly Grid[], output: readonly Grid[]): TableScore {
  const truthKeys = truth.map(cellKeys);
  const outputKeys = output.map(cellKeys);
  const truthCells = truthKeys.reduce((sum, keys) => sum + keys.size, 0);
  const outputCells = outputKeys.reduce((sum, keys) => sum + keys.size, 0);
  const candidates: { t: number; o: number; shared: number }[] = [];
  truthKeys.forEach((keys, t) =>
    outputKeys.forEach((other, o) => {
      const shared = [...keys].filter((key) => other.has(key)).length;
      if (shared > 0) candidates.push({ t, o, shared });
    }),
  );
  candidates.sort((x, y) => y.shared - x.shared);
  const pairedTruth = new Set<number>();
  const pairedOutput = new Set<number>();
  let matchedCells = 0;
  for (const { t, o, shared } of candidates) {
    if (pairedTruth.has(t) || pairedOutput.has(o)) continue;
    pairedTruth.add(t);
    pairedOutput.add(o);
    matchedCells += shared;
  }
  if (truthCells === 0 && outputCells === 0)
    return { f1: 1, precision: 1, recall: 1, truthCells, outputCells, matchedCells };
  const precision = outputCells === 0 ? 0 : matchedCells / outputCells;
  const recall = truthCells === 0 ? 0 : matchedCells / truthCells;
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { f1, precision, recall, truthCells, outputCells, matchedCells };
}

/**
 * How often running headers and footers appear in the output. Each pattern is matched on whole
 * tokens, and `#` in a pattern stands for any number (a page number or count).
 */
export function furnitureLeaks(patterns: readonly string[], markdown: string): number {
  const text = ` ${tokenize(markdownToText(markdown)).join(' ')} `;
  let leaks = 0;
  for (const pattern of patterns) {
    const tokens = tokenize(pattern.replace(/#/g, ' numberplaceholder '));
    if (tokens.length === 0) continue;
    const source = tokens
      .map((token) => (token === 'numberplaceholder' ? '\\d+' : token))
      .join(' ');
    leaks += text.match(new RegExp(`(?<= )${source}(?= )`, 'g'))?.length ?? 0;
  }
  return leaks;
}
