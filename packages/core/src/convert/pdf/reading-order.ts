/**
 * Reading order on a page by recursive cuts through the whitespace. The page is sliced into
 * horizontal bands at every vertical gap; consecutive bands that leave the same vertical gutter
 * open are one column set, which is split at that gutter and read left column first (right column
 * first on a right-to-left page: Arabic, Hebrew). A full-width
 * line (a title, a figure caption) closes a column set, so a title above two columns is read
 * first and the columns after it, each top to bottom.
 */
import { type Box, median } from './geometry.ts';

export interface Unit {
  box: Box;
}

interface Interval {
  from: number;
  to: number;
}

/** Free horizontal intervals of a band within [left, right]: where no unit of the band is. */
function freeIntervals(units: Unit[], left: number, right: number, minWidth: number): Interval[] {
  const sorted = [...units].sort((a, b) => a.box.left - b.box.left);
  const free: Interval[] = [];
  let reach = left;
  for (const unit of sorted) {
    if (unit.box.left - reach >= minWidth) free.push({ from: reach, to: unit.box.left });
    reach = Math.max(reach, unit.box.right);
  }
  if (right - reach >= minWidth) free.push({ from: reach, to: right });
  return free;
}

function intersect(a: Interval[], b: Interval[], minWidth: number): Interval[] {
  const result: Interval[] = [];
  for (const x of a) {
    for (const y of b) {
      const from = Math.max(x.from, y.from);
      const to = Math.min(x.to, y.to);
      if (to - from >= minWidth) result.push({ from, to });
    }
  }
  return result;
}

/** Splits units into bands wherever no unit spans a vertical gap. */
function bands(units: Unit[]): Unit[][] {
  const sorted = [...units].sort((a, b) => a.box.top - b.box.top);
  const result: Unit[][] = [];
  let reach = -Infinity;
  for (const unit of sorted) {
    if (unit.box.top >= reach - 0.5) result.push([unit]);
    else result.at(-1)!.push(unit);
    reach = Math.max(reach, unit.box.bottom);
  }
  return result;
}

/**
 * Units in reading order, as groups read top to bottom (a group is a band or a column's worth of
 * bands that could not be split further).
 *
 * @param gutter the narrowest whitespace that can separate two columns, in points
 * @param rightToLeft whether the page's script runs right to left, so its columns do too
 */
export function readingOrder<T extends Unit>(
  units: T[],
  gutter: number,
  rightToLeft = false,
  depth = 0,
): T[][] {
  if (units.length <= 1 || depth > 12) return units.length ? [units] : [];
  const left = Math.min(...units.map((unit) => unit.box.left));
  const right = Math.max(...units.map((unit) => unit.box.right));
  const interior = (intervals: Interval[]) =>
    intervals.filter((interval) => interval.from > left + 0.5 && interval.to < right - 0.5);
  const ordered: T[][] = [];
  let region: T[] = [];
  let open: Interval[] = [];
  const closeRegion = () => {
    if (region.length)
      ordered.push(...splitRegion(region, interior(open), gutter, rightToLeft, depth));
    region = [];
    open = [];
  };
  for (const band of bands(units) as T[][]) {
    const free = freeIntervals(band, left, right, gutter);
    const shared = region.length ? interior(intersect(open, free, gutter)) : [];
    if (region.length && shared.length) {
      region.push(...band);
      open = shared;
    } else {
      closeRegion();
      region = [...band];
      open = free;
    }
  }
  closeRegion();
  return ordered;
}

function splitRegion<T extends Unit>(
  region: T[],
  gutters: Interval[],
  gutter: number,
  rightToLeft: boolean,
  depth: number,
): T[][] {
  const left = Math.min(...region.map((unit) => unit.box.left));
  const right = Math.max(...region.map((unit) => unit.box.right));
  const width = right - left;
  // The widest gutter whose two sides are both real columns (not a list's bullets beside their text).
  const candidates = [...gutters].sort((a, b) => b.to - b.from - (a.to - a.from));
  for (const candidate of candidates) {
    const middle = (candidate.from + candidate.to) / 2;
    const leftSide = region.filter((unit) => unit.box.right <= middle);
    const rightSide = region.filter((unit) => unit.box.left >= middle);
    const sideWidth = (side: T[]) =>
      side.length
        ? Math.max(...side.map((unit) => unit.box.right)) -
          Math.min(...side.map((unit) => unit.box.left))
        : 0;
    // Columns run side by side for several lines; a wide gap in one justified line does not.
    const sideBySide = bands(region).filter(
      (band) =>
        band.some((unit) => unit.box.right <= middle) &&
        band.some((unit) => unit.box.left >= middle),
    ).length;
    if (
      leftSide.length + rightSide.length === region.length &&
      sideWidth(leftSide) >= width * 0.2 &&
      sideWidth(rightSide) >= width * 0.2 &&
      sideBySide >= 2
    ) {
      const [first, second] = rightToLeft ? [rightSide, leftSide] : [leftSide, rightSide];
      return [
        ...readingOrder(first, gutter, rightToLeft, depth + 1),
        ...readingOrder(second, gutter, rightToLeft, depth + 1),
      ];
    }
  }
  return [region.sort((a, b) => a.box.top - b.box.top || a.box.left - b.box.left)];
}

/** The narrowest column gutter for a page whose text is mostly `size` points. */
export const gutterFor = (sizes: number[]) => Math.max(4, median(sizes) * 0.6);
