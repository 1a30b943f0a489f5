/**
 * Reading an Office package (OOXML, and ODF's content.xml): its XML parts as elements (walked
 * with xml-walk.ts), its relationships, and the nested lists the HTML writers share.
 */
import type { Element } from 'domhandler';
import type JSZip from 'jszip';
import { posix } from 'node:path';
import { openZip } from './zip.ts';
import { attribute, childElements, parseXml } from './xml-walk.ts';

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
