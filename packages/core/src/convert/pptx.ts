/**
 * PowerPoint (PPTX) to HTML: one section per slide, in the order of the presentation's slide
 * list (`p:sldIdLst` through its relationships, which is the order shown, not the order of the
 * part names), the title as an `<h2>`, bulleted text as nested lists, tables as tables, pictures
 * as images, and the speaker notes under an `<h3>Notes</h3>` (the spec has no option to leave
 * them out, and they are often the only prose in a deck). Slide furniture (date, footer and
 * slide-number placeholders) is left out, as running headers are elsewhere.
 *
 * Shapes are read top to bottom, then left to right, by their position on the slide (a
 * placeholder without one takes its layout's or master's), because the shape tree is in
 * stacking order, not reading order.
 */
import type { Element } from 'domhandler';
import type JSZip from 'jszip';
import { ValidationError } from '../errors.ts';
import { escapeHtml } from '../internal/html.ts';
import {
  nestedListHtml,
  openPackage,
  readRelationships,
  readXmlPart,
  type ListItem,
  type Relationship,
} from './ooxml.ts';
import { attribute, childAt, childElements, descendants, localName } from './xml-walk.ts';
import { pictureDataUri, webPictureTypes } from './package-pictures.ts';
import { chartHtml } from './chart-data.ts';

const titleTypes = new Set(['title', 'ctrTitle']);
/** Placeholders that repeat on every slide, like a page's running header and footer. */
const furnitureTypes = new Set(['dt', 'ftr', 'sldNum', 'hdr', 'sldImg']);
/** Placeholders whose paragraphs are bullets unless a paragraph or the master says otherwise. */
const bulletedTypes = new Set(['body', 'obj']);

async function chartData(
  zip: JSZip,
  relationships: Map<string, Relationship>,
): Promise<Map<string, string>> {
  const charts = new Map<string, string>();
  for (const [id, relationship] of relationships) {
    if (relationship.type !== 'chart' || relationship.external) continue;
    charts.set(id, chartHtml(await readXmlPart(zip, relationship.target)));
  }
  return charts;
}

/** A placeholder's role, from `p:nvPr/p:ph`; absent type means `obj` (ECMA-376 §19.7.10). */
interface Placeholder {
  type: string;
  index: string | undefined;
}

/** A placeholder with the position its layout or master gives it. */
interface PlacedPlaceholder extends Placeholder {
  offset: Offset;
}

interface Offset {
  x: number;
  y: number;
}

/** What a slide's shapes need from the parts around it. */
interface SlideContext {
  zip: JSZip;
  relationships: Map<string, Relationship>;
  /** Layout placeholders first, then the master's: where an unpositioned placeholder sits. */
  inherited: PlacedPlaceholder[];
  /** The master's bullet kind per outline level of body text, when it sets one. */
  masterBullets: (BulletKind | undefined)[];
  /** Data URIs of the part's pictures, by relationship id. */
  pictures: Map<string, string>;
  /** The slide's charts as their title and data table, by relationship id. */
  charts: Map<string, string>;
}

type BulletKind = 'none' | 'ul' | 'ol';

/** One shape's contribution to a slide, before ordering. */
interface Block {
  offset: Offset | undefined;
  /** Position in the shape tree, to keep ties and unpositioned shapes stable. */
  treeIndex: number;
  title?: string;
  html: string;
}

/**
 * The HTML of a PPTX file. @throws BAD_REQUEST for an unreadable package, CONTENT_TOO_LARGE
 * for a zip bomb
 */
