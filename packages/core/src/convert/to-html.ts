/**
 * Every parseable kind becomes HTML, so one pipeline (cleaning, markdown, links, redaction)
 * serves documents as it serves pages: DOCX through mammoth, spreadsheets through exceljs, CSV
 * and TSV as a table, text and data files as preformatted blocks.
 */
import { UnsupportedTypeError } from '../errors.ts';
import type { FileKind } from './detect.ts';
import type { OcrMode } from './pdf/extract.ts';
import { legacyTargets } from './legacy.ts';
import { repackStored } from './zip.ts';
import { escapeHtml } from '../internal/html.ts';
import { type DelimitedDialect, readDelimited } from './delimited.ts';

/** Rows as an HTML table; the first in <thead> when it names the columns. */
function table(rows: string[][], header: boolean): string {
  const cells = (row: string[], tag: 'th' | 'td') =>
    `<tr>${row.map((cell) => `<${tag}>${escapeHtml(cell).replace(/\r?\n/g, '<br>')}</${tag}>`).join('')}</tr>`;
  const [head, ...body] = header ? rows : [undefined, ...rows];
  const thead = head ? `<thead>${cells(head, 'th')}</thead>` : '';
  return `<table>${thead}<tbody>${body.map((row) => cells(row!, 'td')).join('')}</tbody></table>`;
}

function delimitedHtml(
  kind: 'csv' | 'tsv',
  bytes: Uint8Array,
  options: ToHtmlOptions,
): DocumentHtml {
  const text = new TextDecoder('utf-8').decode(bytes).replace(/^\uFEFF/, '');
  const { rows, dialect, warning } = readDelimited(text, kind, options.csv);
  if (rows.length === 0) return { html: '' };
  return { html: table(rows, dialect.header), ...(warning ? { warning } : {}) };
}

/** A document as HTML, with what only the document can tell. */
export interface DocumentHtml {
  html: string;
  numPages?: number;
  warning?: string;
}

export interface ToHtmlOptions {
  /** PDF: stop after this many pages. */
  maxPages?: number;
  /** PDF: which pages OCR reads. @default 'scanned' */
  ocr?: OcrMode;
  /** Epoch milliseconds after which parsing stops with SCRAPE_TIMEOUT. */
  deadline?: number;
  /** CSV and TSV: the parts of the dialect the caller forces; the rest is sniffed. */
  csv?: DelimitedDialect | undefined;
  /** LibreOffice's soffice for DOC, XLS and PPT; the usual paths when unset. */
  sofficePath?: string | undefined;
}

/**
 * The HTML of a file of `kind`. Each reader (pdf.js, mammoth, exceljs, the ODF, PPTX and EPUB
 * readers) is loaded the first time a file of its kind comes: together they are about 40 MB of
 * memory that a process crawling web pages never needs.
 *
 * @throws UNSUPPORTED_FILE_TYPE for kinds not handled yet
 */
export async function toHtml(
  kind: FileKind,
  bytes: Uint8Array,
  options: ToHtmlOptions = {},
): Promise<DocumentHtml> {
  if (kind === 'pdf') return (await import('./pdf/index.ts')).pdfToHtml(bytes, options);
  if (kind === 'doc' || kind === 'xls' || kind === 'ppt') {
    const { convertLegacy } = await import('./legacy.ts');
    return toHtml(legacyTargets[kind], await convertLegacy(bytes, kind, options), options);
  }
  // exceljs and the XML reader open the ZIP themselves: they get one whose entries were
  // inflated under the caps.
  if (kind === 'xlsx') {
    const { spreadsheetHtml } = await import('./xlsx.ts');
    return spreadsheetHtml(await repackStored(bytes, 'spreadsheet'));
  }
  if (kind === 'csv' || kind === 'tsv') return delimitedHtml(kind, bytes, options);
  // ODF spreadsheets warn of hidden sheets and rows, as XLSX does.
  if (kind === 'odt' || kind === 'ods' || kind === 'odp')
    return (await import('./odf.ts')).odfHtml(bytes);
  return { html: await textualHtml(kind, bytes) };
}

async function textualHtml(kind: FileKind, bytes: Uint8Array): Promise<string> {
  const text = () => new TextDecoder('utf-8').decode(bytes).replace(/^\uFEFF/, '');
  switch (kind) {
    case 'html':
      return text();
    case 'docx':
      return (await import('./docx.ts')).docxHtml(bytes);
    case 'xlsx':
      throw new Error('XLSX is converted by spreadsheetHtml');
    case 'doc':
    case 'xls':
    case 'ppt':
      throw new Error('Legacy Office files are converted by convertLegacy');
    case 'csv':
    case 'tsv':
      throw new Error('CSV and TSV are converted by delimitedHtml');
    case 'json':
    case 'xml':
      return `<pre><code class="language-${kind}">${escapeHtml(text())}</code></pre>`;
    case 'text':
      return text()
        .split(/\n\s*\n/)
        .map((paragraph) => `<p>${escapeHtml(paragraph.trim())}</p>`)
        .join('\n');
    case 'pdf':
      throw new Error('PDF is converted by pdfToHtml');
    case 'pptx':
      return (await import('./pptx.ts')).pptxHtml(bytes);
    case 'odt':
    case 'ods':
    case 'odp':
      throw new Error('OpenDocument is converted by odfHtml');
    case 'epub':
      return (await import('./epub.ts')).epubHtml(bytes);
    case 'markdown':
    case 'unknown':
      throw new UnsupportedTypeError(
        'The file type is not recognised; supported now: PDF, DOCX, XLSX, PPTX, DOC, XLS, PPT (with LibreOffice), ODT, ODS, ODP, EPUB, HTML, CSV, TSV, Markdown, JSON, XML and text',
      );
  }
}
