/** Word documents built from WordprocessingML in a zip, the way Word packages one, for tests. */
import { makeZip } from './assets.ts';

const xml = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';

/** A Word document whose body is `body` (WordprocessingML), built the way Word packages one. */
export function docxOf(body: string): Buffer {
  const namespaces = [
    'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"',
    'xmlns:w14="http://schemas.microsoft.com/office/word/2010/wordml"',
    'xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math"',
  ].join(' ');
  return makeZip([
    [
      '[Content_Types].xml',
      `${xml}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
    ],
    [
      '_rels/.rels',
      `${xml}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
    ],
    [
      'word/document.xml',
      `${xml}<w:document ${namespaces}><w:body>${body}<w:sectPr/></w:body></w:document>`,
    ],
  ]);
}

export const paragraph = (value: string) =>
  `<w:p><w:r><w:t xml:space="preserve">${value}</w:t></w:r></w:p>`;
export const cell = (...content: string[]) => `<w:tc>${content.join('')}</w:tc>`;
export const row = (...cells: string[]) => `<w:tr>${cells.join('')}</w:tr>`;
export const checkbox = (checked: boolean, label: string) =>
  `<w:p><w:sdt><w:sdtPr><w14:checkbox><w14:checked w14:val="${checked ? 1 : 0}"/></w14:checkbox></w:sdtPr><w:sdtContent><w:r><w:t>${checked ? '☒' : '☐'}</w:t></w:r></w:sdtContent></w:sdt><w:r><w:t xml:space="preserve"> ${label}</w:t></w:r></w:p>`;
export const equation =
  '<w:p><m:oMath><m:r><m:t>E=m</m:t></m:r><m:sSup><m:e><m:r><m:t>c</m:t></m:r></m:e><m:sup><m:r><m:t>2</m:t></m:r></m:sup></m:sSup></m:oMath></w:p>';
