/**
 * What kind of file a parse input is: from its bytes first (magic numbers, and for ZIP packages
 * the names inside), then its content type, then its file name's extension.
 */
import { listZipEntries } from './zip.ts';

/** The kinds `parse()` tells apart. */
export type FileKind =
  | 'pdf'
  | 'docx'
  | 'xlsx'
  | 'pptx'
  | 'odt'
  | 'ods'
  | 'odp'
  | 'epub'
  | 'doc'
  | 'xls'
  | 'ppt'
  | 'html'
  | 'csv'
  | 'tsv'
  | 'markdown'
  | 'json'
  | 'xml'
  | 'text'
  | 'unknown';

const byContentType: [RegExp, FileKind][] = [
  [/^application\/pdf\b/, 'pdf'],
  [/wordprocessingml\.document/, 'docx'],
  [/spreadsheetml\.sheet/, 'xlsx'],
  [/presentationml\.presentation/, 'pptx'],
  [/opendocument\.text/, 'odt'],
  [/opendocument\.spreadsheet/, 'ods'],
  [/opendocument\.presentation/, 'odp'],
  [/^application\/epub\+zip\b/, 'epub'],
  [/^text\/html\b|^application\/xhtml\+xml\b/, 'html'],
  [/^text\/csv\b/, 'csv'],
  [/^text\/tab-separated-values\b/, 'tsv'],
  [/^text\/markdown\b/, 'markdown'],
  [/^application\/(?:[\w.+-]+\+)?json\b/, 'json'],
  [/^(?:application|text)\/(?:[\w.+-]+\+)?xml\b/, 'xml'],
  [/^text\/plain\b/, 'text'],
];

const byExtension: Record<string, FileKind> = {
  pdf: 'pdf',
  docx: 'docx',
  xlsx: 'xlsx',
  pptx: 'pptx',
  odt: 'odt',
  ods: 'ods',
  odp: 'odp',
  epub: 'epub',
  doc: 'doc',
  xls: 'xls',
  ppt: 'ppt',
  html: 'html',
  htm: 'html',
  xhtml: 'html',
  csv: 'csv',
  tsv: 'tsv',
  md: 'markdown',
  markdown: 'markdown',
  json: 'json',
  xml: 'xml',
  txt: 'text',
  text: 'text',
};

/** UTF-16LE bytes of a stream name, as a compound file's directory stores it. */
const streamName = (name: string) => Buffer.from(`${name}\0`, 'utf16le');
const compoundKinds: [Buffer, FileKind][] = [
  [streamName('WordDocument'), 'doc'],
  [streamName('Workbook'), 'xls'],
  [streamName('Book'), 'xls'],
  [streamName('PowerPoint Document'), 'ppt'],
];

/**
 * The kind of an OLE compound file (legacy Office) from the streams it names: Word keeps its
 * text in "WordDocument", Excel in "Workbook" (or "Book" before Excel 97), PowerPoint in
 * "PowerPoint Document". Other compound files (Outlook messages, Visio, Publisher, and
 * password-protected OOXML) are not read.
 */
function compoundKind(bytes: Uint8Array): FileKind {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.includes(streamName('EncryptedPackage'))) return 'unknown';
  return compoundKinds.find(([name]) => view.includes(name))?.[1] ?? 'unknown';
}

/** The kind of a ZIP package, from the parts it holds. */
function zipKind(bytes: Uint8Array): FileKind {
  const names = new Set(listZipEntries(bytes).map((entry) => entry.name));
  if (names.has('word/document.xml')) return 'docx';
  if (names.has('xl/workbook.xml')) return 'xlsx';
  if (names.has('ppt/presentation.xml')) return 'pptx';
  // A package may name its main part otherwise (OPC follows the relationships): the folders
  // of its parts still tell.
  const under = (folder: string) => [...names].some((name) => name.startsWith(folder));
  if (under('xl/worksheets/')) return 'xlsx';
  if (under('ppt/slides/')) return 'pptx';
  if (under('word/')) return 'docx';
  const mimetype = packageMimetype(bytes);
  if (mimetype.startsWith('application/epub+zip')) return 'epub';
  if (names.has('content.xml') && names.has('mimetype')) return odfKind(mimetype);
  if (names.has('META-INF/container.xml')) return 'epub';
  return 'unknown';
}

const odfKinds: Record<string, FileKind> = {
  'application/vnd.oasis.opendocument.text': 'odt',
  'application/vnd.oasis.opendocument.spreadsheet': 'ods',
  'application/vnd.oasis.opendocument.presentation': 'odp',
};

/**
 * The `mimetype` entry of an OpenDocument or EPUB package, which both formats require to be
 * the first entry, stored uncompressed: its text starts at byte 38, after the 30-byte local
 * header and the 8-byte name. Empty when it is not there.
 */
function packageMimetype(bytes: Uint8Array): string {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.length < 38 || view.toString('latin1', 30, 38) !== 'mimetype') return '';
  return view.toString('latin1', 38, Math.min(view.length, 38 + 100));
}

/**
 * An OpenDocument package's kind from its mimetype. A prefix match also takes templates
 * (…text-template) as their document kind; anything else (a compressed or misplaced mimetype)
 * is left to the parser, which reads the body.
 */
function odfKind(mimetype: string): FileKind {
  const match = Object.keys(odfKinds).find((type) => mimetype.startsWith(type));
  return match ? odfKinds[match]! : 'odt';
}

/** Text (not binary) when the first 4 KB decode as UTF-8 without NUL bytes. */
function looksLikeText(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, 4096);
  if (head.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head.subarray(0, head.length - 4));
    return true;
  } catch {
    return false;
  }
}

/** The kind of a file, bytes first. */
export function detectKind(
  bytes: Uint8Array,
  contentType: string | undefined,
  filename: string | undefined,
): FileKind {
  const starts = (text: string) =>
    bytes.length >= text.length &&
    Buffer.from(bytes.subarray(0, text.length)).toString('latin1') === text;
  if (starts('%PDF-')) return 'pdf';
  if (starts('PK\u0003\u0004')) return zipKind(bytes);
  if (starts('\u00d0\u00cf\u0011\u00e0\u00a1\u00b1\u001a\u00e1')) {
    // A cut or damaged file may have lost its directory: its name then says what it was.
    const named = byExtension[filename?.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1] ?? ''];
    const kind = compoundKind(bytes);
    return kind === 'unknown' && (named === 'doc' || named === 'xls' || named === 'ppt')
      ? named
      : kind;
  }
  const type = contentType?.toLowerCase().trim();
  const fromType = type ? byContentType.find(([pattern]) => pattern.test(type))?.[1] : undefined;
  const extension = filename?.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1];
  const fromName = extension ? byExtension[extension] : undefined;
  if (!looksLikeText(bytes)) return fromType === 'pdf' ? 'pdf' : 'unknown';
  const sniffed = Buffer.from(bytes.subarray(0, 512)).toString('utf8').trimStart().toLowerCase();
  if (fromType && fromType !== 'text') return fromType;
  if (fromName && fromName !== 'text') return fromName;
  if (sniffed.startsWith('<!doctype html') || sniffed.startsWith('<html')) return 'html';
  return 'text';
}

/** Extensions of documents `parse()` reads, for crawls deciding whether to follow a link. */
export const parseableDocumentExtensions: ReadonlySet<string> = new Set([
  'pdf',
  'docx',
  'xlsx',
  'pptx',
]);
