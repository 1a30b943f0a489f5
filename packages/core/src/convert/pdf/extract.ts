/**
 * What pdf.js knows about a page, in the shape layout needs: text fragments with their geometry
 * and font, ruling lines (for tables), and whether the page paints images (for scans). Coordinates
 * are turned top-down (y grows down the page), as people and the layout code read a page.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as PdfJsModule from 'pdfjs-dist/legacy/build/pdf.mjs';
import { ContentTooLargeError, TimeoutError, ValidationError } from '../../errors.ts';
import { type Mark, markOf, withDrawnBullets } from './drawn-bullets.ts';
import { PageReader, type CanvasFactory } from './ocr.ts';
import { checkPdfStreams } from './stream-budget.ts';

type PdfJs = typeof PdfJsModule;
type PdfPage = Awaited<ReturnType<Awaited<ReturnType<PdfJs['getDocument']>['promise']>['getPage']>>;

/** A run of text pdf.js reports in one piece: the words of one font on one baseline. */
export interface Fragment {
  text: string;
  x: number;
  /** The baseline, top-down. */
  y: number;
  width: number;
  size: number;
  bold: boolean;
  /**
   * Advance widths of its font's characters, in ems, where the page shows them: where each
   * character of a run sits (a column rule may cut a run in two) without guessing from a
   * typical font.
   */
  widths?: ReadonlyMap<string, number>;
}

/** A horizontal or vertical ruling line. */
export interface Segment {
  orientation: 'h' | 'v';
  /** y of a horizontal line, x of a vertical one. */
  at: number;
  from: number;
  to: number;
}

export interface PageContent {
  number: number;
  /** The text came from OCR of the page's picture, not from a text layer. */
  ocr: boolean;
  width: number;
  height: number;
  fragments: Fragment[];
  segments: Segment[];
  paintsImages: boolean;
}

/** What the document says of itself, read when it opens. */
export interface PdfInfo {
  numPages: number;
  title?: string;
}

/** When pages are read by OCR: never, only pages without a text layer, or every page. */
export type OcrMode = 'never' | 'scanned' | 'always';

export interface ExtractOptions {
  maxPages?: number;
  /** @default 'scanned' */
  ocr?: OcrMode;
  /** Called once the file is open, before the first page. */
  onOpen?: (info: PdfInfo) => void;
  /** Epoch milliseconds after which extraction stops with SCRAPE_TIMEOUT. */
  deadline?: number;
}

let pdfjs: Promise<PdfJs> | undefined;
const loadPdfJs = () => (pdfjs ??= import('pdfjs-dist/legacy/build/pdf.mjs'));

/** pdf.js reads the 14 standard fonts' metrics from files; without them widths are guessed. */
function standardFontDataUrl(): string {
  const require = createRequire(import.meta.url);
  const root = dirname(require.resolve('pdfjs-dist/package.json'));
  return `${pathToFileURL(join(root, 'standard_fonts')).href}/`;
}

const boldName = /bold|black|heavy|semibold|demi/i;

/** The largest picture pdf.js decodes, in pixels. */
const maxImagePixels = 50_000_000;

/**
 * Opens a PDF and yields its pages' content one at a time, so a 300-page file never holds more
 * than one page's operator list.
 *
 * @throws BAD_REQUEST for a password-protected, damaged or non-PDF file; SCRAPE_TIMEOUT past the deadline;
 *   CONTENT_TOO_LARGE for a stream that inflates past the caps of stream-budget.ts
 */
