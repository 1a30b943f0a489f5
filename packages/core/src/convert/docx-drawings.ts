/**
 * What a Word document keeps in drawings, which mammoth reads only as pictures:
 *
 * - text boxes (`wps:txbx`), whose paragraphs and tables are part of the text. mammoth reads a
 *   box from the VML fallback Word writes beside it (`mc:Fallback`, `v:textbox`), but a drawing
 *   with no fallback (as other producers write them) loses its text and its tables. Such a box's
 *   content is handed to mammoth as a `w:pict`, which it reads, like the fallback, after the
 *   paragraph it is anchored in;
 * - charts (`c:chart`), whose cached data becomes their title and a table (chart-data.ts) after
 *   the paragraph they are anchored in: a marker takes the drawing's place, and is replaced in
 *   mammoth's HTML.
 */
import type JSZip from 'jszip';
import { chartHtml } from './chart-data.ts';
import { readRelationships, readXmlPart } from './ooxml.ts';

const tagPattern = /<(\/?)(mc:AlternateContent|w:drawing)\b[^>]*?(\/?)>/g;
/** Around a chart's number in the text mammoth reads: private-use characters, never in a document. */
const markOpen = '\uE000';
const markClose = '\uE001';
const markPattern = /\uE000(\d+)\uE001/g;
/** Most charts read from one document: each is a part to inflate and parse. */
const maxCharts = 100;

/** The drawings outside `mc:AlternateContent` (whose fallback mammoth reads), as spans. */
function bareDrawings(xml: string): { start: number; end: number }[] {
  const spans: { start: number; end: number }[] = [];
  let alternate = 0;
  let depth = 0;
  let start = 0;
  for (const match of xml.matchAll(tagPattern)) {
    const [whole, close, name, selfClosing] = match;
    if (selfClosing) continue;
    if (name === 'mc:AlternateContent') alternate += close ? -1 : 1;
    else if (!close) {
      if (depth++ === 0) start = match.index;
    } else if (--depth === 0 && alternate === 0)
      spans.push({ start, end: match.index + whole.length });
    if (depth < 0) depth = 0;
  }
  return spans;
}

/**
 * The document part with its bare drawings rewritten for mammoth, and the charts' HTML by
 * marker number.
 */
export async function withDrawingContent(
  zip: JSZip,
  part: string,
  xml: string,
): Promise<{ xml: string; charts: string[] }> {
  if (!xml.includes('<w:drawing')) return { xml, charts: [] };
  const charts: string[] = [];
  const relationships = xml.includes(':chart ') ? await readRelationships(zip, part) : undefined;
  let out = '';
  let at = 0;
  for (const { start, end } of bareDrawings(xml)) {
    const drawing = xml.slice(start, end);
    let replacement = drawing;
    const chartId = /<c:chart\b[^>]*\br:id="([^"]+)"/.exec(drawing)?.[1];
    const boxStart = drawing.indexOf('<w:txbxContent');
    const boxEnd = drawing.lastIndexOf('</w:txbxContent>');
    if (chartId && relationships && charts.length < maxCharts) {
      const target = relationships.get(chartId);
      const html =
        target && !target.external ? chartHtml(await readXmlPart(zip, target.target)) : '';
      if (html) {
        charts.push(html);
        replacement = `<w:t>${markOpen}${charts.length - 1}${markClose}</w:t>`;
      }
    } else if (boxStart >= 0 && boxEnd > boxStart)
      replacement = `<w:pict>${drawing.slice(boxStart, boxEnd + '</w:txbxContent>'.length)}</w:pict>`;
    out += xml.slice(at, start) + replacement;
    at = end;
  }
  return { xml: out + xml.slice(at), charts };
}

/** Block tags a chart's marker may sit in: the chart follows the innermost one. */
const blockEnd = /<\/(p|h[1-6]|li)>/g;

/** mammoth's HTML with each chart marker replaced by the chart, after its paragraph. */
export function withCharts(html: string, charts: readonly string[]): string {
  if (charts.length === 0) return html;
  let out = html;
  for (const match of [...html.matchAll(markPattern)].reverse()) {
    const chart = charts[Number(match[1])] ?? '';
    const before = out.slice(0, match.index);
    const after = out.slice(match.index + match[0].length);
    blockEnd.lastIndex = 0;
    const close = blockEnd.exec(after);
    if (!close) out = before + after + chart;
    else {
      const cut = close.index + close[0].length;
      out = before + after.slice(0, cut) + chart + after.slice(cut);
    }
  }
  // A paragraph that held only the chart is empty now.
  return out.replace(/<p><\/p>/g, '');
}