export async function pptxHtml(bytes: Uint8Array): Promise<string> {
  const zip = openPackage(bytes, 'PowerPoint');
  const rootRelationships = await readRelationships(zip, '');
  const presentationPath =
    [...rootRelationships.values()].find((rel) => rel.type === 'officeDocument')?.target ??
    'ppt/presentation.xml';
  const presentation = await readXmlPart(zip, presentationPath);
  if (!presentation || localName(presentation) !== 'presentation')
    throw new ValidationError('The PowerPoint file has no presentation part');
  const presentationRelationships = await readRelationships(zip, presentationPath);
  const slidePaths = childElements(childAt(presentation, 'sldIdLst'), 'sldId').flatMap((slide) => {
    const target = presentationRelationships.get(
      attribute(slide, 'id', { prefixed: true }) ?? '',
    )?.target;
    return target ? [target] : [];
  });

  const sections: string[] = [];
  for (const [index, path] of slidePaths.entries()) {
    sections.push(await slideHtml(zip, path, index + 1));
  }
  const title = await documentTitle(zip, rootRelationships);
  return `<html><head>${title ? `<title>${escapeHtml(title)}</title>` : ''}</head><body>${sections.join('\n')}</body></html>`;
}

async function slideHtml(zip: JSZip, path: string, number: number): Promise<string> {
  const slide = await readXmlPart(zip, path);
  if (!slide) return `<section><h2>Slide ${number}</h2></section>`;
  const relationships = await readRelationships(zip, path);
  const context = await slideContext(zip, relationships);
  const blocks = shapeBlocks(childAt(slide, 'cSld', 'spTree'), context);
  const titles = blocks.flatMap((block) => (block.title ? [block.title] : []));
  const body = sortByPosition(blocks.filter((block) => block.title === undefined))
    .map((block) => block.html)
    .join('');
  const notes = await notesHtml(zip, relationships);
  const heading = titles.length > 0 ? titles.join(' — ') : `Slide ${number}`;
  return `<section><h2>${escapeHtml(heading)}</h2>${body}${notes ? `<h3>Notes</h3>${notes}` : ''}</section>`;
}

/** The layout and master a slide inherits placeholder positions and bullet styles from. */
async function slideContext(
  zip: JSZip,
  relationships: Map<string, Relationship>,
): Promise<SlideContext> {
  const layoutPath = [...relationships.values()].find((rel) => rel.type === 'slideLayout')?.target;
  const inherited: PlacedPlaceholder[] = [];
  let masterBullets: (BulletKind | undefined)[] = [];
  if (layoutPath) {
    const layout = await readXmlPart(zip, layoutPath);
    inherited.push(...placedPlaceholders(layout));
    const layoutRelationships = await readRelationships(zip, layoutPath);
    const masterPath = [...layoutRelationships.values()].find(
      (rel) => rel.type === 'slideMaster',
    )?.target;
    const master = masterPath ? await readXmlPart(zip, masterPath) : undefined;
    inherited.push(...placedPlaceholders(master));
    const bodyStyle = childAt(master, 'txStyles', 'bodyStyle');
    masterBullets = Array.from({ length: 9 }, (_, level) =>
      bulletOf(childAt(bodyStyle, `lvl${level + 1}pPr`)),
    );
  }
  return {
    zip,
    relationships,
    inherited,
    masterBullets,
    pictures: await pictureData(zip, relationships),
    charts: await chartData(zip, relationships),
  };
}

function placedPlaceholders(part: Element | undefined): PlacedPlaceholder[] {
  return descendants(childAt(part, 'cSld', 'spTree'), 'sp').flatMap((shape) => {
    const placeholder = placeholderOf(shape);
    const offset = ownOffset(shape);
    return placeholder && offset ? [{ ...placeholder, offset }] : [];
  });
}

function placeholderOf(shape: Element): Placeholder | undefined {
  const properties = childElements(shape).find((child) => localName(child).startsWith('nv'));
  const placeholder = childAt(properties, 'nvPr', 'ph');
  if (!placeholder) return undefined;
  return { type: attribute(placeholder, 'type') ?? 'obj', index: attribute(placeholder, 'idx') };
}

