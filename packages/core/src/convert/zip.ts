/**
 * ZIP packages (DOCX, XLSX, PPTX, ODF, EPUB) unpacked under a cap on the bytes inflation actually
 * produces. A ZIP's headers only declare sizes: a 1 MB entry that says "100 KB" may inflate to
 * 1 GB, and JSZip (which mammoth and exceljs use too) believes the header and inflates it whole
 *. Here every entry is inflated by node:zlib with `maxOutputLength` set to what
 * the entry declares and what is left of the package's budget, so inflation stops at the first
 * chunk past either; the libraries then get the inflated bytes, never a compressed entry.
 */
import { inflateRawSync } from 'node:zlib';
import JSZip from 'jszip';
import { ContentTooLargeError, ValidationError } from '../errors.ts';

/** One entry of a ZIP's central directory. */
export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated; others are refused when unpacking. */
  method: number;
  /** General purpose flags; bit 0 means encrypted. */
  flags: number;
  compressedSize: number;
  uncompressedSize: number;
  /** Where the entry's local header starts. */
  localHeaderOffset: number;
}

const endOfDirectory = 0x06054b50;
const zip64EndLocator = 0x07064b50;
const zip64End = 0x06064b50;
const directoryEntry = 0x02014b50;
const localHeader = 0x04034b50;
/** A 32-bit field set to this says "the real value is in the ZIP64 extra field". */
const inZip64 = 0xffffffff;

/** The entries of a ZIP file; empty when the bytes are not a readable ZIP. */
export function listZipEntries(bytes: Uint8Array): ZipEntry[] {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // The end-of-central-directory record sits in the last 64 KB + 22 bytes.
  let end = -1;
  for (let at = view.length - 22; at >= Math.max(0, view.length - 65_557); at--) {
    if (view.readUInt32LE(at) === endOfDirectory) {
      end = at;
      break;
    }
  }
  if (end < 0) return [];
  let count = view.readUInt16LE(end + 10);
  let at = view.readUInt32LE(end + 16);
  // Packages written by ZIP64 tools keep the real count and offset in a second record.
  const locator = end - 20;
  if (locator >= 0 && view.readUInt32LE(locator) === zip64EndLocator) {
    const record = Number(view.readBigUInt64LE(locator + 8));
    if (record + 56 <= view.length && view.readUInt32LE(record) === zip64End) {
      count = Number(view.readBigUInt64LE(record + 32));
      at = Number(view.readBigUInt64LE(record + 48));
    }
  }
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (at + 46 > view.length || view.readUInt32LE(at) !== directoryEntry) return entries;
    const nameLength = view.readUInt16LE(at + 28);
    const extraLength = view.readUInt16LE(at + 30);
    const commentLength = view.readUInt16LE(at + 32);
    const entry: ZipEntry = {
      name: view.toString('utf8', at + 46, at + 46 + nameLength),
      method: view.readUInt16LE(at + 10),
      flags: view.readUInt16LE(at + 8),
      compressedSize: view.readUInt32LE(at + 20),
      uncompressedSize: view.readUInt32LE(at + 24),
      localHeaderOffset: view.readUInt32LE(at + 42),
    };
    const extraStart = at + 46 + nameLength;
    readZip64Extra(
      view.subarray(extraStart, Math.min(view.length, extraStart + extraLength)),
      entry,
    );
    entries.push(entry);
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** Fills the sizes and offset that the fixed fields left at 0xFFFFFFFF from the ZIP64 extra. */
function readZip64Extra(extra: Buffer, entry: ZipEntry): void {
  for (let at = 0; at + 4 <= extra.length;) {
    const id = extra.readUInt16LE(at);
    const size = extra.readUInt16LE(at + 2);
    if (id === 0x0001) {
      // Only the fields that overflowed are present, in this order.
      let field = at + 4;
      const next = (): number | undefined => {
        if (field + 8 > at + 4 + size || field + 8 > extra.length) return undefined;
        const value = Number(extra.readBigUInt64LE(field));
        field += 8;
        return value;
      };
      if (entry.uncompressedSize === inZip64) entry.uncompressedSize = next() ?? inZip64;
      if (entry.compressedSize === inZip64) entry.compressedSize = next() ?? inZip64;
      if (entry.localHeaderOffset === inZip64) entry.localHeaderOffset = next() ?? inZip64;
      return;
    }
    at += 4 + size;
  }
}

/** Largest total a package may unpack to. */
export const maxUnpackedBytes = 256 * 1024 * 1024;
/** Largest expansion of one entry: text compresses well, but not a thousandfold. */
const maxRatio = 200;

/**
 * Refuses a package whose entries declare sizes past the limits (a zip bomb that says so), or that
 * has no readable directory; a cheap first look before anything is inflated. The sizes are only
 * declared: {@link unpackZip} holds inflation to them. @throws CONTENT_TOO_LARGE or BAD_REQUEST
 */
export function checkZipBomb(bytes: Uint8Array, what: string): ZipEntry[] {
  const entries = listZipEntries(bytes);
  if (entries.length === 0)
    throw new ValidationError(`The ${what} file is not a readable ZIP package`);
  let total = 0;
  for (const entry of entries) {
    total += entry.uncompressedSize;
    const ratio = entry.uncompressedSize / Math.max(1, entry.compressedSize);
    if (total > maxUnpackedBytes || (entry.uncompressedSize > 1024 * 1024 && ratio > maxRatio)) {
      throw new ContentTooLargeError(
        `The ${what} file would unpack to more than it plausibly holds (${entry.name}: ${entry.uncompressedSize} bytes from ${entry.compressedSize}); refused as a possible zip bomb`,
      );
    }
  }
  return entries;
}

/**
 * Every file of a package, inflated. Each entry may produce at most the size its header declares
 * and the package at most {@link maxUnpackedBytes}: inflation stops at the first chunk past either,
 * so a lying header costs no more memory than an honest one.
 * @throws CONTENT_TOO_LARGE for an entry that inflates past its declared size or the package cap;
 *   BAD_REQUEST for an unreadable, encrypted or unsupported package
 */
export function unpackZip(bytes: Uint8Array, what: string): Map<string, Buffer> {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const files = new Map<string, Buffer>();
  let budget = maxUnpackedBytes;
  for (const entry of checkZipBomb(bytes, what)) {
    if (entry.name.endsWith('/')) continue;
    const data = compressedData(view, entry, what);
    const cap = Math.min(entry.uncompressedSize, budget);
    let content: Buffer;
    if (entry.method === 0) {
      content = data;
    } else {
      try {
        // zlib checks the limit after each output chunk and throws: nothing past it is kept.
        content = inflateRawSync(data, { maxOutputLength: Math.max(1, cap) });
      } catch (error) {
        if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
          throw tooLarge(what, entry, cap);
        }
        throw new ValidationError(
          `The ${what} file cannot be read: ${entry.name} is corrupt (${(error as Error).message})`,
        );
      }
    }
    if (content.length > cap) throw tooLarge(what, entry, cap);
    budget -= content.length;
    files.set(entry.name, content);
  }
  return files;
}

