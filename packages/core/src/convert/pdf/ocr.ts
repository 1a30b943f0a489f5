/**
 * OCR of scanned PDF pages: pdf.js paints the page on a canvas (@napi-rs/canvas, which pdf.js
 * loads itself in Node), tesseract.js reads the picture with the English model shipped in
 * @tesseract.js-data/eng — nothing is downloaded at run time — and its words become fragments
 * in page coordinates, so the same layout analysis (columns, paragraphs, tables) follows.
 */
import { createRequire } from 'node:module';
import type { Fragment } from './extract.ts';

/** Pixels per PDF point: 2 gives ~144 dpi, where tesseract reads body text reliably. */
const renderScale = 2;

interface OcrBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}
interface OcrLine {
  bbox: OcrBox;
  words: { text: string; bbox: OcrBox; confidence: number }[];
}
interface OcrResult {
  data: { blocks: { paragraphs: { lines: OcrLine[] }[] }[] | null };
}
interface OcrWorker {
  recognize(image: Buffer, options: object, output: { blocks: boolean }): Promise<OcrResult>;
  terminate(): Promise<unknown>;
}

/** What rendering needs from a pdf.js page and its document. */
export interface RenderablePage {
  getViewport(options: { scale: number }): { width: number; height: number };
  render(options: object): { promise: Promise<void> };
}
export interface CanvasFactory {
  create(
    width: number,
    height: number,
  ): { canvas: { toBuffer(mime: 'image/png'): Buffer }; context: unknown };
  destroy(canvasAndContext: object): void;
}

/** One tesseract worker for a whole document, started on the first scanned page. */
export class PageReader {
  #worker: Promise<OcrWorker> | undefined;

  async read(page: RenderablePage, canvases: CanvasFactory): Promise<Fragment[]> {
    const viewport = page.getViewport({ scale: renderScale });
    const width = Math.ceil(viewport.width);
    const height = Math.ceil(viewport.height);
    const surface = canvases.create(width, height);
    let png: Buffer;
    try {
      await page.render({ canvas: surface.canvas, canvasContext: surface.context, viewport })
        .promise;
      png = surface.canvas.toBuffer('image/png');
    } finally {
      canvases.destroy(surface);
    }
    const worker = await (this.#worker ??= startWorker());
    const { data } = await worker.recognize(png, {}, { blocks: true });
    const fragments: Fragment[] = [];
    for (const block of data.blocks ?? [])
      for (const paragraph of block.paragraphs)
        for (const line of paragraph.lines) fragments.push(...lineFragments(line));
    return fragments;
  }

  async close(): Promise<void> {
    const worker = await this.#worker?.catch(() => undefined);
    this.#worker = undefined;
    await worker?.terminate();
  }
}

async function startWorker(): Promise<OcrWorker> {
  const require = createRequire(import.meta.url);
  const { createWorker, OEM } = (await import('tesseract.js')).default;
  const english = require('@tesseract.js-data/eng') as { langPath: string; gzip: boolean };
  return await createWorker('eng', OEM.LSTM_ONLY, {
    langPath: english.langPath,
    gzip: english.gzip,
    // The model is read from the package each time; no cache folder is written.
    cacheMethod: 'none',
  });
}

/**
 * A recognised line's words as fragments: words closer than 0.6 of the line height are one
 * fragment, as pdf.js joins a text layer's words, so column and table gaps stay visible.
 */
function lineFragments(line: OcrLine): Fragment[] {
  const words = line.words.filter((word) => word.text.trim() !== '' && word.confidence > 20);
  if (words.length === 0) return [];
  const height = (line.bbox.y1 - line.bbox.y0) / renderScale;
  // A line box spans ascenders to descenders: about 1.15 times the font size.
  const size = Math.max(4, height / 1.15);
  const baseline = line.bbox.y1 / renderScale - size * 0.2;
  const fragments: Fragment[] = [];
  let current: Fragment | undefined;
  for (const word of words) {
    const left = word.bbox.x0 / renderScale;
    const right = word.bbox.x1 / renderScale;
    if (current && left - (current.x + current.width) < size * 0.6) {
      current.text += ` ${word.text}`;
      current.width = right - current.x;
    } else {
      current = { text: word.text, x: left, y: baseline, width: right - left, size, bold: false };
      fragments.push(current);
    }
  }
  return fragments;
}
