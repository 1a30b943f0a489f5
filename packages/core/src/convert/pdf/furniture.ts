/**
 * Page furniture: running headers, footers and page numbers. They repeat in the top or bottom
 * margin of page after page, with only the numbers changing, and are dropped from the text.
 */
import type { Fragment, PageContent } from './extract.ts';
import { buildLines } from './geometry.ts';

/** The share of a page's height, at top and bottom, where furniture lives. */
const marginShare = 0.12;

const pageNumber =
  /^(?:[-–—]\s*)?(?:page\s+|p\.\s*|seite\s+)?(?:\d{1,4}|[ivxlc]{1,7})(?:\s*(?:\/|of|von|de)\s*\d{1,4})?(?:\s*[-–—])?$/i;

/** A line's text with numbers blurred, so "Page 3 of 9" and "Page 4 of 9" are the same line. */
const signature = (text: string) =>
  text
    .toLowerCase()
    .replace(/\d+/g, '#')
    .replace(/\b[ivxlc]{1,7}\b/g, '#')
    .replace(/\s+/g, ' ')
    .trim();

interface MarginLine {
  fragments: Fragment[];
  key: string;
  isPageNumber: boolean;
}

function marginLines(page: PageContent): MarginLine[] {
  const inMargin = page.fragments.filter(
    (fragment) =>
      fragment.y < page.height * marginShare || fragment.y > page.height * (1 - marginShare),
  );
  return buildLines(inMargin).map((line) => ({
    fragments: line.fragments,
    // Top and bottom are told apart: a footer line is not a header that happens to match.
    key: `${line.y < page.height / 2 ? 'top' : 'bottom'}:${signature(line.text)}`,
    // "Report 2024 · page 3" is furniture even on a one-page file, where nothing can repeat.
    isPageNumber:
      pageNumber.test(line.text) ||
      (line.text.length <= 80 &&
        /\bpage\s+\d{1,4}(?:\s*(?:\/|of)\s*\d{1,4})?\s*$/i.test(line.text)),
  }));
}

/**
 * Removes running headers and footers from every page, in place. A margin line counts as
 * furniture when the same line (numbers aside) is in the same margin on at least two pages and
 * at least 40 % of them, or when it is only a page number.
 *
 * @returns how many lines were removed
 */
export function removeFurniture(pages: PageContent[]): number {
  const perPage = pages.map(marginLines);
  const seenOn = new Map<string, number>();
  for (const lines of perPage) {
    for (const key of new Set(lines.map((line) => line.key)))
      seenOn.set(key, (seenOn.get(key) ?? 0) + 1);
  }
  const threshold = Math.max(2, Math.ceil(pages.length * 0.4));
  let removed = 0;
  pages.forEach((page, index) => {
    const drop = new Set<Fragment>();
    for (const line of perPage[index]!) {
      if (line.isPageNumber || (seenOn.get(line.key) ?? 0) >= threshold) {
        for (const fragment of line.fragments) drop.add(fragment);
        removed += 1;
      }
    }
    if (drop.size) page.fragments = page.fragments.filter((fragment) => !drop.has(fragment));
  });
  return removed;
}