/** The bytes of an entry as stored, located through its local header. */
function compressedData(view: Buffer, entry: ZipEntry, what: string): Buffer {
  if (entry.flags & 1) {
    throw new ValidationError(`The ${what} file is encrypted (${entry.name}); it cannot be read`);
  }
  if (entry.method !== 0 && entry.method !== 8) {
    throw new ValidationError(
      `The ${what} file uses ZIP compression method ${entry.method} for ${entry.name}; only stored and deflated entries can be read`,
    );
  }
  const at = entry.localHeaderOffset;
  if (at + 30 > view.length || view.readUInt32LE(at) !== localHeader) {
    throw new ValidationError(`The ${what} file cannot be read: ${entry.name} has no local header`);
  }
  const start = at + 30 + view.readUInt16LE(at + 26) + view.readUInt16LE(at + 28);
  const end = start + entry.compressedSize;
  if (end > view.length) {
    throw new ValidationError(`The ${what} file cannot be read: ${entry.name} is truncated`);
  }
  return view.subarray(start, end);
}

function tooLarge(what: string, entry: ZipEntry, cap: number): ContentTooLargeError {
  const reason =
    cap < entry.uncompressedSize
      ? `the package would unpack to more than ${maxUnpackedBytes} bytes`
      : `${entry.name} inflates past the ${entry.uncompressedSize} bytes its header declares`;
  return new ContentTooLargeError(
    `The ${what} file was refused as a zip bomb: ${reason}; inflation was stopped there`,
  );
}

/**
 * A package as JSZip over bytes already inflated under the caps, so reading a part never inflates
 * anything. @throws CONTENT_TOO_LARGE or BAD_REQUEST as {@link unpackZip}
 */
export function openZip(bytes: Uint8Array, what: string): JSZip {
  const zip = new JSZip();
  for (const [name, content] of unpackZip(bytes, what)) zip.file(name, content);
  return zip;
}

/**
 * The package rewritten with every entry stored (not compressed), for libraries that open the ZIP
 * themselves (mammoth, exceljs): a stored entry's bytes are what they are, so the library cannot
 * be made to inflate more than {@link unpackZip} already allowed.
 * @throws CONTENT_TOO_LARGE or BAD_REQUEST as {@link unpackZip}
 */
export async function repackStored(bytes: Uint8Array, what: string): Promise<Buffer> {
  return openZip(bytes, what).generateAsync({ type: 'nodebuffer', compression: 'STORE' });
}
