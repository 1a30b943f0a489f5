/**
 * List bullets drawn as shapes. Browsers (Chromium's print to PDF) and some layout engines paint
 * a list item's disc or square as a small filled path rather than a "•" glyph, so the text
 * layer holds the items' words with nothing to say they are items, and a list reads as one
 * paragraph. A small, roughly square filled shape just left of a line's first word, within that
 * line's height, is taken as its bullet and given to the text as a "•" fragment, which the list
 * finder then reads as it reads a glyph.
 */
import type { Fragment } from './extract.ts';

/** A small filled shape (a dot or a square), in top-down page coordinates: maybe a drawn bullet. */
export interface Mark {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** A bullet's size in points: a disc for 8 to 24 pt text is about 2 to 8 pt across. */
const smallest = 1.5;
const largest = 9;

/** A mark from a filled path's points (top-down page coordinates), if it is small and squarish. */
export function markOf(points: readonly (readonly [number, number])[]): Mark | undefined {
  if (points.length < 3) return undefined;
  let [left, right, top, bottom] = [Infinity, -Infinity, Infinity, -Infinity];
  for (const [x, y] of points) {
    left = Math.min(left, x);
    right = Math.max(right, x);
    top = Math.min(top, y);
    bottom = Math.max(bottom, y);
  }
  const [width, height] = [right - left, bottom - top];
  if (width < smallest || height < smallest || width > largest || height > largest)
    return undefined;
  if (width > height * 1.5 || height > width * 1.5) return undefined;
  return { left, right, top, bottom };
}

/**
 * The fragments with a "•" before each line a mark stands in front of: the mark's middle within
 * the line's height, the gap to the line's first word under three of its ems, no word between.
 */
export function withDrawnBullets(fragments: Fragment[], marks: readonly Mark[]): Fragment[] {
  if (marks.length === 0 || marks.length > 2_000) return fragments;
  const bullets: Fragment[] = [];
  for (const mark of marks) {
    const middle = (mark.top + mark.bottom) / 2;
    const sameLine = fragments.filter(
      (fragment) =>
        middle <= fragment.y + fragment.size * 0.1 &&
        middle >= fragment.y - fragment.size * 0.9 &&
        // The mark is smaller than the line's text, as a bullet is.
        mark.bottom - mark.top <= fragment.size,
    );
    const next = sameLine
      .filter((fragment) => fragment.x >= mark.right - 0.5)
      .sort((a, b) => a.x - b.x)[0];
    if (!next || next.x - mark.right > next.size * 3) continue;
    // A word left of the mark on the same line: a mark inside text (a separator dot), not a bullet.
    if (
      sameLine.some(
        (fragment) =>
          fragment.x < mark.left && fragment.x + fragment.width > mark.left - next.size * 3,
      )
    )
      continue;
    bullets.push({
      text: '•',
      x: mark.left,
      y: next.y,
      width: mark.right - mark.left,
      size: next.size,
      bold: false,
    });
  }
  return bullets.length === 0 ? fragments : [...fragments, ...bullets];
}
