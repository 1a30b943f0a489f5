/** Reads what the tests check of captured files: PNG and JPEG sizes, PDF signatures. */

/** Width and height of a PNG, from its IHDR chunk; throws when the bytes are not a PNG. */
export function pngSize(bytes: Buffer): { width: number; height: number } {
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  if (!bytes.subarray(0, 8).equals(signature)) throw new Error('not a PNG: bad signature');
  if (bytes.toString('latin1', 12, 16) !== 'IHDR') throw new Error('not a PNG: no IHDR first');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** The bytes of a `data:` URI; throws for anything else. */
export function dataUriBytes(uri: string | undefined, type: string): Buffer {
  const prefix = `data:${type};base64,`;
  if (!uri?.startsWith(prefix))
    throw new Error(`expected a ${type} data URI, got ${uri?.slice(0, 40)}`);
  return Buffer.from(uri.slice(prefix.length), 'base64');
}
