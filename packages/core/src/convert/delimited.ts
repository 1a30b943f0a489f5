/**
 * CSV and TSV as a table. Files named .csv are as often separated by semicolons (spreadsheets
 * saved in locales whose decimal mark is a comma), tabs or pipes, so the dialect is sniffed on a
 * sample: each candidate separator and quote parses the sample, and the one whose rows agree
 * best on a width above one wins. Quoting follows RFC 4180 (csv-parse does the parsing): a quoted
 * field keeps its separators, quotes and line breaks as one cell.
 */
import { parse as parseCsv, type Options as CsvOptions } from 'csv-parse/sync';
import { z } from 'zod';

/** The parts of a dialect a caller may force; the others are sniffed. */
export const delimitedDialectSchema = z
  .strictObject({
    delimiter: z
      .enum([',', ';', '\t', '|'])
      .optional()
      .describe('The field separator; sniffed from the file when unset.'),
    quote: z
      .enum(['"', "'"])
      .optional()
      .describe('The quote character; sniffed when unset (usually ").'),
    header: z
      .boolean()
      .optional()
      .describe('Whether the first row is a header row; sniffed when unset.'),
  })
  .describe('CSV and TSV inputs only: the dialect, instead of sniffing it.');

export type DelimitedDialect = z.output<typeof delimitedDialectSchema>;

/** A dialect with every part decided. */
export interface ResolvedDialect {
  delimiter: string;
  quote: string;
  header: boolean;
}

export interface DelimitedTable {
  rows: string[][];
  dialect: ResolvedDialect;
  /** Set when the file's quoting is broken and it was read with quotes as plain characters. */
  warning?: string;
}

const delimiters = [',', ';', '\t', '|'] as const;
/** Enough rows to judge a dialect by, small enough that sniffing costs little on large files. */
const sampleChars = 64 * 1024;

function sampleOf(text: string): string {
  if (text.length <= sampleChars) return text;
  const cut = text.lastIndexOf('\n', sampleChars);
  return cut > 0 ? text.slice(0, cut) : text.slice(0, sampleChars);
}

function rowsOf(text: string, delimiter: string, quote: string | false): string[][] {
  const options: CsvOptions = {
    delimiter,
    quote,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
    bom: true,
  };
  return parseCsv(text, options);
}

/**
 * How well `delimiter` and `quote` explain the sample: the share of rows having the most common
 * width, zero when that width is one (the separator never occurs) or the quoting is broken.
 */
function fitOf(sample: string, delimiter: string, quote: string): { score: number; width: number } {
  let rows: string[][];
  try {
    // The sample may end inside a quoted field: a broken last row must not sink a good dialect.
    rows = rowsOf(sample, delimiter, quote);
  } catch {
    try {
      rows = rowsOf(
        sample.slice(0, sample.lastIndexOf('\n', sample.length - 2) + 1),
        delimiter,
        quote,
      );
    } catch {
      return { score: 0, width: 0 };
    }
  }
  const counts = new Map<number, number>();
  for (const row of rows) counts.set(row.length, (counts.get(row.length) ?? 0) + 1);
  let width = 0;
  let most = 0;
  for (const [length, count] of counts)
    if (count > most || (count === most && length > width)) [width, most] = [length, count];
  if (width <= 1 || rows.length === 0) return { score: 0, width };
  return { score: most / rows.length, width };
}

/** The quote that opens and closes fields next to separators or line ends more often. */
function quoteOf(sample: string, delimiter: string): string {
  const uses = (quote: string) => {
    const d = delimiter === '|' ? '\\|' : delimiter;
    const around = new RegExp(
      `(?:^|[${d}\\n])${quote}[^${quote}\\n]*${quote}(?=[${d}\\r\\n]|$)`,
      'g',
    );
    return sample.match(around)?.length ?? 0;
  };
  return uses("'") > uses('"') ? "'" : '"';
}

function sniffDelimiter(sample: string, preferred: string, quote: string | undefined): string {
  const order = [preferred, ...delimiters.filter((d) => d !== preferred)];
  let best = preferred;
  let bestFit = { score: 0, width: 0 };
  for (const delimiter of order) {
    const fit = fitOf(sample, delimiter, quote ?? quoteOf(sample, delimiter));
    // Agreement first; between separators that explain the rows equally, more columns.
    if (
      fit.score > bestFit.score + 0.01 ||
      (Math.abs(fit.score - bestFit.score) <= 0.01 && fit.width > bestFit.width && fit.score > 0)
    ) {
      best = delimiter;
      bestFit = fit;
    }
  }
  return best;
}

const numeric = /^[-+(]?[$€£¥]?\s?\d[\d\s.,']*%?\)?$/;
const looksNumeric = (cell: string) => numeric.test(cell.trim());

/**
 * Whether the first row names the columns, as a person would judge it: a header cell is text over
 * a column of numbers; a number over numbers says the first row is data. Undecided files have a
 * header, as most exported tables do.
 */
function sniffHeader(rows: string[][]): boolean {
  const [first, ...body] = rows;
  if (!first || body.length === 0) return true;
  let votes = 0;
  for (let column = 0; column < first.length; column++) {
    const values = body.map((row) => row[column] ?? '').filter((cell) => cell.trim() !== '');
    if (values.length === 0) continue;
    const numericShare = values.filter(looksNumeric).length / values.length;
    if (numericShare < 0.9) continue;
    const head = first[column] ?? '';
    if (head.trim() === '') continue;
    votes += looksNumeric(head) ? -1 : 1;
  }
  if (votes !== 0) return votes > 0;
  const names = first.map((cell) => cell.trim());
  return names.every((name) => name !== '') && new Set(names).size === names.length;
}

/**
 * The rows of a delimited file, in the forced dialect's parts and the sniffed rest. Rows are
 * padded to the widest; blank rows are dropped.
 */
export function readDelimited(
  text: string,
  kind: 'csv' | 'tsv',
  forced: DelimitedDialect = {},
): DelimitedTable {
  const sample = sampleOf(text);
  const delimiter =
    forced.delimiter ?? sniffDelimiter(sample, kind === 'tsv' ? '\t' : ',', forced.quote);
  const quote = forced.quote ?? quoteOf(sample, delimiter);
  let rows: string[][];
  let warning: string | undefined;
  try {
    rows = rowsOf(text, delimiter, quote);
  } catch (error) {
    // An unclosed quote swallows the rest of the file: reading quotes as text keeps every cell.
    rows = rowsOf(text, delimiter, false);
    warning = `The ${kind.toUpperCase()} file's quoting is broken (${(error as Error).message}); quotes were read as plain text.`;
  }
  rows = rows.filter((row) => row.some((cell) => cell.trim() !== ''));
  const width = Math.max(0, ...rows.map((row) => row.length));
  rows = rows.map((row) => [...row, ...Array<string>(width - row.length).fill('')]);
  const header = forced.header ?? sniffHeader(rows);
  return { rows, dialect: { delimiter, quote, header }, ...(warning ? { warning } : {}) };
}
