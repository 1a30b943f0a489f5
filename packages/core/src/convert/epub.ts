/**
 * EPUB to HTML: an EPUB is a ZIP of XHTML documents, listed in reading order by the package
 * document's spine (found through META-INF/container.xml). Each spine document's body becomes
 * one section, in spine order; pictures are inlined as data URIs (as for Word files) because
 * their paths only mean something inside the package; links between the book's own documents
 * keep only their fragment. The navigation document is left out when the spine lists it, as
 * it repeats the headings.
 */
import render from 'dom-serializer';
import type { Element } from 'domhandler';
import { findAll, textContent } from 'domutils';
import { parseDocument } from 'htmlparser2';
import type JSZip from 'jszip';
import { posix } from 'node:path';
import { ValidationError } from '../errors.ts';
import { escapeHtml } from '../internal/html.ts';
import { openPackage, readXmlPart } from './ooxml.ts';
import { attribute, childAt, childElements, descendants } from './xml-walk.ts';
import { pictureDataUri } from './package-pictures.ts';

const documentTypes = new Set(['application/xhtml+xml', 'text/html']);

/** A manifest entry: where the file is and what it holds. */
interface ManifestItem {
  path: string;
  mediaType: string;
  properties: string;
}

/** The HTML of an EPUB file. @throws BAD_REQUEST for an unreadable book, CONTENT_TOO_LARGE for a zip bomb */
export async function epubHtml(bytes: Uint8Array): Promise<string> {
  const zip = openPackage(bytes, 'EPUB');
  const container = await readXmlPart(zip, 'META-INF/container.xml');
  const packagePath = attribute(descendants(container, 'rootfile')[0], 'full-path');
  const packageDocument = packagePath ? await readXmlPart(zip, packagePath) : undefined;
  if (!packagePath || !packageDocument)
    throw new ValidationError('The EPUB file has no package document (META-INF/container.xml)');
  const folder = posix.dirname(packagePath);
  const manifest = new Map<string, ManifestItem>();
  for (const item of childElements(childAt(packageDocument, 'manifest'), 'item')) {
    const href = attribute(item, 'href');
    if (!href) continue;
    manifest.set(attribute(item, 'id') ?? '', {
      path: resolvePath(folder, href),
      mediaType: attribute(item, 'media-type') ?? '',
      properties: attribute(item, 'properties') ?? '',
    });
  }
  const sections: string[] = [];
  for (const reference of childElements(childAt(packageDocument, 'spine'), 'itemref')) {
    if (attribute(reference, 'linear') === 'no') continue;
    const item = manifest.get(attribute(reference, 'idref') ?? '');
    if (!item || !documentTypes.has(item.mediaType) || /\bnav\b/.test(item.properties)) continue;
    const file = zip.file(item.path);
    if (file) sections.push(await chapterHtml(zip, item.path, await file.async('string')));
  }
  const title = descendants(childAt(packageDocument, 'metadata'), 'title')[0];
  const titleText = title ? textContent(title).trim() : '';
  return `<html><head>${titleText ? `<title>${escapeHtml(titleText)}</title>` : ''}</head><body>${sections.join('\n')}</body></html>`;
}

/** A package path from a reference relative to the file at `folder`, without its fragment. */
function resolvePath(folder: string, reference: string): string {
  const path = reference.split('#')[0] ?? '';
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // A stray % stays as written.
  }
  return posix.normalize(posix.join(folder, decoded)).replace(/^\.\//, '');
}

/** One spine document's body as a section, its pictures inlined and its own links made local. */
async function chapterHtml(zip: JSZip, path: string, xhtml: string): Promise<string> {
  // recognizeSelfClosing: XHTML writes <a id="x"/>, which HTML parsing would leave open.
  const document = parseDocument(xhtml, { recognizeSelfClosing: true });
  const body = findAll((element) => element.name === 'body', document.children)[0];
  if (!body) return '';
  const folder = posix.dirname(path);
  for (const element of findAll(() => true, body.children)) {
    await rewriteReference(zip, folder, element);
  }
  return `<section>${render(body.children, { encodeEntities: 'utf8' })}</section>`;
}

async function rewriteReference(zip: JSZip, folder: string, element: Element): Promise<void> {
  const isExternal = (value: string) => /^[a-z][a-z0-9+.-]*:/i.test(value);
  if (element.name === 'img' || element.name === 'image') {
    const key =
      element.name === 'img'
        ? 'src'
        : Object.keys(element.attribs).find((name) => name.endsWith('href'));
    const value = key ? element.attribs[key] : undefined;
    if (!key || !value || isExternal(value)) return;
    const target = resolvePath(folder, value);
    const picture = await pictureDataUri(zip, target);
    if (picture) element.attribs[key] = picture;
    else delete element.attribs[key];
    return;
  }
  if (element.name === 'a' && element.attribs['href'] !== undefined) {
    const href = element.attribs['href'];
    if (isExternal(href)) return;
    const fragment = href.split('#')[1];
    if (fragment) element.attribs['href'] = `#${fragment}`;
    else delete element.attribs['href'];
  }
}
