/**
 * Binary fixtures the site builds in memory: PNG, ICO, PDF, DOCX, XLSX and deterministic noise.
 *
 * They are generated rather than committed so that every byte is explained by the code beside it,
 * and so that tests can import the exact text each document must yield (`documentSamples`).
 */
import { crc32, deflateRawSync, deflateSync } from 'node:zlib';

/** Pixel colour as [red, green, blue], each 0–255. */
export type Rgb = readonly [number, number, number];

/** Builds a PNG chunk: big-endian length, type, data, CRC over type+data (RFC 2083 §3.2). */
function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([length, typeAndData, crc]);
}

/**
 * Encodes an 8-bit RGB PNG whose pixels come from `pixel(x, y)`.
 *
 * @example makePng(16, 16, (x, y) => ((x + y) % 2 ? [255, 255, 255] : [0, 0, 0]))
 */
export function makePng(
  width: number,
  height: number,
  pixel: (x: number, y: number) => Rgb,
): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  // Bit depth 8, colour type 2 (truecolour), default compression, filter and no interlace.
  header.set([8, 2, 0, 0, 0], 8);
  const stride = 1 + width * 3;
  const raw = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    // Each scanline starts with filter type 0 (None), which keeps the encoder trivial.
    raw[y * stride] = 0;
    for (let x = 0; x < width; x++) {
      raw.set(pixel(x, y), y * stride + 1 + x * 3);
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(raw, { level: 9 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Wraps one PNG in an ICO container; PNG-in-ICO has been valid since Windows Vista. */
export function makeIco(png: Buffer, size: number): Buffer {
  const header = Buffer.alloc(6 + 16);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2); // type 1 = icon
  header.writeUInt16LE(1, 4); // one image
  // A size byte of 0 means 256 pixels.
  header.writeUInt8(size >= 256 ? 0 : size, 6);
  header.writeUInt8(size >= 256 ? 0 : size, 7);
  header.writeUInt16LE(1, 10); // colour planes
  header.writeUInt16LE(32, 12); // bits per pixel
  header.writeUInt32LE(png.length, 14);
  header.writeUInt32LE(header.length, 18);
  return Buffer.concat([header, png]);
}

/** The lines of text written on the fixture PDF, in reading order. */
export const pdfLines = [
  'Harbor Authority Quarterly Report',
  'Second quarter, fiscal year 2025',
  'Container throughput rose 4.2 percent against the same quarter last year.',
  'Dredging of the north channel finished two weeks ahead of schedule.',
] as const;

/** The document title stored in the PDF's Info dictionary. */
export const pdfTitle = 'Harbor Authority Quarterly Report';

/**
 * Writes a one-page PDF 1.4 with standard Helvetica text, computing the xref offsets so that
 * strict parsers accept it without falling back to a repair scan.
 */
export function makePdf(): Buffer {
  const escape = (text: string) => text.replace(/[\\()]/g, (c) => `\\${c}`);
  const content = [
    'BT',
    '/F1 20 Tf',
    '72 720 Td',
    `(${escape(pdfLines[0])}) Tj`,
    '/F1 12 Tf',
    '0 -28 Td',
    ...pdfLines.slice(1).flatMap((line) => [`(${escape(line)}) Tj`, '0 -18 Td']),
    'ET',
  ].join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    `<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`,
    `<< /Title (${escape(pdfTitle)}) /Author (Trawl fixture site) /Producer (Trawl fixture site) >>`,
  ];
  // The second header line holds bytes above 127 so that tools treat the file as binary.
  let body = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(Buffer.byteLength(body, 'latin1'));
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xrefOffset = Buffer.byteLength(body, 'latin1');
  // Each xref entry is exactly 20 bytes, including the two-byte end of line.
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  body += offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info 6 0 R >>\n`;
  body += `startxref\n${xrefOffset}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

/**
 * Packs files into a ZIP archive (deflated, fixed 1980-01-01 timestamps) so the bytes are the
 * same on every run.
 */
export function makeZip(files: ReadonlyArray<readonly [name: string, content: string]>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of files) {
    const nameBytes = Buffer.from(name, 'utf8');
    const data = Buffer.from(content, 'utf8');
    const compressed = deflateRawSync(data, { level: 9 });
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed: 2.0 (deflate)
    local.writeUInt16LE(0x0800, 6); // bit 11: names are UTF-8
    local.writeUInt16LE(8, 8); // method: deflate
    local.writeUInt16LE(0, 10); // time 00:00:00
    local.writeUInt16LE(0x21, 12); // date 1980-01-01
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4); // version made by
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(compressed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, compressed);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + compressed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const xmlHeader = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const relationshipsType = 'application/vnd.openxmlformats-package.relationships+xml';
const officeDocumentRel =
  'http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument';

const escapeXml = (text: string) =>
  text.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!);

/** What the fixture DOCX and XLSX contain, so that parser tests can assert on it. */
export const documentSamples = {
  docx: {
    heading: 'Volunteer Handbook',
    paragraphs: [
      'Thank you for joining the Riverside Community Garden volunteer team.',
      'Shifts run from 8:00 to 11:00 every Saturday between April and October.',
      'Please sign in at the tool shed and return every tool before you leave.',
    ],
  },
  xlsx: {
    sheetName: 'Inventory',
    rows: [
      ['Item', 'Quantity', 'Unit price'],
      ['Trowel', '24', '7.5'],
      ['Watering can', '12', '14.25'],
      ['Compost bag', '40', '5.99'],
    ],
  },
} as const;

/** A minimal Word document: one Heading 1 and three paragraphs, with a styles part. */
export function makeDocx(): Buffer {
  const { heading, paragraphs } = documentSamples.docx;
  const paragraph = (text: string, style?: string) =>
    `<w:p>${style ? `<w:pPr><w:pStyle w:val="${style}"/></w:pPr>` : ''}<w:r><w:t xml:space="preserve">${escapeXml(text)}</w:t></w:r></w:p>`;
  const w = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
  return makeZip([
    [
      '[Content_Types].xml',
      `${xmlHeader}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="${relationshipsType}"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/></Types>`,
    ],
    [
      '_rels/.rels',
      `${xmlHeader}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${officeDocumentRel}" Target="word/document.xml"/></Relationships>`,
    ],
    [
      'word/_rels/document.xml.rels',
      `${xmlHeader}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>`,
    ],
    [
      'word/styles.xml',
      `${xmlHeader}<w:styles xmlns:w="${w}"><w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style><w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr><w:rPr><w:b/><w:sz w:val="32"/></w:rPr></w:style></w:styles>`,
    ],
    [
      'word/document.xml',
      `${xmlHeader}<w:document xmlns:w="${w}"><w:body>${paragraph(heading, 'Heading1')}${paragraphs.map((p) => paragraph(p)).join('')}<w:sectPr/></w:body></w:document>`,
    ],
  ]);
}

/** A minimal Excel workbook with one sheet of inline strings and numbers. */
export function makeXlsx(): Buffer {
  const { sheetName, rows } = documentSamples.xlsx;
  const columnLetter = (index: number) => String.fromCharCode(65 + index);
  const cell = (value: string, column: number, row: number) => {
    const ref = `${columnLetter(column)}${row + 1}`;
    // Numbers are stored as numbers so that parsers see real numeric cells, as Excel writes them.
    return /^\d+(\.\d+)?$/.test(value)
      ? `<c r="${ref}"><v>${value}</v></c>`
      : `<c r="${ref}" t="inlineStr"><is><t>${escapeXml(value)}</t></is></c>`;
  };
  const sheetRows = rows
    .map((row, r) => `<row r="${r + 1}">${row.map((v, c) => cell(v, c, r)).join('')}</row>`)
    .join('');
  const main = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
  const rel = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
  return makeZip([
    [
      '[Content_Types].xml',
      `${xmlHeader}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="${relationshipsType}"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>`,
    ],
    [
      '_rels/.rels',
      `${xmlHeader}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${officeDocumentRel}" Target="xl/workbook.xml"/></Relationships>`,
    ],
    [
      'xl/workbook.xml',
      `${xmlHeader}<workbook xmlns="${main}" xmlns:r="${rel}"><sheets><sheet name="${sheetName}" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    ],
    [
      'xl/_rels/workbook.xml.rels',
      `${xmlHeader}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${rel}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
    ],
    [
      'xl/worksheets/sheet1.xml',
      `${xmlHeader}<worksheet xmlns="${main}"><sheetData>${sheetRows}</sheetData></worksheet>`,
    ],
  ]);
}

/**
 * Returns `length` pseudo-random bytes from a fixed-seed xorshift32 generator, so "random" input
 * is identical on every run and every machine.
 */
export function makeNoise(length: number, seed = 0x2f6b1a3d): Buffer {
  const bytes = Buffer.alloc(length);
  let state = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    bytes[i] = state & 0xff;
  }
  return bytes;
}
