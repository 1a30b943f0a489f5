import type { FormatHandler } from './index.ts';

/** `rawHtml`: the page as served, decoded to text. */
export const rawHtmlFormat: FormatHandler = {
  apply(page, document) {
    document.rawHtml = page.rawHtml;
  },
};
