/**
 * DOCX to HTML: mammoth reads the document, around it what mammoth leaves out. Equations (OMML)
 * become linear text runs before mammoth reads the part, since it drops them whole; afterwards a
 * table whose header row Word did not mark (most tables: "repeat as header row" is rarely set)
 * gets its first row as the header, instead of an empty header above the real one, and checkbox
 * content controls become ☒ and ☐, which the cleaning would drop as form inputs. Text boxes and
 * charts in drawings are read by docx-drawings.ts.
 */
import render from 'dom-serializer';
import { Text } from 'domhandler';
import { ValidationError } from '../errors.ts';
import { isTag, parseHtml, type Element, type ParentNode } from './dom.ts';
import { withCharts, withDrawingContent } from './docx-drawings.ts';
import { openZip } from './zip.ts';

const documentPart = 'word/document.xml';

export async function docxHtml(bytes: Uint8Array): Promise<string> {
  // mammoth opens the ZIP itself: it gets one whose entries were inflated under the caps.
  const zip = openZip(bytes, 'Word');
  const part = zip.file(documentPart);
  let charts: string[] = [];
  if (part) {
    const read = await withDrawingContent(
      zip,
      documentPart,
      withLinearEquations(await part.async('string')),
    );
    charts = read.charts;
    zip.file(documentPart, read.xml);
  }
  const stored = await zip.generateAsync({ type: 'nodebuffer', compression: 'STORE' });
  let html: string;
  try {
    const { default: mammoth } = await import('mammoth');
    html = (await mammoth.convertToHtml({ buffer: stored })).value;
  } catch (error) {
    throw new ValidationError(`The Word document cannot be read: ${(error as Error).message}`);
  }
  return withHeadersAndCheckboxes(withCharts(html, charts));
}

const mathZone = /<m:oMath(?:Para)?\b[^>]*>[\s\S]*?<\/m:oMath(?:Para)?>/g;
const mathToken = /<(\/?)m:(sup|sub|num|den|t|rad|deg)\b[^>]*?(\/?)>|([^<]+)|<[^>]*>/g;
const opening: Readonly<Record<string, string>> = {
  sup: '^(',
  sub: '_(',
  num: '(',
  den: '(',
  rad: '√(',
};
const closing: Readonly<Record<string, string>> = {
  sup: ')',
  sub: ')',
  num: ')/',
  den: ')',
  rad: ')',
};

/** An OMML equation as the linear form Word itself types: `E=mc^2`, `(a+b)/(2)`. */
function linearOf(math: string): string {
  let out = '';
  let inText = false;
  for (const [, close, name, selfClosing, text] of math.matchAll(mathToken)) {
    if (text !== undefined) {
      if (inText) out += text;
    } else if (name === 't') inText = !close && !selfClosing;
    else if (name && !selfClosing) out += close ? (closing[name] ?? '') : (opening[name] ?? '');
  }
  // One character needs no brackets: x^(2) reads as x^2.
  return out.replace(/([\^_])\(([^()\s])\)/g, '$1$2').replace(/\(([^()\s/]+)\)\//g, '$1/');
}

function withLinearEquations(xml: string): string {
  if (!xml.includes('<m:oMath')) return xml;
  return xml.replace(
    mathZone,
    (math) => `<w:r><w:t xml:space="preserve">${linearOf(math)}</w:t></w:r>`,
  );
}

function withHeadersAndCheckboxes(html: string): string {
  if (!html.includes('<table') && !html.includes('checkbox')) return html;
  const document = parseHtml(html);
  visit(document);
  return render(document, { encodeEntities: 'utf8' });
}

function visit(parent: ParentNode): void {
  for (const child of parent.children) {
    if (!isTag(child)) continue;
    if (child.name === 'input' && child.attribs['type'] === 'checkbox') {
      const mark = new Text(child.attribs['checked'] === undefined ? '☐' : '☒');
      mark.parent = parent;
      parent.children[parent.children.indexOf(child)] = mark;
      continue;
    }
    if (child.name === 'table') headFirstRow(child);
    visit(child);
  }
}

/** A table of two rows or more without a marked header: its first row names the columns. */
function headFirstRow(table: Element): void {
  const rows = table.children.filter(
    (child): child is Element => isTag(child) && child.name === 'tr',
  );
  if (rows.length < 2 || table.children.some((child) => isTag(child) && child.name === 'thead'))
    return;
  for (const cell of rows[0]!.children) if (isTag(cell) && cell.name === 'td') cell.name = 'th';
}
