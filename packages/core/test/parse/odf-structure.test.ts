/**
 * Structure OpenDocument files keep outside plain paragraphs and tables: spreadsheets laid out
 * with title rows, merged header cells, comments and hidden parts (sheets.ods, and the XLSX
 * LibreOffice makes of the same source, which must read alike), charts in slides with their data
 * (charts.odp), and a text frame holding a table anchored in a paragraph (boxes.odt). All are corpus
 * outputs LibreOffice made from hand-written sources (test/parse-corpus/sources).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from '@trawl/core';

const corpusFile = (name: string) =>
  readFileSync(new URL(`../../../../test/parse-corpus/out/${name}`, import.meta.url));

const landings = [
  '## Landings',
  '',
  '### Northwind landings 2024',
  '',
  '| Section | Species | Landings in tonnes | | | |',
  '| --- | --- | --- | --- | --- | --- |',
  '| | | Q1 | Q2 | Q3 | Q4 |',
  '| Fishing quay | Cod | 12 | 15 ¹ | | 9 |',
  '| Fishing quay | Mackerel | | 22 | 31 | 4 |',
  '| Inner basin | Crab | 3 | | 5 | 2 |',
  '',
  '1. Provisional until the audit in March.',
].join('\n');

const crews = [
  '## Crews',
  '',
  '| Vessel | Crew |',
  '| --- | --- |',
  '| Morwenna | 5 |',
  '| Kittiwake | 2 |',
  '',
  '| Port | Berths |',
  '| --- | --- |',
  '| Northwind | 40 |',
  '| Eastholm | 12 |',
].join('\n');

const catchChart = [
  '## Catch',
  '',
  '| Species | Tonnes |',
  '| --- | --- |',
  '| Cod | 44 |',
  '| Mackerel | 63 |',
  '| Crab | 10 |',
  '',
  '**Catch by species**',
  '',
  '| | Tonnes |',
  '| --- | --- |',
  '| Cod | 44 |',
  '| Mackerel | 63 |',
  '| Crab | 10 |',
].join('\n');

const quarterChart = [
  '**Landings in tonnes**',
  '',
  '| | Cod | Mackerel |',
  '| --- | --- | --- |',
  '| Q1 | 12 | 6 |',
  '| Q2 | 15 | 22 |',
  '| Q3 | 8 | 31 |',
  '| Q4 | 9 | 4 |',
].join('\n');

describe('parse() of OpenDocument structure', () => {
  for (const file of ['sheets.ods', 'sheets.xlsx']) {
    it(`lays out ${file}: a title row as heading, merged header cells, a comment as a note, hidden parts left out, a chart as its data`, async () => {
      const doc = await parse(corpusFile(file), { filename: file });
      expect(doc.markdown).toBe(`${landings}\n\n${crews}\n\n${catchChart}`);
      expect(doc.markdown).not.toMatch(/Trial haul|Checked by|JT|Gadus/);
      expect(doc.warning).toContain('Hidden sheets were skipped: Codes.');
      expect(doc.warning).toMatch(/2 hidden rows or columns were skipped/);
    });
  }

  it("reads a slide's chart as its title and a table of its data, in reading order", async () => {
    const doc = await parse(corpusFile('charts.odp'), { filename: 'charts.odp' });
    expect(doc.markdown).toContain(
      `## Landings by quarter\n\nCod and mackerel landed at the fishing quay, in tonnes.\n\n${quarterChart}\n\n### Notes\n\nMackerel peaks in the third quarter every year.`,
    );
    expect(doc.markdown).toContain(
      '## Share of the catch\n\n**Catch by species**\n\n| | Tonnes |\n| --- | --- |\n| Cod | 44 |\n| Mackerel | 63 |\n| Crab | 10 |',
    );
  });

  it('reads the same charts from the PPTX LibreOffice makes of the deck', async () => {
    const doc = await parse(corpusFile('charts.pptx'), { filename: 'charts.pptx' });
    expect(doc.markdown).toContain(quarterChart);
    expect(doc.markdown).toContain('| Mackerel | 63 |');
  });

  it('puts a text frame holding a table, anchored in a paragraph, after that paragraph', async () => {
    const doc = await parse(corpusFile('boxes.odt'), { filename: 'boxes.odt' });
    expect(doc.markdown).toBe(
      [
        '# Harbour Notices',
        'The berthing charges in the box apply from the first of April.',
        'Berthing charges',
        '| Vessel length | Per night |\n| --- | --- |\n| Under 10 m | £18 |\n| 10 m to 20 m | £32 |\n| Over 20 m | £55 |',
        'Charges are reviewed every year in March.',
        'Questions about charges go to the harbour master.',
      ].join('\n\n'),
    );
  });
});
