import type { FormatHandler } from './index.ts';

/** `html`: the cleaned HTML that the markdown is made from. */
export const htmlFormat: FormatHandler = {
  apply(page, document) {
    document.html = page.html;
  },
};