function ownOffset(shape: Element): Offset | undefined {
  const transform =
    childAt(shape, 'spPr', 'xfrm') ?? childAt(shape, 'grpSpPr', 'xfrm') ?? childAt(shape, 'xfrm');
  const offset = childAt(transform, 'off');
  if (!offset) return undefined;
  return { x: Number(attribute(offset, 'x') ?? 0), y: Number(attribute(offset, 'y') ?? 0) };
}

/** A shape's position: its own, else its placeholder's on the layout, else on the master. */
function offsetOf(
  shape: Element,
  placeholder: Placeholder | undefined,
  context: SlideContext,
): Offset | undefined {
  const own = ownOffset(shape);
  if (own || !placeholder) return own;
  const sameRole = (other: PlacedPlaceholder) =>
    other.type === placeholder.type ||
    (titleTypes.has(other.type) && titleTypes.has(placeholder.type));
  return (
    context.inherited.find(
      (other) => placeholder.index !== undefined && other.index === placeholder.index,
    ) ?? context.inherited.find(sameRole)
  )?.offset;
}

/** Top to bottom, then left to right; shapes with no known position keep their tree order, last. */
function sortByPosition(blocks: Block[]): Block[] {
  return [...blocks].sort((a, b) => {
    if (!a.offset || !b.offset) return a.offset ? -1 : b.offset ? 1 : a.treeIndex - b.treeIndex;
    return a.offset.y - b.offset.y || a.offset.x - b.offset.x || a.treeIndex - b.treeIndex;
  });
}

/** The blocks of the shapes in a shape tree or group. */
function shapeBlocks(tree: Element | undefined, context: SlideContext): Block[] {
  const blocks: Block[] = [];
  for (const [treeIndex, shape] of childElements(tree).entries()) {
    const placeholder = placeholderOf(shape);
    if (placeholder && furnitureTypes.has(placeholder.type)) continue;
    const offset = offsetOf(shape, placeholder, context);
    const html = shapeHtml(shape, placeholder, context);
    if (html === undefined) continue;
    if (typeof html === 'object') blocks.push({ offset, treeIndex, title: html.title, html: '' });
    else if (html !== '') blocks.push({ offset, treeIndex, html });
  }
  return blocks;
}

/** A shape as HTML, or as a title; undefined for shapes with nothing to read. */
function shapeHtml(
  shape: Element,
  placeholder: Placeholder | undefined,
  context: SlideContext,
): string | { title: string } | undefined {
  switch (localName(shape)) {
    case 'sp': {
      const body = childAt(shape, 'txBody');
      if (!body) return undefined;
      if (placeholder && titleTypes.has(placeholder.type)) {
        const title = childElements(body, 'p')
          .map((paragraph) => plainText(paragraph))
          .filter((text) => text !== '')
          .join(' ');
        return title ? { title } : undefined;
      }
      const bulleted = placeholder !== undefined && bulletedTypes.has(placeholder.type);
      return textBodyHtml(body, bulleted, context);
    }
    case 'graphicFrame': {
      const table = descendants(shape, 'tbl')[0];
      if (table) return tableHtml(table, context);
      const chart = descendants(shape, 'chart')[0];
      const id = attribute(chart, 'id', { prefixed: true });
      return id ? context.charts.get(id) : undefined;
    }
    case 'pic':
      return pictureHtml(shape, context);
    case 'grpSp':
      // A group reads as one block at the group's position, its members in their own order.
      return sortByPosition(shapeBlocks(shape, context))
        .map((block) => (block.title ? `<p>${escapeHtml(block.title)}</p>` : block.html))
        .join('');
    default:
      return undefined;
  }
}

/** The bullet a paragraph-properties element sets, if it sets one. */
function bulletOf(properties: Element | undefined): BulletKind | undefined {
  for (const child of childElements(properties)) {
    const name = localName(child);
    if (name === 'buNone') return 'none';
    if (name === 'buAutoNum') return 'ol';
    if (name === 'buChar' || name === 'buBlip') return 'ul';
  }
  return undefined;
}

