import type { FormatHandler } from './index.ts';

/** `markdown`: GFM of the cleaned (by default main) content. */
export const markdownFormat: FormatHandler = {
  apply(page, document) {
    document.markdown = page.markdown;
  },
};
