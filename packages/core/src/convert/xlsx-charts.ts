/**
 * The charts of an XLSX workbook as their title and a table of their cached data
 * (chart-data.ts), by sheet: the charts drawn on a worksheet, and chart sheets, which hold a
 * chart and no cells. exceljs reads neither, and a chart's numbers are in the file.
 */
import { chartHtml } from './chart-data.ts';
import { readRelationships, readXmlPart } from './ooxml.ts';
import { openWorkbook } from './xlsx-cells.ts';
import { attribute, childElements, descendants } from './xml-walk.ts';

/** Most charts read from one workbook: each is a part to inflate and parse. */
const maxCharts = 200;

/** A sheet of the workbook, in workbook order, with its charts as HTML. */
export interface SheetCharts {
  name: string;
  /** A chart sheet: it has no cells, only its chart. */
  isChartSheet: boolean;
  visible: boolean;
  html: string;
}

/** Every sheet's charts, in workbook order; sheets without charts give an empty `html`. */
export async function readSheetCharts(bytes: Uint8Array): Promise<SheetCharts[]> {
  const { zip, workbook, rels } = await openWorkbook(bytes);
  const sheets: SheetCharts[] = [];
  let read = 0;
  for (const sheet of childElements(childElements(workbook, 'sheets')[0], 'sheet')) {
    const rel = rels.get(attribute(sheet, 'id', { prefixed: true }) ?? '');
    if (!rel) continue;
    const state = attribute(sheet, 'state');
    const charts: string[] = [];
    // Sheet → its drawing → the drawing's charts.
    for (const drawing of (await readRelationships(zip, rel.target)).values()) {
      if (drawing.type !== 'drawing' || drawing.external) continue;
      const drawingRels = await readRelationships(zip, drawing.target);
      const drawingRoot = await readXmlPart(zip, drawing.target);
      // In the drawing's order, which is the order the author placed them in.
      for (const reference of descendants(drawingRoot, 'chart')) {
        const chart = drawingRels.get(attribute(reference, 'id', { prefixed: true }) ?? '');
        if (!chart || chart.external || read >= maxCharts) continue;
        read++;
        charts.push(chartHtml(await readXmlPart(zip, chart.target)));
      }
    }
    sheets.push({
      name: attribute(sheet, 'name') ?? `Sheet ${sheets.length + 1}`,
      isChartSheet: rel.type === 'chartsheet',
      visible: state !== 'hidden' && state !== 'veryHidden',
      html: charts.join(''),
    });
  }
  return sheets;
}