/** Paragraphs as `<p>`, runs of bulleted paragraphs as nested lists by their `lvl`. */
function textBodyHtml(body: Element, bulleted: boolean, context: SlideContext): string {
  const listStyle = childAt(body, 'lstStyle');
  const parts: string[] = [];
  let items: ListItem[] = [];
  const flush = () => {
    if (items.length > 0) parts.push(nestedListHtml(items));
    items = [];
  };
  for (const paragraph of childElements(body, 'p')) {
    const html = runsHtml(paragraph, context);
    // An empty paragraph is spacing; a list continues across it.
    if (html.trim() === '') continue;
    const properties = childAt(paragraph, 'pPr');
    const level = Math.min(8, Math.max(0, Number(attribute(properties, 'lvl') ?? 0) || 0));
    const bullet =
      bulletOf(properties) ??
      bulletOf(childAt(listStyle, `lvl${level + 1}pPr`)) ??
      (bulleted ? (context.masterBullets[level] ?? 'ul') : 'none');
    if (bullet === 'none') {
      flush();
      parts.push(`<p>${html}</p>`);
    } else items.push({ level, ordered: bullet === 'ol', html });
  }
  flush();
  return parts.join('');
}

/** A paragraph's text without formatting, line breaks as spaces. */
function plainText(paragraph: Element): string {
  return childElements(paragraph)
    .map((child) => {
      const name = localName(child);
      if (name === 'br') return ' ';
      if (name === 'r' || name === 'fld')
        return childAt(child, 't')?.children.map(nodeText).join('') ?? '';
      return '';
    })
    .join('')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A text node's text; soft hyphens only mark where a word may break, so they go. */
const nodeText = (node: { type: string }): string =>
  'data' in node && typeof node.data === 'string' ? node.data.replace(/\u00AD/g, '') : '';

/**
 * A paragraph's runs as inline HTML: bold, italic and hyperlinks kept, neighbouring runs of the
 * same formatting merged (so markdown gets `**one phrase**`, not one pair per run).
 */
function runsHtml(paragraph: Element, context: SlideContext): string {
  interface Span {
    text: string;
    bold: boolean;
    italic: boolean;
    href: string | undefined;
  }
  const spans: (Span | 'br')[] = [];
  for (const child of childElements(paragraph)) {
    const name = localName(child);
    if (name === 'br') {
      spans.push('br');
      continue;
    }
    if (name !== 'r' && name !== 'fld') continue;
    const text = childAt(child, 't')?.children.map(nodeText).join('') ?? '';
    if (text === '') continue;
    const properties = childAt(child, 'rPr');
    const link = context.relationships.get(
      attribute(childAt(properties, 'hlinkClick'), 'id', { prefixed: true }) ?? '',
    );
    const span: Span = {
      text,
      bold: attribute(properties, 'b') === '1',
      italic: attribute(properties, 'i') === '1',
      href: link?.external ? link.target : undefined,
    };
    const previous = spans[spans.length - 1];
    if (
      previous &&
      previous !== 'br' &&
      previous.bold === span.bold &&
      previous.italic === span.italic &&
      previous.href === span.href
    )
      previous.text += text;
    else spans.push(span);
  }
  return spans
    .map((span) => {
      if (span === 'br') return '<br>';
      let html = escapeHtml(span.text);
      if (span.bold) html = `<strong>${html}</strong>`;
      if (span.italic) html = `<em>${html}</em>`;
      if (span.href) html = `<a href="${escapeHtml(span.href)}">${html}</a>`;
      return html;
    })
    .join('');
}

/**
 * A DrawingML table: `gridSpan`/`rowSpan` become colspan/rowspan, the cells they cover
 * (`hMerge`/`vMerge`) are left out, and the first row is the header, as slide tables nearly
 * always have one and GFM needs one.
 */
function tableHtml(table: Element, context: SlideContext): string {
  const rows = childElements(table, 'tr').map((row, rowIndex) => {
    const tag = rowIndex === 0 ? 'th' : 'td';
    const cells = childElements(row, 'tc').flatMap((cell) => {
      if (attribute(cell, 'hMerge') === '1' || attribute(cell, 'vMerge') === '1') return [];
      const spans = [
        ['colspan', attribute(cell, 'gridSpan')],
        ['rowspan', attribute(cell, 'rowSpan')],
      ]
        .filter(([, value]) => value !== undefined && Number(value) > 1)
        .map(([name, value]) => ` ${name}="${Number(value)}"`)
        .join('');
      const text = childElements(childAt(cell, 'txBody'), 'p')
        .map((paragraph) => runsHtml(paragraph, context))
        .filter((html) => html.trim() !== '')
        .join('<br>');
      return [`<${tag}${spans}>${text}</${tag}>`];
    });
    return `<tr>${cells.join('')}</tr>`;
  });
  const [head, ...body] = rows;
  if (!head) return '';
  return `<table><thead>${head}</thead><tbody>${body.join('')}</tbody></table>`;
}

// PowerPoint files carry BMP and TIFF pictures too.
const slidePictureTypes: Readonly<Record<string, string>> = {
  ...webPictureTypes,
  bmp: 'image/bmp',
  tif: 'image/tiff',
  tiff: 'image/tiff',
};

/**
 * The pictures a part's relationships point at, as data URIs: inline, as mammoth does for Word,
 * so the image formats and `removeBase64Images` treat a slide's pictures as they treat a Word
 * document's. Formats a browser cannot show (EMF, WMF) are left out.
 */
async function pictureData(
  zip: JSZip,
  relationships: Map<string, Relationship>,
): Promise<Map<string, string>> {
  const pictures = new Map<string, string>();
  for (const [id, relationship] of relationships) {
    if (relationship.type !== 'image' || relationship.external) continue;
    const picture = await pictureDataUri(zip, relationship.target, slidePictureTypes);
    if (picture) pictures.set(id, picture);
  }
  return pictures;
}

/** A picture as an `<img>` with its description as alt text. */
function pictureHtml(shape: Element, context: SlideContext): string {
  const description = attribute(childAt(shape, 'nvPicPr', 'cNvPr'), 'descr') ?? '';
  const embed = attribute(descendants(shape, 'blip')[0], 'embed', { prefixed: true });
  const source = context.pictures.get(embed ?? '');
  if (!source) return description ? `<p>${escapeHtml(description)}</p>` : '';
  return `<p><img src="${source}" alt="${escapeHtml(description)}"></p>`;
}

/** The speaker notes of a slide: the body placeholder of its notes slide. */
async function notesHtml(zip: JSZip, relationships: Map<string, Relationship>): Promise<string> {
  const path = [...relationships.values()].find((rel) => rel.type === 'notesSlide')?.target;
  const notes = path ? await readXmlPart(zip, path) : undefined;
  if (!path || !notes) return '';
  const context: SlideContext = {
    zip,
    relationships: await readRelationships(zip, path),
    inherited: [],
    masterBullets: [],
    pictures: new Map(),
    charts: new Map(),
  };
  return childElements(childAt(notes, 'cSld', 'spTree'), 'sp')
    .filter((shape) => placeholderOf(shape)?.type === 'body')
    .map((shape) => {
      const body = childAt(shape, 'txBody');
      return body ? textBodyHtml(body, false, context) : '';
    })
    .join('');
}

async function documentTitle(
  zip: JSZip,
  rootRelationships: Map<string, Relationship>,
): Promise<string | undefined> {
  const path =
    [...rootRelationships.values()].find((rel) => rel.type === 'core-properties')?.target ??
    'docProps/core.xml';
  const title = descendants(await readXmlPart(zip, path), 'title')[0];
  const text = title?.children.map(nodeText).join('').trim();
  return text || undefined;
}
