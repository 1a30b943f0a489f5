/**
 * OpenDocument (ODT, ODS, ODP) to HTML, from the package's content.xml. No maintained npm
 * library turns ODF into HTML or markdown (exceljs reads only OOXML), and the format is plain
 * XML whose structure maps onto HTML almost one to one, so it is read here:
 *
 * - text (ODT): headings by outline level, paragraphs, lists (bulleted or numbered from their
 *   list style), tables with spans, sections, links, images, and footnotes and endnotes as a
 *   numbered list at the end. Running headers and footers live in styles.xml's master pages,
 *   so they are left out by reading content.xml only; generated indexes (a table of contents)
 *   are left out as they repeat the headings.
 * - spreadsheet (ODS): the sheets laid out as for XLSX (sheet-layout.ts): tables cut at blank
 *   rows and columns, title rows as headings, merged cells as spans, comments as notes, hidden
 *   sheets, rows and columns left out; cells as their stored values (formulas as their computed
 *   results, dates in ISO form).
 * - presentation (ODP): one section per slide in document order, the title as a heading, the
 *   other frames top to bottom then left to right, and the speaker notes under "Notes", as for
 *   PPTX. Footer, date and slide-number frames are left out.
 *
 * Charts, in any of the three, become their title and a table of their data (odf-chart.ts).
 * Frames anchored in a paragraph that hold blocks (a chart, a text box with a table or a list)
 * follow that paragraph, since a paragraph cannot hold a table.
 *
 * The reader is native rather than a LibreOffice round trip (ODF to DOCX or XLSX, then those
 * readers): LibreOffice is an optional install, takes a second or more per file in a process of
 * its own, and its export would lose what ODF states plainly (header rows, list levels, chart
 * data tables), while the XML here maps onto HTML almost one to one.
 */
import { isTag, isText, type ChildNode, type Element } from 'domhandler';
import type JSZip from 'jszip';
import { UnsupportedTypeError, ValidationError } from '../errors.ts';
import { escapeHtml } from '../internal/html.ts';
import { nestedListHtml, openPackage, readXmlPart, type ListItem } from './ooxml.ts';
import { attribute, childAt, childElements, descendants, localName } from './xml-walk.ts';
import { pictureDataUri } from './package-pictures.ts';
import { objectContentPath, objectHtml } from './odf-chart.ts';
import { odsSheetGrid } from './odf-sheet.ts';
import { sheetsHtml } from './sheet-layout.ts';
import { pageHtml } from './odf-slides.ts';

/** What the walkers need from the package. */
export interface OdfContext {
  /** List styles by name: whether each level is numbered. */
  listStyles: Map<string, Element>;
  /** Text styles by name: whether they make text bold or italic. */
  textStyles: Map<string, { bold: boolean; italic: boolean }>;
  /** Data URIs of the package's pictures, by path. */
  pictures: Map<string, string>;
  /** Footnote and endnote bodies, in citation order. */
  notes: string[];
  /** Embedded objects (charts) as HTML, by their content part's path. */
  objects: Map<string, string>;
  /**
   * Blocks met inside a paragraph (a chart or a text box with a table anchored there), written
   * after it.
   */
  hoisted: string[];
}

/** Most embedded objects read from one package: each is a part of its own to inflate and parse. */
const maxObjects = 200;

/**
 * The HTML of an OpenDocument file. @throws BAD_REQUEST for an unreadable package,
 * UNSUPPORTED_FILE_TYPE for a drawing, chart or formula document, CONTENT_TOO_LARGE for a zip
 * bomb
 */
