/**
 * parse() on documents whose content is known: DOCX and XLSX built by the fixture site's
 * writers, CSV/TSV, HTML, Markdown, JSON and text — plus the inputs it must refuse clearly.
 */
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parse, TrawlError } from '@trawl/core';
import { documentSamples, makeDocx, makeXlsx } from '../../../../test/fixture-site/assets.ts';

const text = (value: string) => new TextEncoder().encode(value);

describe('parse()', () => {
  it('turns a Word document into markdown with its heading and paragraphs in order', async () => {
    const doc = await parse(makeDocx(), { filename: 'handbook.docx' });
    const { heading, paragraphs } = documentSamples.docx;
    expect(doc.markdown).toBe([`# ${heading}`, ...paragraphs].join('\n\n'));
    expect(doc.metadata).toMatchObject({
      contentType: 'docx',
      title: 'handbook.docx',
      statusCode: 200,
    });
  });

  it('turns each sheet of a workbook into a section with a GFM table, numbers as values', async () => {
    const doc = await parse(makeXlsx(), { filename: 'inventory.xlsx' });
    const { sheetName, rows } = documentSamples.xlsx;
    const [head, ...body] = rows;
    expect(doc.markdown).toBe(
      [
        `## ${sheetName}`,
        '',
        `| ${head.join(' | ')} |`,
        `| ${head.map(() => '---').join(' | ')} |`,
        ...body.map((row) => `| ${row.join(' | ')} |`),
      ].join('\n'),
    );
  });

  it('reads CSV with quoted fields and TSV as tables', async () => {
    const csv = await parse(text('name,quote\n"Smith, Ann","said ""hi"""\nLee,\n'), {
      filename: 'people.csv',
    });
    expect(csv.markdown).toBe(
      '| name | quote |\n| --- | --- |\n| Smith, Ann | said "hi" |\n| Lee | |',
    );
    const tsv = await parse(text('a\tb\n1\t2\n'), { contentType: 'text/tab-separated-values' });
    expect(tsv.markdown).toBe('| a | b |\n| --- | --- |\n| 1 | 2 |');
  });

  it('runs HTML through the page pipeline, with main content and tag options', async () => {
    const html = text(
      '<html><head><title>Notes</title></head><body><nav><a href="/">Home</a> <a href="/b">Blog</a></nav><main><h1>Release</h1><p>Faster crawls.</p><p class="drop">Ad</p></main></body></html>',
    );
    const doc = await parse(html, {
      filename: 'notes.html',
      excludeTags: ['.drop'],
      formats: ['markdown', 'html'],
    });
    expect(doc.markdown).toBe('# Release\n\nFaster crawls.');
    expect(doc.metadata.title).toBe('Notes');
    expect(doc.html).toContain('<h1>Release</h1>');
  });

  it('returns the whole body of an HTML file whose only text main-content removal would take', async () => {
    const html = text(
      '<html><body><nav><p>Opening hours are nine to five on weekdays, and ten to two on Saturdays.</p></nav></body></html>',
    );
    const doc = await parse(html, { filename: 'hours.html' });
    // Main-content extraction itself never answers nothing for a page with text.
    expect(doc.markdown).toBe(
      'Opening hours are nine to five on weekdays, and ten to two on Saturdays.',
    );
    // An explicit choice is kept, and a page with real main content is not second-guessed.
    const article = text(
      '<html><body><nav><a href="/">Home</a> <a href="/a">About</a></nav><main><h1>Hours</h1><p>We open at nine every weekday and close at five, and on Saturdays from ten to two.</p></main></body></html>',
    );
    const main = await parse(article, { filename: 'page.html' });
    expect(main.markdown).not.toContain('About');
    expect(main.warning).toBeUndefined();
  });

  it('keeps Markdown, fences JSON, and splits text into paragraphs', async () => {
    expect((await parse(text('# Title\n\nBody *here*.\n'), { filename: 'a.md' })).markdown).toBe(
      '# Title\n\nBody *here*.',
    );
    expect((await parse(text('{"a": 1}'), { filename: 'data.json' })).markdown).toBe(
      '```json\n{"a": 1}\n```',
    );
    expect((await parse(text('First line.\n\nSecond para.'), {})).markdown).toBe(
      'First line.\n\nSecond para.',
    );
  });

  it('detects the kind from the bytes before a wrong extension', async () => {
    const doc = await parse(makeDocx(), {
      filename: 'actually-a-word-file.pdf',
      contentType: 'application/pdf',
    });
    expect(doc.metadata.contentType).toBe('docx');
    expect(doc.markdown).toContain(documentSamples.docx.heading);
  });

  it('redacts PII in documents too', async () => {
    const doc = await parse(text('Write to ann.smith@example.com today.'), { redactPII: true });
    expect(doc.markdown).not.toContain('ann.smith@example.com');
  });

  it('refuses empty, unknown, header-only, corrupted and zip-bomb inputs with clear codes', async () => {
    await expect(parse(new Uint8Array(0))).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: 'The file is empty',
    });
    await expect(parse(new Uint8Array([0, 1, 2, 3, 255, 254, 0, 7]))).rejects.toMatchObject({
      code: 'UNSUPPORTED_FILE_TYPE',
    });
    // A PDF header and nothing after it is not a PDF.
    await expect(parse(text('%PDF-1.7\n%…'), { filename: 'a.pdf' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/^The PDF is damaged or not a PDF/),
    });
    // A DOCX cut in half: its central directory is gone.
    const docx = makeDocx();
    await expect(
      parse(docx.subarray(0, docx.length >> 1), { filename: 'cut.docx' }),
    ).rejects.toBeInstanceOf(TrawlError);
    // A "workbook" whose one entry would inflate 100 MB of zeros.
    await expect(parse(zipBomb(), { filename: 'bomb.xlsx' })).rejects.toMatchObject({
      code: 'CONTENT_TOO_LARGE',
    });
    await expect(parse(text('x'), { formats: ['screenshot'] } as never)).rejects.toBeInstanceOf(
      TrawlError,
    );
  });
});

/** A ZIP with xl/workbook.xml and one entry of 100 MB of zeros, deflated to ~100 KB. */
function zipBomb(): Buffer {
  const zeros = Buffer.alloc(100 * 1024 * 1024);
  const entries: [string, Buffer, number][] = [
    ['xl/workbook.xml', deflateRawSync(Buffer.from('<workbook/>')), 11],
    ['xl/worksheets/sheet1.xml', deflateRawSync(zeros), zeros.length],
  ];
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [name, data, size] of entries) {
    const nameBytes = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    locals.push(local, nameBytes, data);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(8, 10);
    entry.writeUInt32LE(data.length, 20);
    entry.writeUInt32LE(size, 24);
    entry.writeUInt16LE(nameBytes.length, 28);
    entry.writeUInt32LE(offset, 42);
    central.push(entry, nameBytes);
    offset += 30 + nameBytes.length + data.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
