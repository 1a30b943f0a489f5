/**
 * Content-Encoding undone for the HTTP fetcher (fetch-http.ts): gzip, deflate, brotli and zstd,
 * stacked ones too, each bounded by the body limit, in libuv's thread pool; and the error a body
 * past that limit gets.
 */
import type { Transform } from 'node:stream';
import { promisify } from 'node:util';
// zstd through the namespace: a named import of it fails to link on a Node.js before 22.15,
// before internal/node-version.ts can say which Node.js Trawl needs.
import * as zlib from 'node:zlib';
import { ContentTooLargeError, FetchError } from '../errors.ts';

type Inflate = (body: Uint8Array, options: zlib.ZlibOptions) => Promise<Buffer>;
// The callback forms run in libuv's thread pool: inflating a bomb up to the 20 MiB cap is
// tens of milliseconds of CPU, which the sync forms spent on the thread that answers requests.
const inflaters: Record<string, Inflate> = {
  gzip: promisify(zlib.gunzip),
  'x-gzip': promisify(zlib.gunzip),
  deflate: promisify(zlib.inflate),
  br: promisify(zlib.brotliDecompress),
  zstd: promisify(zlib.zstdDecompress) as Inflate,
};

/**
 * RFC 9659 caps a zstd window at 8 MiB over HTTP (browsers refuse larger ones): the default
 * would let a frame of a few bytes make the decoder allocate 128 MiB before any output.
 */
const zstdHttpParams = { params: { [zlib.constants.ZSTD_d_windowLogMax]: 23 } };
const optionsFor = (coding: string, maxBytes: number) =>
  coding === 'zstd'
    ? { maxOutputLength: maxBytes, ...zstdHttpParams }
    : { maxOutputLength: maxBytes };

/**
 * A body coded more than this many times is refused: each pass is bounded by the output cap, but
 * a header of thousands of codings would still be thousands of passes.
 */
const maxCodings = 4;

/**
 * The codings of a Content-Encoding header in the order they are undone (the last applied comes
 * last in the header, RFC 9110 8.4), `identity` dropped; undefined when one is unknown, and the
 * body is then passed on as sent.
 */
function codingsOf(encoding: string | undefined, url: URL): string[] | undefined {
  const codings = (encoding ?? '')
    .toLowerCase()
    .split(',')
    .map((coding) => coding.trim())
    .filter((coding) => coding !== '' && coding !== 'identity')
    .reverse();
  if (codings.length > maxCodings) {
    throw new FetchError(
      `${url.href} declares ${codings.length} content codings; at most ${maxCodings} are undone`,
      { retryable: false },
    );
  }
  return codings.every((coding) => coding in inflaters) ? codings : undefined;
}

/**
 * Undoes Content-Encoding, every coding of it, up to `maxBytes` of output: past it a small
 * compressed bomb is refused (413), or with `truncate` its first `maxBytes` are kept, as are the
 * bytes decoded before a stream cut short or corrupt.
 *
 * @throws CONTENT_TOO_LARGE past `maxBytes` (unless `truncate`); FETCH_FAILED for a corrupt body
 *   or more than `maxCodings` codings
 */
export async function decodeContent(
  body: Uint8Array,
  encoding: string | undefined,
  url: URL,
  maxBytes: number,
  truncate: boolean,
): Promise<Uint8Array> {
  let decoded = body;
  for (const coding of codingsOf(encoding, url) ?? []) {
    if (decoded.length === 0) break;
    decoded = truncate
      ? await decodeHead(decoded, decoders[coding]!(), maxBytes, url, coding)
      : await inflate(decoded, coding, url, maxBytes);
  }
  return decoded;
}

/** One coding undone, the output capped at `maxBytes`. */
async function inflate(
  body: Uint8Array,
  coding: string,
  url: URL,
  maxBytes: number,
): Promise<Uint8Array> {
  try {
    return await inflaters[coding]!(body, optionsFor(coding, maxBytes));
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
      throw tooLarge(url, maxBytes, `decodes (${coding}) to more than that`);
    throw new FetchError(`${url.href} sent a corrupt ${coding} body: ${(error as Error).message}`, {
      cause: error,
      retryable: false,
    });
  }
}

const decoders: Record<string, () => Transform> = {
  gzip: () => zlib.createGunzip(),
  'x-gzip': () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress(),
  zstd: () => zlib.createZstdDecompress(zstdHttpParams),
};

/**
 * The first `maxBytes` that `stream` decodes from `body`, and what decoded before damage.
 * @throws FETCH_FAILED when nothing at all decodes: a corrupt body is not an empty page
 */
async function decodeHead(
  body: Uint8Array,
  stream: Transform,
  maxBytes: number,
  url: URL,
  coding: string,
): Promise<Buffer> {
  stream.end(body);
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      chunks.push(chunk.subarray(0, maxBytes - total));
      total = Math.min(maxBytes, total + chunk.length);
      if (total >= maxBytes) break;
    }
  } catch (error) {
    // Keep what decoded before the damage.
    if (total === 0)
      throw new FetchError(
        `${url.href} sent a corrupt ${coding} body: ${(error as Error).message}`,
        { cause: error, retryable: false },
      );
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks, total);
}

/** A byte count as the limit messages write it. */
export const bytes = (count: number) => `${count.toLocaleString('en-US')} bytes`;

/**
 * A body past the limit: the message names the real size (or how far reading got) and the
 * limit, and `details.setting` the option that sets it, which the CLI and the server name their
 * variable for.
 */
export function tooLarge(
  url: URL,
  maxBytes: number,
  what: string,
  size?: number,
): ContentTooLargeError {
  return new ContentTooLargeError(
    `The body of ${url.href} is larger than the ${bytes(maxBytes)} limit: it ${what}. Raise maxBodyBytes in the engine config to read it`,
    {
      details: {
        setting: 'maxBodyBytes',
        limitBytes: maxBytes,
        ...(size === undefined ? {} : { sizeBytes: size }),
      },
    },
  );
}