export async function odfHtml(bytes: Uint8Array): Promise<{ html: string; warning?: string }> {
  const zip = openPackage(bytes, 'OpenDocument');
  const content = await readXmlPart(zip, 'content.xml');
  const styles = await readXmlPart(zip, 'styles.xml');
  const body = childElements(childAt(content, 'body'))[0];
  if (!content || !body)
    throw new ValidationError('The OpenDocument file has no content.xml with a document body');
  const context: OdfContext = {
    listStyles: new Map(),
    textStyles: new Map(),
    pictures: await pictureData(zip),
    notes: [],
    objects: await objectData(zip, body),
    hoisted: [],
  };
  // Sheets hidden by their table style (`table:display="false"`).
  const hiddenSheetStyles = new Set<string>();
  for (const part of [styles, content]) {
    for (const holder of ['styles', 'automatic-styles']) {
      const container = childAt(part, holder);
      for (const list of childElements(container, 'list-style'))
        context.listStyles.set(attribute(list, 'name') ?? '', list);
      for (const style of childElements(container, 'style')) {
        if (attribute(childAt(style, 'table-properties'), 'display') === 'false')
          hiddenSheetStyles.add(attribute(style, 'name') ?? '');
        const text = childAt(style, 'text-properties');
        if (!text) continue;
        context.textStyles.set(attribute(style, 'name') ?? '', {
          bold: /^(bold|[6-9]00)$/.test(attribute(text, 'font-weight') ?? ''),
          italic: /^(italic|oblique)$/.test(attribute(text, 'font-style') ?? ''),
        });
      }
    }
  }
  // The body, not the detected kind, decides: a package whose mimetype entry is out of place
  // is detected as ODT whatever it holds.
  let html: string;
  let warning: string | undefined;
  switch (localName(body)) {
    case 'text':
      html = blocksHtml(childElements(body), context) + notesHtml(context);
      break;
    case 'spreadsheet': {
      const sheets = childElements(body, 'table').map((sheet) => ({
        ...odsSheetGrid(sheet, hiddenSheetStyles),
        after: descendants(sheet, 'object')
          .map((object) => embeddedHtml(object, context))
          .join(''),
      }));
      ({ html, warning } = sheetsHtml(sheets));
      break;
    }
    case 'presentation':
      html = childElements(body, 'page')
        .map((page, index) => pageHtml(page, index + 1, context))
        .join('\n');
      break;
    default:
      throw new UnsupportedTypeError(
        `The OpenDocument file holds a ${localName(body)} document; parse reads text documents, spreadsheets and presentations`,
      );
  }
  const title = descendants(await readXmlPart(zip, 'meta.xml'), 'title')[0];
  const titleText = title ? textOf(title).trim() : '';
  return {
    html: `<html><head>${titleText ? `<title>${escapeHtml(titleText)}</title>` : ''}</head><body>${html}</body></html>`,
    ...(warning ? { warning } : {}),
  };
}

/**
 * The package's embedded objects as HTML, by content path: read before the walk, which is
 * synchronous. Objects inside objects are not followed.
 */
async function objectData(zip: JSZip, body: Element | undefined): Promise<Map<string, string>> {
  const objects = new Map<string, string>();
  for (const object of descendants(body, 'object').slice(0, maxObjects)) {
    const path = objectContentPath(object);
    if (path === undefined || objects.has(path)) continue;
    objects.set(path, objectHtml(await readXmlPart(zip, path)));
  }
  return objects;
}

/** An embedded object: from its part in the package, or inline (a flat ODF file). */
function embeddedHtml(object: Element, context: OdfContext): string {
  const inline = childAt(object, 'document');
  if (inline) return objectHtml(inline);
  const path = objectContentPath(object);
  return path === undefined ? '' : (context.objects.get(path) ?? '');
}

/** The blocks hoisted out of the paragraphs read since the last call. */
function takeHoisted(context: OdfContext): string {
  const html = context.hoisted.join('');
  context.hoisted.length = 0;
  return html;
}

/** The pictures under Pictures/ as data URIs (inline, as for Word and PowerPoint files). */
async function pictureData(zip: JSZip): Promise<Map<string, string>> {
  const pictures = new Map<string, string>();
  for (const file of Object.values(zip.files)) {
    if (file.dir || !file.name.startsWith('Pictures/')) continue;
    const picture = await pictureDataUri(zip, file.name);
    if (picture) pictures.set(file.name, picture);
  }
  return pictures;
}

/** All text under an element, as stored. */
export function textOf(node: ChildNode): string {
  if (isText(node)) return node.data;
  if (!isTag(node)) return '';
  return node.children.map(textOf).join('');
}

/** Elements generated from the rest of the document, or not content. */
const skippedBlocks = new Set([
  'table-of-content',
  'alphabetical-index',
  'illustration-index',
  'table-index',
  'object-index',
  'user-index',
  'bibliography',
  'sequence-decls',
  'variable-decls',
  'user-field-decls',
  'tracked-changes',
  'soft-page-break',
  'forms',
]);

/**
 * Block-level ODF content (a text body, a section, a text box, a cell) as HTML. Lists next to
 * each other make one list: slides split an outline into sibling lists at each level change.
 */
export function blocksHtml(elements: readonly Element[], context: OdfContext): string {
  let html = '';
  let listRun: ListItem[] = [];
  for (const element of elements) {
    const name = localName(element);
    if (name === 'list') {
      listRun.push(...listItems(element, context, 1, undefined));
      continue;
    }
    if (listRun.length > 0) html += nestedListHtml(listRun);
    listRun = [];
    html += blockHtml(element, context);
  }
  if (listRun.length > 0) html += nestedListHtml(listRun);
  return html;
}

