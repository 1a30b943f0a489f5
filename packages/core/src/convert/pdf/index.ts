/**
 * PDF to HTML: pdf.js gives positioned text and rules; running headers and footers are dropped,
 * tables are found, the rest is put in reading order, lines become paragraphs, and sizes and
 * weights tell headings and list items apart. The HTML then goes through the same markdown
 * pipeline as web pages.
 */
import {
  extractPages,
  type ExtractOptions,
  type Fragment,
  type PageContent,
  isScanned,
  type PdfInfo,
} from './extract.ts';
import { removeFurniture } from './furniture.ts';
import {
  buildLines,
  fragmentBox,
  isRightToLeft,
  splitWords,
  type Box,
  type Line,
} from './geometry.ts';
import { gutterFor, readingOrder } from './reading-order.ts';
import { findTables, type Table } from './tables.ts';

export interface PdfHtml {
  html: string;
  numPages: number;
  warning?: string;
}

type Block =
  { kind: 'text'; lines: Line[]; page: number } | { kind: 'table'; table: Table; page: number };

type FlowUnit = { box: Box; fragment?: Fragment; table?: Table };

/** A page's content in reading order: its tables and its lines. */
function pageFlow(page: PageContent): Array<Line | Table> {
  const { tables, used } = findTables(page);
  const units: FlowUnit[] = [
    ...page.fragments
      .filter((fragment) => !used.has(fragment))
      .map((fragment) => ({ box: fragmentBox(fragment), fragment })),
    ...tables.map((table) => ({ box: table.box, table })),
  ];
  const gutter = gutterFor(page.fragments.map((fragment) => fragment.size));
  const rightToLeft = isRightToLeft(page.fragments.map((fragment) => fragment.text).join(''));
  const flow: Array<Line | Table> = [];
  for (const group of readingOrder(units, gutter, rightToLeft)) {
    const groupTables = group.filter((unit) => unit.table);
    const fragments = group.flatMap((unit) => (unit.fragment ? [unit.fragment] : []));
    // A group is one band or one column: its tables and lines interleave by their top.
    const items: Array<{ top: number; item: Line | Table }> = [
      ...groupTables.map((unit) => ({ top: unit.box.top, item: unit.table! })),
      ...buildLines(fragments).map((line) => ({ top: line.y - line.size, item: line })),
    ];
    items.sort((a, b) => a.top - b.top);
    flow.push(...items.map((entry) => entry.item));
  }
  return flow;
}

const isTable = (item: Line | Table): item is Table => 'rows' in item;
/**
 * A list item's marker: the bullets of Unicode, the symbol fonts' bullets as their ToUnicode maps
 * give them (Symbol and Wingdings use the private use area: U+F0B7, U+F0A7, U+F0D8…), and a
 * halfwidth katakana before Latin text, which is a bullet decoded with a Japanese encoding.
 */
const bulletMarker =
  /^(?:[•◦▪▫●○■□‣⁃∙·–*+\-►▸➢❖◆◇✓✔\uF06E\uF076\uF0A7\uF0A8\uF0B7\uF0D8\uF0FC]|[\uFF66-\uFF9D](?=\s+\p{Script=Latin}))(?:\s+|$)/u;
const numberMarker = /^(?:\(?\d{1,3}[.)]|\(?[a-z][.)]|\(?[ivx]{1,5}[.)])\s+/i;
const endsSentence = /[.!?:;)"”’]$/;

