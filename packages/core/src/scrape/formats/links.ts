import type { FormatHandler } from './index.ts';

/** `links`: every http(s) link of the page, absolute and deduplicated. */
export const linksFormat: FormatHandler = {
  pageWide: 'links',
  apply(page, document) {
    document.links = page.links;
  },
};