export async function* extractPages(
  bytes: Uint8Array,
  options: ExtractOptions = {},
): AsyncGenerator<PageContent, void, undefined> {
  // pdf.js would inflate a bomb whole: its streams are measured first, keeping nothing.
  await checkPdfStreams(bytes);
  const { getDocument, OPS } = await loadPdfJs();
  // pdf.js takes ownership of (detaches) the buffer it is given: hand it a copy.
  const task = getDocument({
    data: new Uint8Array(bytes),
    disableFontFace: true,
    isEvalSupported: false,
    useSystemFonts: false,
    standardFontDataUrl: standardFontDataUrl(),
    // A picture decodes whole, outside the JavaScript heap (4 bytes a pixel): a 9258 x 12259 scan
    // mask took RSS past 1 GB (pdf.js freeculture.pdf). Larger ones are left unpainted; 600 dpi
    // A4 (35 megapixels) is still read.
    maxImageSize: maxImagePixels,
    verbosity: 0,
  });
  let document;
  let reader: PageReader | undefined;
  try {
    document = await task.promise;
  } catch (error) {
    await task.destroy();
    throw pdfOpenError(error);
  }
  try {
    if (options.onOpen) {
      const { info } = await document.getMetadata().catch(() => ({ info: {} }));
      const title = (info as { Title?: unknown }).Title;
      options.onOpen({
        numPages: document.numPages,
        ...(typeof title === 'string' && title.trim() ? { title: title.trim() } : {}),
      });
    }
    const pageCount = Math.min(document.numPages, options.maxPages ?? Infinity);
    const ocr = options.ocr ?? 'scanned';
    for (let number = 1; number <= pageCount; number++) {
      if (options.deadline !== undefined && Date.now() > options.deadline)
        throw new TimeoutError(`Parsing the PDF timed out after ${number - 1} pages`);
      const page = await document.getPage(number);
      try {
        const content = await readPage(page, number, OPS);
        if (ocr === 'always' || (ocr === 'scanned' && isScanned(content))) {
          reader ??= new PageReader();
          content.fragments = await reader.read(
            page,
            document.canvasFactory as unknown as CanvasFactory,
          );
          content.ocr = true;
        }
        yield content;
      } finally {
        page.cleanup();
      }
    }
  } finally {
    await reader?.close();
    await document.destroy();
  }
}

function pdfOpenError(error: unknown): Error {
  const name = (error as Error | undefined)?.name;
  const message = (error as Error | undefined)?.message ?? String(error);
  if (name === 'PasswordException')
    return new ValidationError('The PDF is password-protected; remove the password and retry', {
      cause: error,
    });
  if (/too large|allocation|array buffer/i.test(message))
    return new ContentTooLargeError(`The PDF cannot be read within memory limits: ${message}`);
  return new ValidationError(`The PDF is damaged or not a PDF: ${message}`, { cause: error });
}

/** A page that paints pictures but has (almost) no text: a scan. */
export const isScanned = (page: PageContent) =>
  page.paintsImages &&
  page.fragments.reduce((sum, fragment) => sum + fragment.text.trim().length, 0) < 20;

async function readPage(page: PdfPage, number: number, OPS: PdfJs['OPS']): Promise<PageContent> {
  // The page as it is shown: a /Rotate page (a landscape table printed on a portrait sheet) is
  // read turned, so its text runs left to right and its tables keep their rows.
  const viewport = page.getViewport({ scale: 1 });
  const toPage = viewport.transform as Matrix;
  // The operator list also makes pdf.js resolve each font's real name, which tells bold apart.
  const operators = await page.getOperatorList();
  const text = await page.getTextContent();
  const boldFonts = new Map<string, boolean>();
  const isBold = (fontName: string) => {
    let bold = boldFonts.get(fontName);
    if (bold === undefined) {
      const font = page.commonObjs.has(fontName)
        ? (page.commonObjs.get(fontName) as { name?: string; bold?: boolean })
        : undefined;
      bold = Boolean(font?.bold) || boldName.test(font?.name ?? '');
      boldFonts.set(fontName, bold);
    }
    return bold;
  };
  const fontWidths = glyphWidths(operators, OPS);
  const fragments: Fragment[] = [];
  for (const item of text.items) {
    if (!('str' in item) || item.str.trim() === '') continue;
    const [a, b, c, d, e, f] = multiply(toPage, item.transform as Matrix);
    // Rotated text (margins' vertical labels) is not part of the reading flow.
    if (Math.abs(b) > Math.abs(a) * 0.1 || Math.abs(c) > Math.abs(d) * 0.1 || a <= 0) continue;
    const size = Math.abs(d) || Math.abs(item.height);
    fragments.push({
      text: item.str,
      x: e,
      y: f,
      width: item.width,
      size,
      bold: isBold(item.fontName),
      ...(fontWidths.has(item.fontName) ? { widths: fontWidths.get(item.fontName)! } : {}),
    });
  }
  const { segments, marks, paintsImages } = readGraphics(operators, OPS, toPage);
  return {
    number,
    ocr: false,
    width: viewport.width,
    height: viewport.height,
    // Browsers draw a list's bullets as shapes, not glyphs: they become "•" for the list finder.
    fragments: withDrawnBullets(fragments, marks),
    segments,
    paintsImages,
  };
}

