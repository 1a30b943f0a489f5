import type { FormatHandler } from './index.ts';

/**
 * `branding`: colors, fonts, typography, spacing, components, images and logo, read from the
 * computed styles of the rendered page (browser/branding.ts).
 */
export const brandingFormat: FormatHandler = {
  render() {
    return { branding: true };
  },
  applyRendered(rendered, document) {
    if (rendered.branding !== undefined) document.branding = rendered.branding;
  },
};