function blockHtml(element: Element, context: OdfContext): string {
  const name = localName(element);
  if (skippedBlocks.has(name)) return '';
  switch (name) {
    case 'h': {
      const text = inlineHtml(element, context);
      const after = takeHoisted(context);
      if (text.trim() === '') return after;
      const level = Math.min(6, Math.max(1, Number(attribute(element, 'outline-level')) || 1));
      return `<h${level}>${text}</h${level}>${after}`;
    }
    case 'p': {
      const text = inlineHtml(element, context);
      const after = takeHoisted(context);
      return (text.trim() === '' ? '' : `<p>${text}</p>`) + after;
    }
    case 'table':
      return tableHtml(element, context);
    case 'frame':
      return frameHtml(element, context);
    default:
      // Sections, index bodies and other containers: their content, in order.
      return blocksHtml(childElements(element), context);
  }
}

/** Whether level `level` of a list style numbers its items. */
function isNumbered(styleName: string | undefined, level: number, context: OdfContext): boolean {
  const style = context.listStyles.get(styleName ?? '');
  const levelStyle = childElements(style).find(
    (element) => Number(attribute(element, 'level')) === level,
  );
  return levelStyle !== undefined && localName(levelStyle) === 'list-level-style-number';
}

/**
 * A list as flat items with levels, for {@link nestedListHtml}: ODF stores an outline level as
 * list nesting, and an item holding only a nested list (no text of its own) is just the way to
 * reach a deeper level, so it adds no item. A nested list without a style takes its parent's.
 */
function listItems(
  list: Element,
  context: OdfContext,
  level: number,
  inheritedStyle: string | undefined,
): ListItem[] {
  const styleName = attribute(list, 'style-name') ?? inheritedStyle;
  const ordered = isNumbered(styleName, level, context);
  const items: ListItem[] = [];
  for (const item of childElements(list)) {
    if (localName(item) !== 'list-item' && localName(item) !== 'list-header') continue;
    const own: string[] = [];
    const nested: ListItem[] = [];
    for (const child of childElements(item)) {
      if (localName(child) === 'list')
        nested.push(...listItems(child, context, level + 1, styleName));
      else {
        const html = blocksHtml([child], context);
        if (html !== '') own.push(html);
      }
    }
    // One paragraph reads as the item's own text, so the list stays tight in markdown.
    const html =
      own.length === 1 ? own[0]!.replace(/^<(p|h\d)>([\s\S]*)<\/\1>$/, '$2') : own.join('');
    if (html !== '') items.push({ level: level - 1, ordered, html });
    items.push(...nested);
  }
  return items;
}

/** Inline content: text with ODF's white-space rules, spans, links, breaks, notes, images. */
function inlineHtml(parent: Element, context: OdfContext): string {
  let html = '';
  for (const node of parent.children) {
    if (isText(node)) {
      // ODF collapses white space in text; extra spaces are <text:s/>. Soft hyphens only say
      // where a word may break, and would split the word for anyone searching the text.
      html += escapeHtml(
        textOf(node)
          .replace(/[ \t\r\n]+/g, ' ')
          .replace(/\u00AD/g, ''),
      );
      continue;
    }
    if (!isTag(node)) continue;
    const element = node;
    switch (localName(element)) {
      case 's':
        html += ' '.repeat(Math.min(100, Number(attribute(element, 'c')) || 1));
        break;
      case 'tab':
        html += ' ';
        break;
      case 'line-break':
        html += '<br>';
        break;
      case 'span': {
        let inner = inlineHtml(element, context);
        const style = context.textStyles.get(attribute(element, 'style-name') ?? '');
        if (inner.trim() !== '' && style?.bold) inner = `<strong>${inner}</strong>`;
        if (inner.trim() !== '' && style?.italic) inner = `<em>${inner}</em>`;
        html += inner;
        break;
      }
      case 'a': {
        const href = attribute(element, 'href');
        const inner = inlineHtml(element, context);
        html += href ? `<a href="${escapeHtml(href)}">${inner}</a>` : inner;
        break;
      }
      case 'note': {
        const body = childAt(element, 'note-body');
        context.notes.push(blocksHtml(childElements(body), context));
        html += `<sup>[${context.notes.length}]</sup>`;
        break;
      }
      case 'frame':
        html += frameHtml(element, context, { inline: true });
        break;
      case 'annotation':
      case 'annotation-end':
      case 'bookmark':
      case 'bookmark-start':
      case 'bookmark-end':
      case 'reference-mark':
      case 'reference-mark-start':
      case 'reference-mark-end':
      case 'soft-page-break':
      case 'change':
      case 'change-start':
      case 'change-end':
        break;
      default:
        // Fields (dates, page references, sequence numbers) and other wrappers: their text.
        html += inlineHtml(element, context);
    }
  }
  return html;
}

