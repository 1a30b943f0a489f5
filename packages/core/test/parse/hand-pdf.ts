/** Small PDFs written by hand for layout tests: exact positions, no producer in between. */

/**
 * A one-page PDF from a content stream, Helvetica as its font, with a correct xref table;
 * `rotate` turns the page clockwise when shown (its /Rotate); `toUnicode` maps character codes
 * to the text they stand for (the font's /ToUnicode).
 */
export function pdfOf(
  content: string,
  { rotate = 0, toUnicode }: { rotate?: number; toUnicode?: Record<number, string> } = {},
): Uint8Array {
  // A ToUnicode map overrides what some codes mean, as fonts with symbol bullets declare them.
  const cmap = toUnicode
    ? [
        '/CIDInit /ProcSet findresource begin 12 dict begin begincmap',
        '1 begincodespacerange <00> <FF> endcodespacerange',
        `${Object.keys(toUnicode).length} beginbfchar`,
        ...Object.entries(toUnicode).map(
          ([code, text]) =>
            `<${Number(code).toString(16).padStart(2, '0')}> <${[...text].map((c) => c.codePointAt(0)!.toString(16).padStart(4, '0')).join('')}>`,
        ),
        'endbfchar endcmap CMapName currentdict /CMap defineresource pop end end',
      ].join('\n')
    : undefined;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Rotate ${rotate} /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>`,
    `<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding${cmap ? ' /ToUnicode 6 0 R' : ''} >>`,
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    ...(cmap ? [`<< /Length ${cmap.length} >>\nstream\n${cmap}\nendstream`] : []),
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  out += offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}
