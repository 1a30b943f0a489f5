/**
 * `{ type: 'attributes', selectors: [{ selector, attribute }] }` → `doc.attributes`:
 * the values of an attribute on every element a CSS selector matches, over the whole page as
 * served. No model. `attribute: 'text'` (or `textContent`) gives the element's text.
 */
import { selectAll } from 'css-select';
import { textContent } from 'domutils';
import { z } from 'zod';
import { ValidationError } from '../../errors.ts';
import { parseHtml, type AnyNode, type Element } from '../../convert/dom.ts';
import type { FormatHandler } from './index.ts';
import { readSettings } from './llm-settings.ts';

const settingsSchema = z.object({
  selectors: z
    .array(
      z.strictObject({
        selector: z.string().min(1).max(1000),
        attribute: z.string().min(1).max(200),
      }),
    )
    .min(1)
    .max(100),
});

/** Most values kept per selector, so a selector like `*` cannot blow up the document. */
const maxValues = 1000;

export const attributesFormat: FormatHandler = {
  ensureAvailable(format, services) {
    const { selectors } = readSettings(settingsSchema, format, services.path);
    const probe = parseHtml('<p></p>');
    selectors.forEach(({ selector }, index) => {
      try {
        selectAll(selector, probe);
      } catch (error) {
        throw new ValidationError(
          `'${selector}' is not a CSS selector: ${(error as Error).message}`,
          {
            details: [
              {
                path: [...services.path, 'selectors', index, 'selector'],
                message: 'invalid CSS selector',
              },
            ],
          },
        );
      }
    });
  },
  apply(page, document, format) {
    const { selectors } = settingsSchema.parse(format);
    const dom = parseHtml(page.rawHtml);
    document.attributes = selectors.map(({ selector, attribute }) => {
      const values: string[] = [];
      for (const element of selectAll<AnyNode, Element>(selector, dom)) {
        const value =
          attribute === 'text' || attribute === 'textContent'
            ? textContent(element).trim()
            : element.attribs[attribute];
        if (value !== undefined) values.push(value);
        if (values.length >= maxValues) break;
      }
      return { selector, attribute, values };
    });
  },
};