/** Footnotes and endnotes, numbered as cited. */
function notesHtml(context: OdfContext): string {
  if (context.notes.length === 0) return '';
  const items = context.notes.map(
    (note) => `<li>${note.replace(/^<p>([\s\S]*)<\/p>$/, '$1')}</li>`,
  );
  return `<ol>${items.join('')}</ol>`;
}

/**
 * A frame: its picture (alt text from its title or description), text box, table or chart.
 * Inline (anchored in a paragraph), a text box of plain paragraphs joins the paragraph's text;
 * blocks a paragraph cannot hold (a table, a list, a chart) are hoisted after it.
 */
export function frameHtml(frame: Element, context: OdfContext, { inline = false } = {}): string {
  const alt = textOf(childAt(frame, 'title') ?? childAt(frame, 'desc') ?? frame).trim();
  const parts: string[] = [];
  const block = (html: string) => {
    if (html === '') return;
    if (inline) context.hoisted.push(html);
    else parts.push(html);
  };
  for (const child of childElements(frame)) {
    switch (localName(child)) {
      case 'image': {
        const source = context.pictures.get(attribute(child, 'href') ?? '');
        const image = source ? `<img src="${source}" alt="${escapeHtml(alt)}">` : '';
        // A picture on its own line reads as a paragraph of its own.
        if (image) parts.push(inline ? image : `<p>${image}</p>`);
        break;
      }
      case 'text-box':
        if (inline && !holdsBlocks(child))
          parts.push(
            childElements(child)
              .map((paragraph) => inlineHtml(paragraph, context))
              .join('<br>'),
          );
        else block(blocksHtml(childElements(child), context));
        break;
      case 'table':
        block(tableHtml(child, context));
        break;
      case 'object':
        block(embeddedHtml(child, context));
        break;
    }
  }
  return parts.join('');
}

/** Whether a text box holds more than paragraphs: a table, a list, a heading or a chart. */
const holdsBlocks = (textBox: Element): boolean =>
  ['table', 'list', 'h', 'object'].some((name) => descendants(textBox, name).length > 0);

/** A text table: header rows as `<thead>`, spans kept, covered cells left out. */
function tableHtml(table: Element, context: OdfContext): string {
  const head: string[] = [];
  const body: string[] = [];
  const visit = (parent: Element, inHead: boolean) => {
    for (const child of childElements(parent)) {
      const name = localName(child);
      if (name === 'table-header-rows') visit(child, true);
      else if (name === 'table-rows' || name === 'table-row-group') visit(child, inHead);
      else if (name === 'table-row') {
        const repeat = Math.min(100, Number(attribute(child, 'number-rows-repeated')) || 1);
        const row = rowHtml(child, inHead ? 'th' : 'td', context);
        for (let copy = 0; copy < repeat; copy++) (inHead ? head : body).push(row);
      }
    }
  };
  visit(table, false);
  // GFM needs a header: without header rows, the first row serves.
  if (head.length === 0 && body.length > 0)
    head.push(body.shift()!.replace(/<(\/?)td\b/g, '<$1th'));
  return `<table><thead>${head.join('')}</thead><tbody>${body.join('')}</tbody></table>`;
}

function rowHtml(row: Element, tag: 'th' | 'td', context: OdfContext): string {
  const cells = childElements(row).flatMap((cell) => {
    if (localName(cell) !== 'table-cell') return [];
    const columns = Number(attribute(cell, 'number-columns-spanned')) || 1;
    const rows = Number(attribute(cell, 'number-rows-spanned')) || 1;
    const spans =
      (columns > 1 ? ` colspan="${columns}"` : '') + (rows > 1 ? ` rowspan="${rows}"` : '');
    const text = childElements(cell)
      .map((child) =>
        localName(child) === 'p' || localName(child) === 'h'
          ? inlineHtml(child, context)
          : blocksHtml([child], context),
      )
      .filter((html) => html.trim() !== '')
      .join('<br>')
      .concat(takeHoisted(context));
    const repeat = Math.min(100, Number(attribute(cell, 'number-columns-repeated')) || 1);
    return Array.from({ length: repeat }, () => `<${tag}${spans}>${text}</${tag}>`);
  });
  return `<tr>${cells.join('')}</tr>`;
}
