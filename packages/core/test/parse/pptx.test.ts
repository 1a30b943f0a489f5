/**
 * parse() on PowerPoint files: the corpus deck LibreOffice made from a hand-written source
 * (test/parse-corpus/sources/deck.fodp), and variants of it edited with jszip to reach what
 * LibreOffice does not write (a slide list out of file-name order, numbered bullets, slide
 * furniture, pictures, links) — plus packages that must be refused.
 */
import { readFileSync } from 'node:fs';
import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { parse, TrawlError } from '@trawl/core';
import { surveySlideMarkdown } from './deck-expectations.ts';

const deckPath = new URL('../../../../test/parse-corpus/out/deck.pptx', import.meta.url);
const deck = readFileSync(deckPath);

/** The deck with some parts rewritten. */
async function editedDeck(edits: Record<string, (xml: string) => string>): Promise<Uint8Array> {
  const zip = await JSZip.loadAsync(deck);
  for (const [path, edit] of Object.entries(edits)) {
    const file = zip.file(path);
    if (!file) throw new Error(`No ${path} in the deck`);
    zip.file(path, edit(await file.async('string')));
  }
  return zip.generateAsync({ type: 'uint8array', compression: 'DEFLATE' });
}

const headings = (markdown: string | undefined) =>
  (markdown ?? '').split('\n').filter((line) => line.startsWith('## '));

