import type { FormatHandler } from './index.ts';

/** `images`: every image URL of the page, absolute and deduplicated. */
export const imagesFormat: FormatHandler = {
  pageWide: 'images',
  apply(page, document) {
    document.images = page.images;
  },
};
