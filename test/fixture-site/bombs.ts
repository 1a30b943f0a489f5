/**
 * Decompression bombs, built on demand and never committed: a ZIP package
 * whose headers under-declare an entry, a PDF with one huge Flate stream, and gzip/brotli/zstd bodies
 * for the fixture site's `/bomb/*` routes. Each is made by streaming a 1 MiB block through the
 * compressor, so building a 1 GiB bomb never holds 1 GiB.
 */
import { once } from 'node:events';
import {
  constants,
  crc32,
  createBrotliCompress,
  createGzip,
  createZstdCompress,
  deflateRawSync,
  deflateSync,
  gzipSync,
} from 'node:zlib';

const block = Buffer.alloc(1024 * 1024, ' ');

// One MiB of spaces as a non-final deflate block ending on a byte boundary (a full flush keeps
// no history), so copies of it concatenate into a valid stream of any length in no time.
const deflatedBlock = deflateRawSync(block, {
  level: constants.Z_BEST_COMPRESSION,
  finishFlush: constants.Z_FULL_FLUSH,
});
/** An empty final block with fixed Huffman codes: BFINAL 1, BTYPE 01, end-of-block. */
const finalBlock = Buffer.from([0x03, 0x00]);

/** `bytes` (a multiple of 1 MiB) of spaces as raw deflate data, and their CRC-32. */
function deflatedSpaces(bytes: number): { data: Buffer; crc: number } {
  const blocks = Math.ceil(bytes / block.length);
  let crc = 0;
  for (let i = 0; i < blocks; i++) crc = crc32(block, crc);
  return {
    data: Buffer.concat([...Array<Buffer>(blocks).fill(deflatedBlock), finalBlock]),
    crc,
  };
}

/**
 * A gzip file of `head` and then `bytes` (a multiple of 1 MiB) of spaces, as two members, built
 * in no time from copies of one deflate block. The second member's trailer is zeros: a reader
 * that stops at its output limit never gets that far, and one that does finds it corrupt.
 */
export function gzipSpacesAfter(head: string, bytes: number): Buffer {
  const memberHeader = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
  return Buffer.concat([
    gzipSync(head),
    memberHeader,
    ...Array<Buffer>(Math.ceil(bytes / block.length)).fill(deflatedBlock),
    finalBlock,
    Buffer.alloc(8),
  ]);
}

interface ZipPart {
  name: string;
  /** Deflated bytes. */
  data: Buffer;
  crc: number;
  /** The size the headers claim, true or not. */
  declaredSize: number;
}

/** A ZIP file of deflated parts, with local headers, central directory and end record. */
function zipOf(parts: ZipPart[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const part of parts) {
    const name = Buffer.from(part.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(part.crc >>> 0, 14);
    local.writeUInt32LE(part.data.length, 18);
    local.writeUInt32LE(part.declaredSize, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(part.crc >>> 0, 16);
    central.writeUInt32LE(part.data.length, 20);
    central.writeUInt32LE(part.declaredSize, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, part.data);
    centrals.push(central, name);
    offset += local.length + name.length + part.data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

function honestPart(name: string, text: string): ZipPart {
  const raw = Buffer.from(text, 'utf8');
  return { name, data: deflateRawSync(raw), crc: crc32(raw), declaredSize: raw.length };
}

/**
 * A DOCX whose `word/document.xml` inflates to `actualBytes` (rounded up to whole MiB) while
 * every header declares `declaredBytes`: with 1 GiB actual it is about 1 MB on disk.
 */
export function makeLyingDocx(actualBytes: number, declaredBytes: number): Buffer {
  const bomb = deflatedSpaces(actualBytes);
  return zipOf([
    honestPart(
      '[Content_Types].xml',
      '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    ),
    honestPart(
      '_rels/.rels',
      '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    ),
    { name: 'word/document.xml', data: bomb.data, crc: bomb.crc, declaredSize: declaredBytes },
  ]);
}

/**
 * A one-page PDF whose content stream inflates to `actualBytes` (whole MiB of spaces), wrapped in `layers` Flate
 * filters. With `hideFilter` the dictionary names no filter in plain text (`/Fl#61teDecode`).
 */
export function makePdfBomb(
  actualBytes: number,
  options: { layers?: number; hideFilter?: boolean } = {},
): Buffer {
  // zlib framing around the raw blocks; the checksum is left 0, since a reader that gets that far
  // has already inflated the bomb.
  let data: Buffer = Buffer.concat([
    Buffer.from([0x78, 0xda]),
    deflatedSpaces(actualBytes).data,
    Buffer.alloc(4),
  ]);
  const layers = options.layers ?? 1;
  for (let i = 1; i < layers; i++) {
    data = deflateSync(data, { level: constants.Z_BEST_COMPRESSION });
  }
  const name = options.hideFilter ? '/Fl#61teDecode' : '/FlateDecode';
  const filter = layers === 1 ? name : `[${Array<string>(layers).fill(name).join(' ')}]`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>',
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n')];
  const offsets: number[] = [];
  let length = parts[0]!.length;
  const push = (buffer: Buffer) => {
    parts.push(buffer);
    length += buffer.length;
  };
  objects.forEach((body, index) => {
    offsets.push(length);
    push(Buffer.from(`${index + 1} 0 obj\n${body}\nendobj\n`));
  });
  offsets.push(length);
  push(Buffer.from(`4 0 obj\n<< /Length ${data.length} /Filter ${filter} >>\nstream\n`));
  push(data);
  push(Buffer.from('\nendstream\nendobj\n'));
  const xref = length;
  const table = offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  push(
    Buffer.from(
      `xref\n0 5\n0000000000 65535 f \n${table}trailer\n<< /Size 5 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`,
    ),
  );
  return Buffer.concat(parts);
}

const bodyBombs = new Map<string, Promise<Buffer>>();

/**
 * An HTML body of `bytes` (mostly spaces) compressed with `encoding`; built once per size and
 * kept, since the fixture site serves it to several tests.
 */
export function compressedBomb(encoding: 'gzip' | 'br' | 'zstd', bytes: number): Promise<Buffer> {
  const key = `${encoding}:${bytes}`;
  let bomb = bodyBombs.get(key);
  if (!bomb) {
    const compressor =
      encoding === 'gzip'
        ? createGzip({ level: constants.Z_BEST_COMPRESSION })
        : encoding === 'br'
          ? createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 5 } })
          : createZstdCompress({ params: { [constants.ZSTD_c_compressionLevel]: 3 } });
    bomb = (async () => {
      const head = Buffer.from('<!DOCTYPE html><html><body><p>bomb</p>');
      const chunks: Buffer[] = [];
      compressor.on('data', (chunk: Buffer) => chunks.push(chunk));
      const ended = once(compressor, 'end');
      compressor.write(head);
      for (let left = bytes; left > 0; left -= block.length) {
        if (!compressor.write(left >= block.length ? block : block.subarray(0, left))) {
          await once(compressor, 'drain');
        }
      }
      compressor.end();
      await ended;
      return Buffer.concat(chunks);
    })();
    bodyBombs.set(key, bomb);
  }
  return bomb;
}
