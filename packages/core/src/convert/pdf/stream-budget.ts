/**
 * A bound on what a PDF's compressed streams inflate to, checked before pdf.js opens the file.
 * pdf.js inflates FlateDecode streams itself, into a buffer that grows until the stream ends, and
 * has no option to cap it: a 1 MB content stream that inflates to 1 GB would be held whole (issue
 * 14, point 7). A worker's `resourceLimits` do not help either, since those buffers live outside
 * the V8 heap. So every stream is inflated here first, through node:zlib streams that count the
 * bytes and keep none, and the file is refused once one stream or all of them together pass the
 * caps.
 *
 * Streams are found by their `stream` keyword and recognised as zlib data by its header, as pdf.js
 * does, never by the `/Filter` entry of their dictionary: a filter can be hidden behind an indirect
 * reference or `#xx` escapes, a header cannot. Chained filters (`[/FlateDecode /FlateDecode]`)
 * are followed layer by layer. Not covered: streams of an encrypted file (their bytes are
 * ciphertext until pdf.js decrypts them) and the LZW filter, whose expansion is far smaller.
 */
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { constants, createInflate, inflateSync, type Inflate } from 'node:zlib';
import { ContentTooLargeError } from '../../errors.ts';

/** Limits on inflated stream bytes. */
export interface StreamBudget {
  /** Largest one stream may inflate to: a 600 dpi A4 colour scan is about 100 MiB. */
  maxStreamBytes: number;
  /** Largest all streams together may inflate to. */
  maxTotalBytes: number;
}

/** The caps applied to every PDF parsed. */
export const pdfStreamBudget: StreamBudget = {
  maxStreamBytes: 128 * 1024 * 1024,
  maxTotalBytes: 512 * 1024 * 1024,
};

/** Streams up to this size are inflated at once and measured; larger ones as they stream. */
const quickBytes = 1024 * 1024;

// Chained Flate filters deeper than this are refused by pdf.js's own sanity anyway.
const maxLayers = 4;

/**
 * Inflates every zlib stream of the file, counting, and refuses the file when a stream or the
 * total passes `budget`; memory stays at zlib's window and one output chunk.
 * @throws CONTENT_TOO_LARGE
 */
export async function checkPdfStreams(
  bytes: Uint8Array,
  budget: StreamBudget = pdfStreamBudget,
): Promise<void> {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let total = 0;
  for (const start of streamStarts(view)) {
    // The data runs to the end of the file at most; zlib stops at the end of its own stream, as
    // pdf.js does, so a wrong /Length cannot hide bytes from this count.
    const data = view.subarray(start);
    if (!isZlibHeader(data)) continue;
    const limit = Math.min(budget.maxStreamBytes, budget.maxTotalBytes - total);
    const size = quickSize(data, limit) ?? (await inflatedSize(data, zlibLayers(data), limit));
    if (size > limit) {
      throw new ContentTooLargeError(
        size > budget.maxStreamBytes || limit === budget.maxStreamBytes
          ? `The PDF has a stream (at byte ${start}) that inflates past ${budget.maxStreamBytes} bytes; refused as a possible decompression bomb, inflation was stopped there`
          : `The PDF's streams inflate past ${budget.maxTotalBytes} bytes in total; refused as a possible decompression bomb, inflation was stopped there`,
      );
    }
    total += size;
  }
}

/** Offsets where stream data begins: after `stream` and its end of line, not `endstream`. */
function* streamStarts(view: Buffer): Generator<number> {
  for (let at = view.indexOf('stream'); at >= 0; at = view.indexOf('stream', at + 6)) {
    if (at > 0 && view[at - 1] === 0x64 /* d of endstream */) continue;
    let start = at + 6;
    if (view[start] === 0x0d) start++;
    if (view[start] !== 0x0a && view[start - 1] !== 0x0d) continue;
    if (view[start] === 0x0a) start++;
    yield start;
  }
}

/** Whether two bytes open a zlib stream of the deflate method (RFC 1950), as pdf.js checks. */
function isZlibHeader(data: Uint8Array): boolean {
  const [cmf, flg] = data;
  if (cmf === undefined || flg === undefined) return false;
  return (cmf & 0x0f) === 8 && (cmf >> 4) + 8 <= 15 && ((cmf << 8) | flg) % 31 === 0;
}

/**
 * How many zlib layers the data is wrapped in, judged from the head of each layer's output:
 * a short prefix inflated with a sync flush (no error for a truncated input).
 */
function zlibLayers(data: Uint8Array): number {
  let layers = 0;
  let head: Uint8Array = data;
  while (layers < maxLayers && isZlibHeader(head)) {
    layers++;
    try {
      // 256 input bytes inflate to at most about 256 KiB: cheap, whatever the stream.
      head = inflateSync(head.subarray(0, 256), { finishFlush: constants.Z_SYNC_FLUSH });
    } catch {
      break;
    }
  }
  return layers;
}

/**
 * The inflated size of a small single-layer stream, from one synchronous inflate of at most
 * {@link quickBytes} (far cheaper than a stream pipeline, and most streams are small); undefined
 * for a larger, chained or corrupt stream, which {@link inflatedSize} counts as it streams.
 */
function quickSize(data: Uint8Array, limit: number): number | undefined {
  try {
    const inflated = inflateSync(data, {
      maxOutputLength: Math.max(1, Math.min(limit, quickBytes)),
    });
    return isZlibHeader(inflated) ? undefined : inflated.length;
  } catch {
    return undefined;
  }
}

/**
 * The bytes `layers` chained inflations of `data` produce, counted as they pass; stops at
 * `limit` + 1 and reports that. A corrupt stream counts what it produced before the damage.
 */
async function inflatedSize(data: Uint8Array, layers: number, limit: number): Promise<number> {
  let size = 0;
  const counter = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      // Failing the write ends the pipeline: zlib stops inflating at once.
      callback(size > limit ? new Error('limit') : null);
    },
  });
  const inflaters: Inflate[] = Array.from({ length: layers }, () => createInflate());
  try {
    await pipeline([Readable.from([data]), ...inflaters, counter]);
  } catch {
    // The limit was hit or the data is corrupt: either way what was counted is the answer.
  }
  return size;
}