/** Lines in reading order to paragraphs: breaks at gaps, style changes, indents and list markers. */
function paragraphs(flow: Array<Line | Table>, page: number): Block[] {
  const lines = flow.filter((item): item is Line => !isTable(item));
  // The page's usual distance between lines of one paragraph.
  const pitches: number[] = [];
  for (let i = 1; i < lines.length; i++) {
    const gap = lines[i]!.y - lines[i - 1]!.y;
    if (gap > 0 && gap < lines[i]!.size * 3 && Math.abs(lines[i]!.size - lines[i - 1]!.size) < 0.6)
      pitches.push(gap / lines[i]!.size);
  }
  pitches.sort((a, b) => a - b);
  const pitch = pitches.length ? pitches[Math.floor(pitches.length * 0.3)]! : 1.2;
  const blocks: Block[] = [];
  let current: Line[] = [];
  const flush = () => {
    if (current.length) blocks.push({ kind: 'text', lines: current, page });
    current = [];
  };
  for (const item of flow) {
    if (isTable(item)) {
      flush();
      blocks.push({ kind: 'table', table: item, page });
      continue;
    }
    const previous = current.at(-1);
    if (previous && !startsParagraph(previous, item, current[0]!, pitch)) current.push(item);
    else {
      flush();
      current = [item];
    }
  }
  flush();
  return blocks;
}

function startsParagraph(previous: Line, line: Line, first: Line, pitch: number): boolean {
  if (Math.abs(previous.size - line.size) > 0.6 || previous.bold !== line.bold) return true;
  if (bulletMarker.test(line.text) || numberMarker.test(line.text)) return true;
  const gap = line.y - previous.y;
  // Up the page: the next column. The paragraph goes on unless the last one had ended.
  if (gap <= 0) return endsSentence.test(previous.text);
  if (gap > line.size * (pitch * 1.25) + 0.5) return true;
  const inList = bulletMarker.test(first.text) || numberMarker.test(first.text);
  const textStart = inList ? listTextStart(first) : first.left;
  // An indented first line opens a paragraph; a list item's wrapped lines align with its text.
  if (!inList && line.left > first.left + line.size * 0.9 && current(previous, first)) return true;
  if (inList && line.left < textStart - line.size) return true;
  return false;
}

/** Where a list item's text begins, after its marker (the marker may share a fragment with it). */
function listTextStart(line: Line): number {
  const words = line.fragments.flatMap(splitWords);
  return words[1]?.left ?? line.left;
}

/** Whether `previous` is a continuation line of the paragraph that began with `first`. */
const current = (previous: Line, first: Line) =>
  previous === first || previous.left <= first.left + 1;

const escapeHtml = (text: string) =>
  text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** A paragraph's lines as one text: hyphenated line ends joined, lines joined with a space. */
function joinLines(lines: Line[]): string {
  let text = '';
  for (const line of lines) {
    if (!text) text = line.text;
    else if (/\p{L}[-\u00AD\u2010]$/u.test(text) && /^\p{Ll}/u.test(line.text))
      text = text.slice(0, -1) + line.text;
    else text += ` ${line.text}`;
  }
  return text;
}

interface TextBlock {
  kind: 'text';
  text: string;
  size: number;
  bold: boolean;
  left: number;
  lineCount: number;
  page: number;
}

function tableHtml(table: Table): string {
  const width = Math.max(...table.rows.map((row) => row.length));
  const row = (cells: string[], tag: 'th' | 'td') =>
    `<tr>${Array.from({ length: width }, (_, i) => `<${tag}>${escapeHtml(cells[i] ?? '')}</${tag}>`).join('')}</tr>`;
  const headerRows = Math.max(1, table.headerRows);
  const head = table.rows.slice(0, headerRows).map((cells) => row(cells, 'th'));
  const body = table.rows.slice(headerRows).map((cells) => row(cells, 'td'));
  return `<table><thead>${head.join('')}</thead><tbody>${body.join('')}</tbody></table>`;
}

/** Headings by size above the body text (largest first), then whole-bold short lines. */
function headingLevels(blocks: TextBlock[]): (block: TextBlock) => number {
  const sizeWeight = new Map<number, number>();
  for (const block of blocks)
    sizeWeight.set(block.size, (sizeWeight.get(block.size) ?? 0) + block.text.length);
  const bodySize = [...sizeWeight].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 12;
  const isLarge = (block: TextBlock) =>
    block.size >= bodySize * 1.12 && block.lineCount <= 3 && block.text.length <= 200;
  const headingSizes = [
    ...new Set(blocks.filter(isLarge).map((block) => Math.round(block.size))),
  ].sort((a, b) => b - a);
  return (block) => {
    if (isLarge(block)) return Math.min(6, headingSizes.indexOf(Math.round(block.size)) + 1);
    const boldHeading =
      block.bold &&
      block.lineCount === 1 &&
      block.size >= bodySize * 0.95 &&
      block.text.length <= 120 &&
      !/[.,;:]$/.test(block.text) &&
      !bulletMarker.test(block.text) &&
      !numberMarker.test(block.text);
    return boldHeading ? Math.min(6, headingSizes.length + 1) : 0;
  };
}

