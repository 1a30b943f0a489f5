import type { FormatHandler } from './index.ts';

/**
 * `screenshot`: the page as the browser shows it after waits and actions, the viewport or the
 * whole page (`fullPage`), PNG, or JPEG when `quality` is given. The server answers with a URL
 * it serves for a day, the library with a data URI.
 */
export const screenshotFormat: FormatHandler = {
  render(format) {
    // scrapeOptionsSchema checked the object form and applied its defaults; the bare name
    // "screenshot" is a viewport shot.
    if (!('fullPage' in format)) return { screenshot: { fullPage: false } };
    return {
      screenshot: { fullPage: format.fullPage, quality: format.quality, viewport: format.viewport },
    };
  },
  applyRendered(rendered, document) {
    if (rendered.screenshot !== undefined) document.screenshot = rendered.screenshot;
  },
};
