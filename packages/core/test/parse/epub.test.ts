/**
 * parse() on EPUB books: the corpus report LibreOffice exported (text and order only: its EPUB
 * export writes headings as styled paragraphs), and a small book written here with jszip to
 * reach the spine, navigation, pictures and links.
 */
import { readFileSync } from 'node:fs';
import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { parse } from '@trawl/core';

const chapter = (body: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><head><title>x</title></head><body>${body}</body></html>`;

/** A book whose manifest lists its chapters in another order than its spine reads them. */
async function book({ container = true } = {}): Promise<Uint8Array> {
  const zip = new JSZip();
  zip.file('mimetype', 'application/epub+zip');
  if (container)
    zip.file(
      'META-INF/container.xml',
      '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OPS/book.opf" media-type="application/oebps-package+xml"/></rootfiles></container>',
    );
  zip.file(
    'OPS/book.opf',
    `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Tide Tables &amp; Tales</dc:title></metadata>
    <manifest>
      <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
      <item id="two" href="text/chapter%202.xhtml" media-type="application/xhtml+xml"/>
      <item id="one" href="text/one.xhtml" media-type="application/xhtml+xml"/>
      <item id="notes" href="text/notes.xhtml" media-type="application/xhtml+xml"/>
      <item id="map" href="images/map.png" media-type="image/png"/>
    </manifest>
    <spine><itemref idref="nav"/><itemref idref="one"/><itemref idref="two"/><itemref idref="notes" linear="no"/></spine></package>`,
  );
  zip.file(
    'OPS/nav.xhtml',
    chapter(
      '<nav epub:type="toc"><ol><li><a href="text/one.xhtml">Contents entry one</a></li></ol></nav>',
    ),
  );
  zip.file(
    'OPS/text/one.xhtml',
    chapter(
      '<h1>Chapter One</h1><p>The tide turned at noon.<a id="anchor"/> See <a href="chapter%202.xhtml#storm">the storm</a> and <a href="https://example.org/tides">the tables</a>.</p><p><img src="../images/map.png" alt="Map of the bay"/></p>',
    ),
  );
  zip.file(
    'OPS/text/chapter 2.xhtml',
    chapter('<h1 id="storm">Chapter Two</h1><p>The storm came in the night.</p>'),
  );
  zip.file('OPS/text/notes.xhtml', chapter('<p>Notes kept out of the reading order.</p>'));
  zip.file('OPS/images/map.png', Buffer.from('89504e470d0a1a0a', 'hex'));
  return zip.generateAsync({ type: 'uint8array' });
}

describe('parse() of EPUB', () => {
  it('reads the chapters in spine order, without the navigation or non-linear documents', async () => {
    const doc = await parse(await book(), {
      filename: 'tides.zip',
      formats: ['markdown', 'links', 'images'],
      removeBase64Images: false,
    });
    expect(doc.metadata).toMatchObject({ contentType: 'epub', title: 'Tide Tables & Tales' });
    expect(doc.markdown).toBe(
      [
        '# Chapter One',
        '',
        // A link into the book keeps only its fragment, which markdown reads as plain text.
        'The tide turned at noon. See the storm and [the tables](https://example.org/tides).',
        '',
        '![Map of the bay](data:image/png;base64,iVBORw0KGgo=)',
        '',
        '# Chapter Two',
        '',
        'The storm came in the night.',
      ].join('\n'),
    );
    expect(doc.links).toEqual(['https://example.org/tides']);
    expect(doc.images).toEqual(['data:image/png;base64,iVBORw0KGgo=']);
  });

  it('reads the corpus report LibreOffice exported, text in order', async () => {
    const report = readFileSync(
      new URL('../../../../test/parse-corpus/out/report.epub', import.meta.url),
    );
    const doc = await parse(report, { filename: 'report.epub' });
    expect(doc.markdown).toMatch(
      /^Northwind Harbour Survey: Annual Report\n\nThis report summarises the third year/,
    );
    expect(doc.markdown).toContain('Repeat the seagrass transects twice a year instead of once.');
  });

  it('refuses a book without a package document', async () => {
    await expect(
      parse(await book({ container: false }), { filename: 'broken.epub' }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });
});