describe('parse() of PPTX', () => {
  it('reads slides in order: titles as headings, bullets as nested lists, tables, and notes', async () => {
    const doc = await parse(deck, { filename: 'deck.pptx' });
    expect(headings(doc.markdown)).toEqual([
      '## Harbour Trust Annual Meeting',
      '## Survey highlights',
      '## Landings by quarter',
      '## Next steps',
      '## Questions and discussion',
    ]);
    expect(doc.markdown).toContain(surveySlideMarkdown);
    expect(doc.markdown).toContain(
      [
        '| Species | Q1 | Q2 | Q3 | Q4 |',
        '| --- | --- | --- | --- | --- |',
        '| Cod | 12 | 15 | | 9 |',
        '| Mackerel | | 22 | 31 | 4 |',
      ].join('\n'),
    );
    // A subtitle and a plain text box are paragraphs, not bullets; a slide without notes has no
    // Notes heading.
    expect(doc.markdown).toContain(
      '## Harbour Trust Annual Meeting\n\nNorthwind, 14 November 2024\n\n### Notes',
    );
    expect(doc.markdown?.endsWith('## Questions and discussion\n\nThank you for listening.')).toBe(
      true,
    );
    expect(doc.metadata).toMatchObject({
      contentType: 'pptx',
      title: 'Harbour Trust Annual Meeting',
    });
  });

  it('follows the presentation slide list, not the slide file names', async () => {
    // Move the last slide to the front of the list; slide5.xml keeps its name.
    const reordered = await editedDeck({
      'ppt/presentation.xml': (xml) =>
        xml.replace(
          /(<p:sldIdLst>)(.*)(<p:sldId id="260" r:id="rId8"\/>)(<\/p:sldIdLst>)/,
          '$1$3$2$4',
        ),
    });
    const doc = await parse(reordered, { filename: 'deck.pptx' });
    expect(headings(doc.markdown)).toEqual([
      '## Questions and discussion',
      '## Harbour Trust Annual Meeting',
      '## Survey highlights',
      '## Landings by quarter',
      '## Next steps',
    ]);
  });

  it('makes numbered bullets an ordered list and keeps bold text and links', async () => {
    const edited = await editedDeck({
      'ppt/slides/slide4.xml': (xml) =>
        xml
          .replace(/<a:buChar char="[^"]*"\/>/g, '<a:buAutoNum type="arabicPeriod"/>')
          .replace(
            '<a:t>Install a sensor at the storm overflow</a:t>',
            '<a:t>Install a </a:t></a:r><a:r><a:rPr b="1" lang="en-GB"><a:hlinkClick r:id="rIdLink"/></a:rPr><a:t>sensor</a:t></a:r><a:r><a:rPr lang="en-GB"/><a:t> at the storm overflow</a:t>',
          ),
      'ppt/slides/_rels/slide4.xml.rels': (xml) =>
        xml.replace(
          '</Relationships>',
          '<Relationship Id="rIdLink" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="https://example.org/sensor" TargetMode="External"/></Relationships>',
        ),
    });
    const doc = await parse(edited, { filename: 'deck.pptx' });
    expect(doc.markdown).toContain(
      [
        '1. Install a [**sensor**](https://example.org/sensor) at the storm overflow',
        '2. Repeat the seagrass transects twice a year',
        '   1. Once in spring and once in autumn',
        '3. Publish the next report in January 2026',
      ].join('\n'),
    );
  });

  it('leaves out slide numbers, dates and footers, and reads pictures with their descriptions', async () => {
    const footer = (type: string, id: number, text: string) =>
      `<p:sp><p:nvSpPr><p:cNvPr id="${id}" name="${type}"/><p:cNvSpPr/><p:nvPr><p:ph type="${type}"/></p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:p><a:r><a:t>${text}</a:t></a:r></a:p></p:txBody></p:sp>`;
    const picture =
      '<p:pic><p:nvPicPr><p:cNvPr id="90" name="Picture" descr="Map of the harbour"/><p:cNvPicPr/><p:nvPr/></p:nvPicPr><p:blipFill><a:blip r:embed="rIdPicture"/></p:blipFill><p:spPr><a:xfrm><a:off x="720000" y="4000000"/><a:ext cx="100" cy="100"/></a:xfrm></p:spPr></p:pic>';
    const zip = await JSZip.loadAsync(
      await editedDeck({
        'ppt/slides/slide5.xml': (xml) =>
          xml.replace(
            '</p:spTree>',
            `${footer('sldNum', 80, '5')}${footer('ftr', 81, 'Harbour Trust confidential')}${footer('dt', 82, '14/11/2024')}${picture}</p:spTree>`,
          ),
        'ppt/slides/_rels/slide5.xml.rels': (xml) =>
          xml.replace(
            '</Relationships>',
            '<Relationship Id="rIdPicture" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="../media/map.png"/></Relationships>',
          ),
      }),
    );
    zip.file('ppt/media/map.png', Buffer.from('89504e470d0a1a0a', 'hex'));
    const doc = await parse(await zip.generateAsync({ type: 'uint8array' }), {
      filename: 'deck.pptx',
      formats: ['markdown', 'images'],
      removeBase64Images: false,
    });
    expect(doc.markdown).not.toMatch(/confidential|14\/11\/2024/);
    expect(doc.markdown).toContain(
      'Thank you for listening.\n\n![Map of the harbour](data:image/png;base64,iVBORw0KGgo=)',
    );
    expect(doc.images).toEqual(['data:image/png;base64,iVBORw0KGgo=']);
    // The spec's default drops inline image data.
    const withoutImages = await parse(await zip.generateAsync({ type: 'uint8array' }), {
      filename: 'deck.pptx',
    });
    expect(withoutImages.markdown).toContain('![Map of the harbour](<Base64-Image-Removed>)');
  });

  it('refuses a truncated deck, a package without a presentation, and a zip bomb', async () => {
    await expect(
      parse(deck.subarray(0, deck.length >> 1), { filename: 'deck.pptx' }),
    ).rejects.toBeInstanceOf(TrawlError);
    const hollow = new JSZip();
    hollow.file('ppt/presentation.xml', '<p:notAPresentation/>');
    await expect(
      parse(await hollow.generateAsync({ type: 'uint8array' }), { filename: 'x.pptx' }),
    ).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringContaining('presentation'),
    });
    const bomb = new JSZip();
    bomb.file('ppt/presentation.xml', '<p:presentation/>');
    bomb.file('ppt/slides/slide1.xml', ' '.repeat(24 * 1024 * 1024));
    await expect(
      parse(await bomb.generateAsync({ type: 'uint8array', compression: 'DEFLATE' }), {
        filename: 'bomb.pptx',
      }),
    ).rejects.toMatchObject({ code: 'CONTENT_TOO_LARGE' });
  });
});
