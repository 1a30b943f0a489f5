/**
 * Photo credits: "Foto: Jane Doe", "(crédito: …)", a `credit` span under a caption. A caption
 * says what the picture shows and is content; who took it is not, in either of our corpora.
 */
import { collapsedText, idAndClass, isTag, type Element } from '../dom.ts';
import type { TextStats } from './stats.ts';

// Longer than this, a block is more than a credit line.
const creditLength = 150;
const creditName = /(?:^|[\s_-])(?:credits?|bildnachweis|fotonachweis|photographer)(?:$|[\s_-])/;
// A label that names the picture's author; "Source:" is left alone (a chart's data source is
// content).
const creditLine =
  /^\(?\s*(?:fotos?|photos?|bild(?:er)?|images?|credits?|crédits?|crédito|fotografía)(?:\s*:|\s+(?:via|by|von)\b)/i;

/** True for a short credit line: named as one, or set in a caption and starting as one. */
export function isPhotoCredit(element: Element, stats: TextStats): boolean {
  if (stats.text === 0 || stats.text > creditLength || stats.paragraphs > 1) return false;
  // The credit goes, the picture stays.
  if (element.name === 'figure' || holdsImage(element)) return false;
  if (creditName.test(idAndClass(element))) return true;
  return inCaption(element) && creditLine.test(collapsedText(element));
}

function holdsImage(element: Element): boolean {
  for (const child of element.children) {
    if (!isTag(child)) continue;
    if (child.name === 'img' || child.name === 'picture' || holdsImage(child)) return true;
  }
  return false;
}

function inCaption(element: Element): boolean {
  let node: Element | null = element;
  for (let depth = 0; node && depth < 4; depth++) {
    if (node.name === 'figcaption' || node.name === 'figure') return true;
    if (idAndClass(node).includes('caption')) return true;
    node = node.parent && isTag(node.parent) ? node.parent : null;
  }
  return false;
}