function renderHtml(blocks: Block[]): string {
  const textBlocks = new Map<Block, TextBlock>();
  for (const block of blocks) {
    if (block.kind !== 'text') continue;
    const first = block.lines[0]!;
    textBlocks.set(block, {
      kind: 'text',
      text: joinLines(block.lines),
      size: first.size,
      bold: block.lines.every((line) => line.bold),
      left: first.left,
      lineCount: block.lines.length,
      page: block.page,
    });
  }
  const levelOf = headingLevels([...textBlocks.values()]);
  const out: string[] = [];
  // Open lists, innermost last: their tag and the indent of their markers.
  const lists: Array<{ tag: 'ul' | 'ol'; left: number }> = [];
  const closeLists = (toDepth = 0) => {
    while (lists.length > toDepth) out.push(`</li></${lists.pop()!.tag}>`);
  };
  for (const block of blocks) {
    if (block.kind === 'table') {
      closeLists();
      out.push(tableHtml(block.table));
      continue;
    }
    const text = textBlocks.get(block)!;
    const bullet = bulletMarker.exec(text.text);
    const numbered = numberMarker.exec(text.text);
    const marker = bullet ?? numbered;
    if (marker) {
      const tag = bullet ? 'ul' : 'ol';
      while (lists.length && lists.at(-1)!.left > text.left + 2) closeLists(lists.length - 1);
      const top = lists.at(-1);
      if (!top || text.left > top.left + 2) {
        lists.push({ tag, left: text.left });
        out.push(`<${tag}><li>`);
      } else {
        if (top.tag !== tag) {
          closeLists(lists.length - 1);
          lists.push({ tag, left: text.left });
          out.push(`<${tag}><li>`);
        } else out.push('</li><li>');
      }
      out.push(escapeHtml(text.text.slice(marker[0].length).trim()));
      continue;
    }
    closeLists();
    const level = levelOf(text);
    out.push(
      level ? `<h${level}>${escapeHtml(text.text)}</h${level}>` : `<p>${escapeHtml(text.text)}</p>`,
    );
  }
  closeLists();
  return out.join('\n');
}

const width = (table: Table) => Math.max(0, ...table.rows.map((row) => row.length));

/**
 * Joins a paragraph cut by a page break: the page's last paragraph does not end a sentence and
 * the next page's first starts in lower case. A table that ends one page and one of the same
 * width that starts the next are one table.
 */
function joinAcrossPages(blocks: Block[]): Block[] {
  const joined: Block[] = [];
  for (const block of blocks) {
    const previous = joined.at(-1);
    if (
      previous?.kind === 'text' &&
      block.kind === 'text' &&
      block.page === previous.page + 1 &&
      !endsSentence.test(previous.lines.at(-1)!.text) &&
      /^\p{Ll}/u.test(block.lines[0]!.text) &&
      Math.abs(previous.lines[0]!.size - block.lines[0]!.size) < 0.6
    )
      joined[joined.length - 1] = { ...previous, lines: [...previous.lines, ...block.lines] };
    else if (
      previous?.kind === 'table' &&
      block.kind === 'table' &&
      block.page === previous.page + 1 &&
      width(previous.table) === width(block.table)
    ) {
      // A table running over a page break: the next page's part continues it, its repeated
      // header row (if the producer repeats it) left out.
      const [first, ...rest] = block.table.rows;
      const repeated = first?.join('\u001f') === previous.table.rows[0]?.join('\u001f');
      const rows = [...previous.table.rows, ...(repeated ? rest : block.table.rows)];
      joined[joined.length - 1] = {
        ...previous,
        page: block.page,
        table: { ...previous.table, rows },
      };
    } else joined.push(block);
  }
  return joined;
}