/**
 * Each font's advance widths by character, in ems, from the glyphs the page shows (pdf.js puts
 * them in its showText operators). A font whose widths are not in thousandths of an em (a
 * Type 3 font's own units) is left out.
 */
function glyphWidths(
  operators: { fnArray: number[]; argsArray: unknown[] },
  OPS: PdfJs['OPS'],
): Map<string, Map<string, number>> {
  const fonts = new Map<string, Map<string, number>>();
  let current: Map<string, number> | undefined;
  for (let index = 0; index < operators.fnArray.length; index++) {
    const fn = operators.fnArray[index];
    if (fn === OPS.setFont) {
      const [name] = operators.argsArray[index] as [string];
      current = fonts.get(name) ?? new Map<string, number>();
      fonts.set(name, current);
    } else if (fn === OPS.showText && current) {
      const [glyphs] = (operators.argsArray[index] ?? []) as [unknown];
      if (!Array.isArray(glyphs)) continue;
      for (const glyph of glyphs as unknown[]) {
        const { unicode, width } = (glyph ?? {}) as { unicode?: unknown; width?: unknown };
        if (typeof unicode === 'string' && [...unicode].length === 1 && typeof width === 'number')
          current.set(unicode, width / 1000);
      }
    }
  }
  for (const [name, widths] of fonts) {
    const typical = [...widths.values()].sort((a, b) => a - b)[widths.size >> 1];
    if (typical === undefined || typical < 0.15 || typical > 1.2) fonts.delete(name);
  }
  return fonts;
}

type Matrix = [number, number, number, number, number, number];
const identity: Matrix = [1, 0, 0, 1, 0, 0];
const multiply = (m: Matrix, n: Matrix): Matrix => [
  m[0] * n[0] + m[2] * n[1],
  m[1] * n[0] + m[3] * n[1],
  m[0] * n[2] + m[2] * n[3],
  m[1] * n[2] + m[3] * n[3],
  m[0] * n[4] + m[2] * n[5] + m[4],
  m[1] * n[4] + m[3] * n[5] + m[5],
];

/** pdf.js's path commands inside a constructPath buffer. */
const moveTo = 0;
const lineTo = 1;
const curveTo = 2;
const quadraticCurveTo = 3;
const closePath = 4;

/** A line thinner than this (points) is a rule, not a shape. */
const ruleThickness = 2.5;
const shortestRule = 3;

/**
 * Ruling lines from stroked paths and thin filled rectangles, and small filled shapes (marks), in
 * top-down page coordinates.
 */
