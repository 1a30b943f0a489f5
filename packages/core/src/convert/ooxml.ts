/**
 * Reading the XML parts of an Office package (OOXML, and ODF's content.xml) without a schema:
 * elements are matched by local name, so a part that binds the usual namespaces to unusual
 * prefixes (`ns0:sp` for `p:sp`) reads the same. Also the package's relationships, and the
 * escaping the HTML writers share.
 */
import { isTag, type Element } from 'domhandler';
import { parseDocument } from 'htmlparser2';
import type JSZip from 'jszip';
import { posix } from 'node:path';
import { openZip } from './zip.ts';

/** An element's name without its namespace prefix. */
export const localName = (element: Element): string =>
  element.name.slice(element.name.indexOf(':') + 1);

/** The child elements of `parent` (named `name`, when given), in document order. */
export function childElements(parent: Element | undefined, name?: string): Element[] {
  if (!parent) return [];
  return parent.children.filter(
    (child): child is Element => isTag(child) && (name === undefined || localName(child) === name),
  );
}

/** The first element reached by following child names from `parent`. */
export function childAt(parent: Element | undefined, ...path: string[]): Element | undefined {
  let at = parent;
  for (const name of path) at = childElements(at, name)[0];
  return at;
}

/** Every descendant element named `name`, in document order. */
export function descendants(parent: Element | undefined, name: string): Element[] {
  const found: Element[] = [];
  const visit = (element: Element) => {
    for (const child of childElements(element)) {
      if (localName(child) === name) found.push(child);
      visit(child);
    }
  };
  if (parent) visit(parent);
  return found;
}

/**
 * An attribute by local name. With `prefixed`, only a namespaced attribute matches (`r:id`
 * rather than a plain `id` on the same element).
 */
export function attribute(
  element: Element | undefined,
  name: string,
  { prefixed = false } = {},
): string | undefined {
  if (!element) return undefined;
  if (!prefixed && name in element.attribs) return element.attribs[name];
  const key = Object.keys(element.attribs).find((key) => key.endsWith(`:${name}`));
  return key === undefined ? undefined : element.attribs[key];
}

/** The root element of an XML text. */
export function parseXml(xml: string): Element | undefined {
  const document = parseDocument(xml, { xmlMode: true });
  return document.children.find(isTag);
}

/** A part of the package as its root element; undefined when the part is absent. */
export async function readXmlPart(zip: JSZip, path: string): Promise<Element | undefined> {
  const file = zip.file(path);
  if (!file) return undefined;
  return parseXml(await file.async('string'));
}

/** A package relationship: its type's last segment (`slide`, `notesSlide`) and resolved target. */
export interface Relationship {
  type: string;
  target: string;
  external: boolean;
}

/**
 * The relationships of a part (from `_rels/<name>.rels` beside it), by id, with targets resolved
 * against the part's folder.
 */
export async function readRelationships(
  zip: JSZip,
  partPath: string,
): Promise<Map<string, Relationship>> {
  const folder = posix.dirname(partPath);
  const root = await readXmlPart(
    zip,
    posix.join(folder, '_rels', `${posix.basename(partPath)}.rels`),
  );
  const relationships = new Map<string, Relationship>();
  for (const element of childElements(root, 'Relationship')) {
    const id = attribute(element, 'Id');
    const target = attribute(element, 'Target');
    if (!id || target === undefined) continue;
    const external = attribute(element, 'TargetMode') === 'External';
    relationships.set(id, {
      type: (attribute(element, 'Type') ?? '').split('/').pop() ?? '',
      // A leading slash is relative to the package root.
      target: external
        ? target
        : target.startsWith('/')
          ? target.slice(1)
          : posix.normalize(posix.join(folder, target)),
      external,
    });
  }
  return relationships;
}

/**
 * Opens a ZIP package, every part inflated under the zip-bomb caps of `zip.ts`.
 * @throws CONTENT_TOO_LARGE for a zip bomb; BAD_REQUEST when it cannot be read
 */
export function openPackage(bytes: Uint8Array, what: string): JSZip {
  return openZip(bytes, what);
}

/** One item of a run of list paragraphs: its depth (0 = top) and kind. */
export interface ListItem {
  level: number;
  ordered: boolean;
  html: string;
}

/**
 * Nested `<ul>`/`<ol>` from a flat run of list paragraphs with levels, as slides and ODF
 * outlines store them. A jump of more than one level opens the lists in between.
 */
export function nestedListHtml(items: readonly ListItem[]): string {
  let html = '';
  // Every list on the stack has one <li> open.
  const open: ('ul' | 'ol')[] = [];
  for (const item of items) {
    const tag = item.ordered ? 'ol' : 'ul';
    const depth = Math.max(0, item.level) + 1;
    if (open.length >= depth) {
      while (open.length > depth) html += `</li></${open.pop()}>`;
      html += '</li>';
      if (open[open.length - 1] !== tag) {
        html += `</${open.pop()}><${tag}>`;
        open.push(tag);
      }
    } else {
      while (open.length < depth - 1) {
        html += `<${tag}><li>`;
        open.push(tag);
      }
      html += `<${tag}>`;
      open.push(tag);
    }
    html += `<li>${item.html}`;
  }
  while (open.length > 0) html += `</li></${open.pop()}>`;
  return html;
}
