/**
 * parse() on OpenDocument files: the corpus's ODT, ODS and ODP, which LibreOffice made from
 * hand-written sources (test/parse-corpus/sources), variants of them edited with jszip, and
 * packages that must be refused.
 */
import { readFileSync } from 'node:fs';
import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { parse, TrawlError } from '@trawl/core';
import { surveySlideMarkdown } from './deck-expectations.ts';

const corpusFile = (name: string) =>
  readFileSync(new URL(`../../../../test/parse-corpus/out/${name}`, import.meta.url));

/** A corpus package with content.xml rewritten; the mimetype entry stays first and stored. */
async function editedContent(name: string, edit: (xml: string) => string): Promise<Uint8Array> {
  const zip = await JSZip.loadAsync(corpusFile(name));
  zip.file('content.xml', edit(await zip.file('content.xml')!.async('string')));
  return zip.generateAsync({ type: 'uint8array' });
}

describe('parse() of OpenDocument', () => {
  it('reads a text document: headings, nested and numbered lists, footnotes last, no running header or footer', async () => {
    const doc = await parse(corpusFile('report.odt'), { filename: 'report.odt' });
    expect(doc.metadata).toMatchObject({
      contentType: 'odt',
      title: 'Northwind Harbour Survey: Annual Report',
    });
    const markdown = doc.markdown ?? '';
    expect(markdown.startsWith('# Northwind Harbour Survey: Annual Report\n\nThis report')).toBe(
      true,
    );
    expect(markdown).toContain('\n## Background\n');
    expect(markdown).toContain('\n### Survey Area\n');
    expect(markdown).toContain(
      [
        '- The inner basin, enclosed by the lock gates and used mainly by leisure craft.',
        '- The fishing quay, where the fleet lands its catch and refuels.',
        '  - The fuel berth at its southern end is sampled separately.',
        '- The outer harbour, open to the tides and sheltered only by the breakwater.',
      ].join('\n'),
    );
    expect(markdown).toContain(
      '1. Record the time, the tide height and the weather at the station.\n2. Take a one-litre',
    );
    // Soft hyphens are gone, so the words read whole.
    expect(markdown).toContain('the Northwind Harbour monitoring programme');
    expect(markdown).not.toContain('\u00AD');
    expect(markdown).toContain('steering group in November.\\[1]');
    expect(
      markdown.endsWith(
        [
          '1. The steering group met on 14 November 2024 at the Harbour Trust offices.',
          '2. The laboratory holds accreditation for all three tests under the national scheme.',
          '3. A continuous sensor would record every discharge; see recommendation 2.',
        ].join('\n'),
      ),
    ).toBe(true);
    expect(markdown).not.toMatch(/Annual Report 2024|Harbour Trust internal|Page \d/);
  });

  it('keeps merged table cells in their top-left place with the covered cells empty', async () => {
    const doc = await parse(corpusFile('tables.odt'), { filename: 'tables.odt' });
    expect(doc.markdown).toContain(
      [
        '| Section | Species | Landings in tonnes | | | |',
        '| --- | --- | --- | --- | --- | --- |',
        '| | | Q1 | Q2 | Q3 | Q4 |',
        '| Fishing quay | Cod | 12 | 15 | | 9 |',
        '| | Mackerel | | 22 | 31 | 4 |',
        '| Inner basin | Crab | 3 | | 5 | 2 |',
        '| Total | | 15 | 37 | 36 | 15 |',
      ].join('\n'),
    );
  });

  it('reads each sheet of a spreadsheet as a table of values, formulas as results and dates in ISO form', async () => {
    const doc = await parse(corpusFile('workbook.ods'), { filename: 'workbook.ods' });
    expect(doc.metadata.contentType).toBe('ods');
    expect(doc.markdown).toBe(
      [
        '## Fleet',
        '',
        '| Vessel | Type | Length (m) | Registered on | Crew |',
        '| --- | --- | --- | --- | --- |',
        '| Morwenna | Trawler | 18.5 | 2019-04-02 | 5 |',
        '| Kittiwake | Crabber | 10.2 | 2021-07-19 | 2 |',
        '| Tamar Belle | Ferry | 42 | 2015-05-01 | |',
        '| Sea Pilot | Pilot boat | 12.8 | 2022-11-30 | 3 |',
        '',
        '## Landings',
        '',
        '| Month | Cod (t) | Mackerel (t) | Total (t) |',
        '| --- | --- | --- | --- |',
        '| January | 4 | 0 | 4 |',
        '| February | 5 | 7 | 12 |',
        '| March | 3 | 15 | 18 |',
        '| Total | 12 | 22 | 34 |',
        '',
        '## Summary',
        '',
        '| Measure | Value |',
        '| --- | --- |',
        '| Vessels | 4 |',
        '| Total landings (t) | 34 |',
        '| Average length (m) | 20.875 |',
        '| Report date | 2024-12-31 |',
      ].join('\n'),
    );
  });

  it('counts a million repeated empty rows and cells without expanding them, as a gap between tables, and repeats rows with values', async () => {
    const edited = await editedContent('workbook.ods', (xml) =>
      xml.replace(
        /(<table:table table:name="Summary"[\s\S]*?)(<\/table:table>)/,
        '$1<table:table-row table:number-rows-repeated="1048000"><table:table-cell table:number-columns-repeated="16384"/></table:table-row>' +
          '<table:table-row table:number-rows-repeated="2"><table:table-cell office:value-type="string"><text:p>Checked</text:p></table:table-cell><table:table-cell office:value-type="boolean" office:boolean-value="true"><text:p>TRUE</text:p></table:table-cell></table:table-row>$2',
      ),
    );
    const doc = await parse(edited, { filename: 'workbook.ods' });
    // The empty rows between are a gap, as in XLSX: the rows after it are a table of their own.
    expect(
      doc.markdown?.endsWith(
        '| Report date | 2024-12-31 |\n\n| Checked | TRUE |\n| --- | --- |\n| Checked | TRUE |',
      ),
    ).toBe(true);
  });

  it('reads a presentation like a PPTX deck: titles, nested bullets, tables and notes', async () => {
    const doc = await parse(corpusFile('deck.odp'), { filename: 'deck.odp' });
    expect(doc.metadata).toMatchObject({
      contentType: 'odp',
      title: 'Harbour Trust Annual Meeting',
    });
    expect(doc.markdown).toContain(surveySlideMarkdown);
    expect(doc.markdown).toContain('| Mackerel | | 22 | 31 | 4 |');
    expect(doc.markdown?.endsWith('## Questions and discussion\n\nThank you for listening.')).toBe(
      true,
    );
  });

  it('tells the kinds apart by the mimetype entry, whatever the file name says', async () => {
    const doc = await parse(corpusFile('workbook.ods'), {
      filename: 'misnamed.odt',
      contentType: 'application/vnd.oasis.opendocument.text',
    });
    expect(doc.metadata.contentType).toBe('ods');
    expect(doc.markdown).toContain('## Landings');
  });

  it('refuses a drawing, a package without content, a truncated file and a zip bomb', async () => {
    const drawing = await editedContent('report.odt', (xml) =>
      xml.replace(/<office:text\b[\s\S]*<\/office:text>/, '<office:drawing/>'),
    );
    await expect(parse(drawing, { filename: 'x.odt' })).rejects.toMatchObject({
      code: 'UNSUPPORTED_FILE_TYPE',
    });
    const hollow = new JSZip();
    hollow.file('mimetype', 'application/vnd.oasis.opendocument.text');
    hollow.file('content.xml', '<office:document-content/>');
    await expect(
      parse(await hollow.generateAsync({ type: 'uint8array' }), { filename: 'x.odt' }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    const report = corpusFile('report.odt');
    await expect(
      parse(report.subarray(0, report.length >> 1), { filename: 'x.odt' }),
    ).rejects.toBeInstanceOf(TrawlError);
    const bomb = new JSZip();
    bomb.file('mimetype', 'application/vnd.oasis.opendocument.spreadsheet');
    bomb.file('content.xml', ' '.repeat(24 * 1024 * 1024), { compression: 'DEFLATE' });
    await expect(
      parse(await bomb.generateAsync({ type: 'uint8array' }), { filename: 'bomb.ods' }),
    ).rejects.toMatchObject({ code: 'CONTENT_TOO_LARGE' });
  });
});
