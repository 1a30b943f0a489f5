/**
 * A DrawingML chart (`c:chartSpace`, the chart parts of PPTX, DOCX and XLSX files) as its title
 * and a table of the data it caches: the chart is a picture to a reader, but the numbers behind
 * it are in the file, one column per series and one row per category.
 */
import { isTag, isText, type Element } from 'domhandler';
import { escapeHtml } from '../internal/html.ts';
import { childAt, childElements, descendants, localName } from './xml-walk.ts';

/** The cached points of a `c:strCache` or `c:numCache` under `reference`, by index. */
function cachedPoints(reference: Element | undefined): Map<number, string> {
  const points = new Map<number, string>();
  const cache = descendants(reference, 'strCache')[0] ?? descendants(reference, 'numCache')[0];
  for (const point of childElements(cache, 'pt')) {
    const index = Number(point.attribs['idx']);
    const value = childAt(point, 'v');
    if (Number.isInteger(index) && value) points.set(index, textOf(value).trim());
  }
  return points;
}

function textOf(element: Element): string {
  let text = '';
  for (const child of element.children) {
    if (isText(child)) text += child.data;
    else if (isTag(child)) text += textOf(child);
  }
  return text;
}

/** The chart's title as typed, or undefined when it has none of its own. */
function titleOf(chart: Element | undefined): string | undefined {
  const title = childAt(chart, 'title');
  if (!title) return undefined;
  const text = descendants(title, 't')
    .map((run) => textOf(run))
    .join('')
    .trim();
  return text || undefined;
}

/** The chart as HTML: its title as a paragraph of its own, then its cached data as a table. */
export function chartHtml(chartSpace: Element | undefined): string {
  const chart = childAt(chartSpace, 'chart');
  const plotArea = childAt(chart, 'plotArea');
  const series = childElements(plotArea).flatMap((group) =>
    localName(group).endsWith('Chart') ? childElements(group, 'ser') : [],
  );
  const title = titleOf(chart);
  const heading = title ? `<p><strong>${escapeHtml(title)}</strong></p>` : '';
  if (series.length === 0) return heading;
  const categories = cachedPoints(childAt(series[0], 'cat') ?? childAt(series[0], 'xVal'));
  const columns = series.map((one, index) => ({
    name: cachedPoints(childAt(one, 'tx')).get(0) ?? `Series ${index + 1}`,
    values: cachedPoints(childAt(one, 'val') ?? childAt(one, 'yVal')),
  }));
  const count = Math.max(categories.size, ...columns.map((column) => column.values.size));
  if (count === 0) return heading;
  const cell = (tag: 'th' | 'td', value: string | undefined) =>
    `<${tag}>${escapeHtml(value ?? '')}</${tag}>`;
  const head = `<tr>${cell('th', '')}${columns.map((column) => cell('th', column.name)).join('')}</tr>`;
  const rows = Array.from(
    { length: count },
    (_, index) =>
      `<tr>${cell('td', categories.get(index) ?? String(index + 1))}${columns
        .map((column) => cell('td', column.values.get(index)))
        .join('')}</tr>`,
  );
  return `${heading}<table><thead>${head}</thead><tbody>${rows.join('')}</tbody></table>`;
}
