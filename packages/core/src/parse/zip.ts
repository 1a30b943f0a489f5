/**
 * Just enough of the ZIP format to look inside a package before a library unpacks it: the names
 * and sizes of its entries from the central directory, so a zip bomb is refused by its declared
 * sizes instead of being inflated.
 */
import { ContentTooLargeError, ValidationError } from '../errors.ts';

/** One entry of a ZIP's central directory. */
export interface ZipEntry {
  name: string;
  compressedSize: number;
  uncompressedSize: number;
}

/** The entries of a ZIP file; empty when the bytes are not a readable ZIP. */
export function listZipEntries(bytes: Uint8Array): ZipEntry[] {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // The end-of-central-directory record sits in the last 64 KB + 22 bytes.
  let end = -1;
  for (let at = view.length - 22; at >= Math.max(0, view.length - 65_557); at--) {
    if (view.readUInt32LE(at) === 0x06054b50) {
      end = at;
      break;
    }
  }
  if (end < 0) return [];
  const count = view.readUInt16LE(end + 10);
  let at = view.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (at + 46 > view.length || view.readUInt32LE(at) !== 0x02014b50) return entries;
    const nameLength = view.readUInt16LE(at + 28);
    const extraLength = view.readUInt16LE(at + 30);
    const commentLength = view.readUInt16LE(at + 32);
    entries.push({
      compressedSize: view.readUInt32LE(at + 20),
      uncompressedSize: view.readUInt32LE(at + 24),
      name: view.toString('utf8', at + 46, at + 46 + nameLength),
    });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** Largest total a package may unpack to. */
const maxUnpackedBytes = 256 * 1024 * 1024;
/** Largest expansion of one entry: text compresses well, but not a thousandfold. */
const maxRatio = 200;

/**
 * Refuses a package whose entries would unpack past the limits (a zip bomb), or that has no
 * readable directory. @throws CONTENT_TOO_LARGE or BAD_REQUEST
 */
export function checkZipBomb(bytes: Uint8Array, what: string): void {
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
}