function readGraphics(
  operators: { fnArray: number[]; argsArray: unknown[] },
  OPS: PdfJs['OPS'],
  toPage: Matrix,
): { segments: Segment[]; marks: Mark[]; paintsImages: boolean } {
  const segments: Segment[] = [];
  const marks: Mark[] = [];
  const stack: Matrix[] = [];
  let ctm = identity;
  let paintsImages = false;
  const strokeOps = new Set<number>([
    OPS.stroke,
    OPS.closeStroke,
    OPS.fillStroke,
    OPS.eoFillStroke,
    OPS.closeFillStroke,
    OPS.closeEOFillStroke,
  ]);
  const fillOps = new Set<number>([OPS.fill, OPS.eoFill]);
  const imageOps = new Set<number>([
    OPS.paintImageXObject,
    OPS.paintInlineImageXObject,
    OPS.paintImageMaskXObject,
    OPS.paintImageXObjectRepeat,
    OPS.paintInlineImageXObjectGroup,
  ]);
  const point = (x: number, y: number): [number, number] => {
    const [ux, uy] = [ctm[0] * x + ctm[2] * y + ctm[4], ctm[1] * x + ctm[3] * y + ctm[5]];
    return [
      toPage[0] * ux + toPage[2] * uy + toPage[4],
      toPage[1] * ux + toPage[3] * uy + toPage[5],
    ];
  };
  const addLine = (x1: number, y1: number, x2: number, y2: number) => {
    if (Math.abs(y1 - y2) < 1 && Math.abs(x2 - x1) >= shortestRule)
      segments.push({
        orientation: 'h',
        at: (y1 + y2) / 2,
        from: Math.min(x1, x2),
        to: Math.max(x1, x2),
      });
    else if (Math.abs(x1 - x2) < 1 && Math.abs(y2 - y1) >= shortestRule)
      segments.push({
        orientation: 'v',
        at: (x1 + x2) / 2,
        from: Math.min(y1, y2),
        to: Math.max(y1, y2),
      });
  };
  for (let index = 0; index < operators.fnArray.length; index++) {
    const fn = operators.fnArray[index]!;
    if (fn === OPS.save) stack.push(ctm);
    else if (fn === OPS.restore) ctm = stack.pop() ?? identity;
    else if (fn === OPS.transform) ctm = multiply(ctm, operators.argsArray[index] as Matrix);
    else if (imageOps.has(fn)) paintsImages = true;
    else if (fn === OPS.constructPath) {
      const [paintOp, [buffer]] = operators.argsArray[index] as [
        number,
        [ArrayLike<number> | null],
      ];
      if (!buffer) continue;
      const stroke = strokeOps.has(paintOp);
      if (!stroke && !fillOps.has(paintOp)) continue;
      const points: [number, number][][] = [];
      let current: [number, number][] = [];
      for (let k = 0; k < buffer.length;) {
        const command = buffer[k++];
        if (command === moveTo) {
          if (current.length) points.push(current);
          current = [point(buffer[k]!, buffer[k + 1]!)];
          k += 2;
        } else if (command === lineTo) {
          current.push(point(buffer[k]!, buffer[k + 1]!));
          k += 2;
        } else if (command === curveTo) {
          // Curves are never table rules: break the run so no line crosses them.
          if (current.length) points.push(current);
          current = [point(buffer[k + 4]!, buffer[k + 5]!)];
          k += 6;
        } else if (command === quadraticCurveTo) {
          if (current.length) points.push(current);
          current = [point(buffer[k + 2]!, buffer[k + 3]!)];
          k += 4;
        } else if (command === closePath) {
          if (current.length > 1) current.push(current[0]!);
        } else break;
      }
      if (current.length) points.push(current);
      if (!stroke) {
        const mark = markOf(points.flat());
        if (mark) marks.push(mark);
      }
      for (const path of points) {
        if (stroke) {
          for (let p = 1; p < path.length; p++)
            addLine(path[p - 1]![0], path[p - 1]![1], path[p]![0], path[p]![1]);
          continue;
        }
        // A filled thin rectangle is how many producers draw a rule.
        const xs = path.map(([x]) => x);
        const ys = path.map(([, y]) => y);
        const [x1, x2, y1, y2] = [
          Math.min(...xs),
          Math.max(...xs),
          Math.min(...ys),
          Math.max(...ys),
        ];
        if (y2 - y1 <= ruleThickness && x2 - x1 >= shortestRule)
          addLine(x1, (y1 + y2) / 2, x2, (y1 + y2) / 2);
        else if (x2 - x1 <= ruleThickness && y2 - y1 >= shortestRule)
          addLine((x1 + x2) / 2, y1, (x1 + x2) / 2, y2);
      }
    }
  }
  return { segments, marks, paintsImages };
}
