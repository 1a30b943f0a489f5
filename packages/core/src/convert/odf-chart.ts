/**
 * An embedded OpenDocument object (`draw:object`: a chart in a slide, a sheet or a text) as
 * HTML. A chart is a picture to a reader, but its data is in the file: ODF charts keep it in a
 * local table inside the chart element (`chart:chart`'s `table:table`), series by column and
 * categories by row, which becomes a table under the chart's title, as for OOXML charts
 * (chart-data.ts). Other objects (formulas, embedded documents) give nothing: their replacement
 * picture says nothing a reader can use either.
 */
import type { Element } from 'domhandler';
import { escapeHtml } from '../internal/html.ts';
import { cellValue, rowElementsOf } from './odf-sheet.ts';
import { textOf } from './odf.ts';
import { attribute, childAt, childElements, localName } from './xml-walk.ts';

/** Most rows of a chart's data shown: a chart of more is a data dump, not a figure. */
const maxChartRows = 1_000;

/** An embedded object's document root (`office:document-content` or an inline `office:document`) as HTML. */
export function objectHtml(root: Element | undefined): string {
  const chart = childElements(childAt(root, 'body'))[0];
  if (!chart || localName(chart) !== 'chart') return '';
  const plot = childAt(chart, 'chart');
  const titleElement = childAt(plot, 'title');
  const titleText = titleElement ? textOf(titleElement).replace(/\s+/g, ' ').trim() : '';
  const title = titleText ? `<p><strong>${escapeHtml(titleText)}</strong></p>` : '';
  // The data table sits in the chart element; some writers put it beside it.
  const table = childElements(plot, 'table')[0] ?? childElements(chart, 'table')[0];
  const rows = rowElementsOf(table ?? chart)
    .slice(0, maxChartRows)
    .map((row) =>
      childElements(row)
        .filter((cell) => localName(cell) === 'table-cell')
        .map((cell) => cellValue(cell)),
    )
    .filter((row) => row.some((cell) => cell !== ''));
  if (rows.length === 0) return title;
  const width = Math.max(...rows.map((row) => row.length));
  const cells = (row: string[], tag: 'th' | 'td') =>
    `<tr>${Array.from({ length: width }, (_, c) => `<${tag}>${escapeHtml(row[c] ?? '')}</${tag}>`).join('')}</tr>`;
  const [head, ...body] = rows;
  return `${title}<table><thead>${cells(head!, 'th')}</thead><tbody>${body.map((row) => cells(row, 'td')).join('')}</tbody></table>`;
}

/** The package path of an object's content from its `xlink:href` (`./Object 1` → `Object 1/content.xml`). */
export function objectContentPath(object: Element): string | undefined {
  const href = attribute(object, 'href');
  if (!href || /^[a-z][\w+.-]*:/i.test(href)) return undefined;
  return `${href.replace(/^\.\//, '').replace(/\/$/, '')}/content.xml`;
}
