/**
 * Pictures inside a document package (EPUB, ODF, PPTX) as data URIs: inline, as mammoth does for
 * Word, so the image formats and `removeBase64Images` treat them as they treat a Word document's.
 */
import type JSZip from 'jszip';
import { posix } from 'node:path';

/** The picture formats every browser shows, by file extension. */
export const webPictureTypes: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  svg: 'image/svg+xml',
  webp: 'image/webp',
};

/** The package's entry at `path` as a data URI; undefined when it is absent or not in `types`. */
export async function pictureDataUri(
  zip: JSZip,
  path: string,
  types: Readonly<Record<string, string>> = webPictureTypes,
): Promise<string | undefined> {
  const type = types[posix.extname(path).slice(1).toLowerCase()];
  const file = zip.file(path);
  return type && file ? `data:${type};base64,${await file.async('base64')}` : undefined;
}
