/**
 * An OpenDocument presentation's slide (`draw:page`) as HTML, as PPTX slides are read: the title
 * as a heading, the other frames and shapes top to bottom then left to right, then the speaker
 * notes under "Notes". Footer, date and slide-number frames are left out.
 */
import type { Element } from 'domhandler';
import { escapeHtml } from '../internal/html.ts';
import { blocksHtml, frameHtml, type OdfContext, textOf } from './odf.ts';
import { attribute, childAt, childElements, localName } from './xml-walk.ts';

/** Frames that repeat on every slide, like a page's running header and footer. */
const furnitureClasses = new Set(['footer', 'header', 'date-time', 'page-number', 'page']);

/** A length in ODF units (cm, mm, in, pt, pc, px) in centimetres, for ordering frames. */
function centimetres(length: string | undefined): number | undefined {
  const match = /^(-?[\d.]+)(cm|mm|in|pt|pc|px)?$/.exec(length ?? '');
  if (!match) return undefined;
  const factor = { cm: 1, mm: 0.1, in: 2.54, pt: 2.54 / 72, pc: 2.54 / 6, px: 2.54 / 96 }[
    (match[2] ?? 'cm') as 'cm'
  ];
  return Number(match[1]) * factor;
}

/** A slide: its title as a heading, its frames in reading order, then its notes. */
export function pageHtml(page: Element, number: number, context: OdfContext): string {
  const titles: string[] = [];
  const blocks: { x: number; y: number; index: number; html: string }[] = [];
  const visit = (parent: Element) => {
    for (const child of childElements(parent)) {
      const name = localName(child);
      if (name === 'g') {
        visit(child);
        continue;
      }
      if (name !== 'frame' && name !== 'custom-shape' && name !== 'rect') continue;
      const role = attribute(child, 'class') ?? '';
      if (furnitureClasses.has(role)) continue;
      if (role === 'title') {
        const title = textOf(child).replace(/\s+/g, ' ').trim();
        if (title) titles.push(title);
        continue;
      }
      // Shapes hold their text directly; frames hold it in a text box.
      const html =
        name === 'frame' ? frameHtml(child, context) : blocksHtml(childElements(child), context);
      if (html === '') continue;
      blocks.push({
        x: centimetres(attribute(child, 'x')) ?? Infinity,
        y: centimetres(attribute(child, 'y')) ?? Infinity,
        index: blocks.length,
        html,
      });
    }
  };
  visit(page);
  blocks.sort((a, b) => a.y - b.y || a.x - b.x || a.index - b.index);
  const notes = childElements(childAt(page, 'notes'), 'frame')
    .filter((frame) => attribute(frame, 'class') === 'notes')
    .map((frame) => frameHtml(frame, context))
    .join('');
  const heading = titles.length > 0 ? titles.join(' — ') : `Slide ${number}`;
  return `<section><h2>${escapeHtml(heading)}</h2>${blocks.map((block) => block.html).join('')}${notes ? `<h3>Notes</h3>${notes}` : ''}</section>`;
}