const footnoteStart = /^(?:\d{1,3}|[*†‡§¹²³⁴⁵⁶⁷⁸⁹])\s*\S/;

/**
 * Footnotes: small text at the foot of a page, below all body text, opening with a number or
 * mark. They go to the end of the document, as Word-to-markdown converters put them, so the
 * paragraph they interrupt at a page break joins up again.
 */
function separateFootnotes(blocks: Block[]): { body: Block[]; footnotes: Block[] } {
  const sizes = new Map<number, number>();
  for (const block of blocks)
    if (block.kind === 'text')
      for (const line of block.lines)
        sizes.set(line.size, (sizes.get(line.size) ?? 0) + line.text.length);
  const bodySize = [...sizes].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 12;
  const lowestBody = new Map<number, number>();
  for (const block of blocks) {
    if (block.kind !== 'text') continue;
    const y = block.lines.at(-1)!.y;
    if (block.lines[0]!.size >= bodySize * 0.95)
      lowestBody.set(block.page, Math.max(lowestBody.get(block.page) ?? 0, y));
  }
  const body: Block[] = [];
  const footnotes: Block[] = [];
  let previousWasFootnote = false;
  for (const block of blocks) {
    const isFootnote: boolean =
      block.kind === 'text' &&
      block.lines[0]!.size <= bodySize * 0.9 &&
      block.lines[0]!.y > (lowestBody.get(block.page) ?? Infinity) &&
      (footnoteStart.test(block.lines[0]!.text) || previousWasFootnote);
    (isFootnote ? footnotes : body).push(block);
    previousWasFootnote = isFootnote;
  }
  return { body, footnotes };
}

/** "The PDF is", "Page 3 is", "Pages 1, 4 are": the subject of a warning about some pages. */
function pageList(numbers: number[], total: number): string {
  if (numbers.length === total) return total === 1 ? 'The page was' : 'All pages were';
  return numbers.length === 1 ? `Page ${numbers[0]} was` : `Pages ${numbers.join(', ')} were`;
}

/** Converts a PDF to HTML. @throws BAD_REQUEST for password-protected or damaged files */
export async function pdfToHtml(bytes: Uint8Array, options: ExtractOptions = {}): Promise<PdfHtml> {
  const pages: PageContent[] = [];
  let info: PdfInfo = { numPages: 0 };
  for await (const page of extractPages(bytes, { ...options, onOpen: (read) => (info = read) }))
    pages.push(page);
  const totalPages = info.numPages;
  const scanned = pages.filter((page) => !page.ocr && isScanned(page)).map((page) => page.number);
  const recognised = pages.filter((page) => page.ocr).map((page) => page.number);
  removeFurniture(pages);
  const { body, footnotes } = separateFootnotes(
    pages.flatMap((page) => paragraphs(pageFlow(page), page.number)),
  );
  const blocks = [...joinAcrossPages(body), ...footnotes];
  const warnings: string[] = [];
  if (scanned.length)
    warnings.push(
      `${pageList(scanned, pages.length)} scanned without a text layer; their text is missing (OCR is off with parsers mode 'fast').`,
    );
  if (recognised.length)
    warnings.push(
      `${pageList(recognised, pages.length)} read by OCR (English); the text may contain recognition errors.`,
    );
  if (totalPages > pages.length)
    warnings.push(`Only the first ${pages.length} of ${totalPages} pages were parsed (maxPages).`);
  // The document's own title (its Info dictionary) becomes the page title, as a web page's would.
  const head = info.title ? `<head><title>${escapeHtml(info.title)}</title></head>` : '';
  return {
    html: `<html>${head}<body>${renderHtml(blocks)}</body></html>`,
    numPages: totalPages,
    ...(warnings.length ? { warning: warnings.join(' ') } : {}),
  };
}
