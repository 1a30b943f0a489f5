/**
 * Text PDFs of a chosen length for the parse benchmark: a flat ODT document (headings, prose, a
 * table every few pages, a running header and a page-number footer) written here and turned into
 * a PDF by LibreOffice. Made once per size and kept under bench/results/.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const words =
  'harbour survey tide channel quay vessel cargo sample station basin lock breakwater ferry pilot crane berth dredging licence audit season report figure analysis transect volunteer council trust mooring buoy outflow'.split(
    ' ',
  );

/** A deterministic stream of pseudo-random numbers (so every run parses the same document). */
function numbers(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

const escapeXml = (text: string) =>
  text.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]!);

function sentence(next: () => number): string {
  const length = 8 + Math.floor(next() * 14);
  const chosen = Array.from({ length }, () => words[Math.floor(next() * words.length)]!);
  const text = chosen.join(' ');
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
}

/** The flat ODT source of a document of about `pages` A4 pages. */
export function benchDocument(pages: number): string {
  const next = numbers(pages);
  const body: string[] = [];
  // A section (heading and four paragraphs of about 90 words) fills 0.55 of an A4 page at 11 pt.
  const sections = Math.max(1, Math.floor(pages * 1.84));
  for (let section = 1; section <= sections; section++) {
    const title = sentence(next).split(' ').slice(0, 4).join(' ');
    body.push(`<text:h text:outline-level="2">Section ${section}: ${escapeXml(title)}</text:h>`);
    for (let paragraph = 0; paragraph < 4; paragraph++) {
      const text = Array.from({ length: 6 }, () => sentence(next)).join(' ');
      body.push(`<text:p text:style-name="Text_20_body">${escapeXml(text)}</text:p>`);
    }
    if (section % 9 === 0) {
      const rows = Array.from(
        { length: 5 },
        (_, row) =>
          `<table:table-row>${Array.from(
            { length: 4 },
            (_, column) =>
              `<table:table-cell office:value-type="string"><text:p>${row === 0 ? `Column ${column + 1}` : (next() * 1000).toFixed(1)}</text:p></table:table-cell>`,
          ).join('')}</table:table-row>`,
      ).join('');
      body.push(
        `<table:table table:name="T${section}" table:style-name="Ruled"><table:table-column table:number-columns-repeated="4"/>${rows}</table:table>`,
      );
    }
  }
  return `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text">
<office:styles>
<style:style style:name="Standard" style:family="paragraph"><style:text-properties fo:font-size="11pt"/></style:style>
<style:style style:name="Text_20_body" style:display-name="Text body" style:family="paragraph" style:parent-style-name="Standard"><style:paragraph-properties fo:margin-bottom="0.2cm" fo:text-align="justify"/></style:style>
</office:styles>
<office:automatic-styles>
<style:style style:name="Ruled" style:family="table"><style:table-properties style:width="16cm"/></style:style>
<style:page-layout style:name="Page"><style:page-layout-properties fo:page-width="21cm" fo:page-height="29.7cm" fo:margin-top="1.5cm" fo:margin-bottom="1.5cm" fo:margin-left="2cm" fo:margin-right="2cm"/><style:header-style><style:header-footer-properties fo:min-height="0.8cm"/></style:header-style><style:footer-style><style:header-footer-properties fo:min-height="0.8cm"/></style:footer-style></style:page-layout>
</office:automatic-styles>
<office:master-styles><style:master-page style:name="Standard" style:page-layout-name="Page"><style:header><text:p>Northwind Harbour Trust — benchmark document</text:p></style:header><style:footer><text:p>Page <text:page-number text:select-page="current"/></text:p></style:footer></style:master-page></office:master-styles>
<office:body><office:text>
${body.join('\n')}
</office:text></office:body></office:document>
`;
}

/** The path of a PDF of about `pages` pages, made with LibreOffice on first use. */
export function benchPdf(pages: number, directory: string): string {
  mkdirSync(directory, { recursive: true });
  const pdf = join(directory, `bench-${pages}.pdf`);
  if (existsSync(pdf)) return pdf;
  const source = join(directory, `bench-${pages}.fodt`);
  writeFileSync(source, benchDocument(pages));
  execFileSync(
    'soffice',
    [
      `-env:UserInstallation=file://${join(directory, 'lo-profile')}`,
      '--headless',
      '--convert-to',
      'pdf',
      '--outdir',
      directory,
      source,
    ],
    { stdio: 'ignore', timeout: 600_000 },
  );
  if (!existsSync(pdf)) throw new Error(`LibreOffice did not make ${pdf}`);
  return pdf;
}
