/**
 * `product` → `doc.product` (the spec's Parsed document shape): read from the page's
 * schema.org data (JSON-LD, microdata, RDFa) or OpenGraph product tags with no model, so it works
 * offline on most shop pages. With an LLM configured, what the markup leaves out (no markup at
 * all, no brand, no price) is asked of the model. `metadata.productSource` says where it came
 * from: `json-ld`, `microdata`, `rdfa`, `opengraph`, `llm`, or one of them `+llm`.
 */
import { readSchemaNodes } from '../../convert/structured-data.ts';
import type { FormatHandler } from './index.ts';
import { warnOf } from './llm-settings.ts';
import {
  makePrice,
  productFromOpenGraph,
  productFromSchema,
  type ProductProfile,
} from './product-profile.ts';

const llmSchema = {
  type: 'object',
  properties: {
    title: { type: ['string', 'null'] },
    brand: { type: ['string', 'null'] },
    category: { type: ['string', 'null'] },
    description: { type: ['string', 'null'] },
    price: { type: ['number', 'null'] },
    currency: { type: ['string', 'null'] },
    inStock: { type: ['boolean', 'null'] },
  },
  required: ['title'],
};

interface LlmProduct {
  title?: string | null;
  brand?: string | null;
  category?: string | null;
  description?: string | null;
  price?: number | null;
  currency?: string | null;
  inStock?: boolean | null;
}

/** Whether the markup left something a model could add. */
const hasGaps = (product: ProductProfile | undefined) =>
  !product ||
  !product.brand ||
  !product.description ||
  product.variants.every((variant) => !variant.price);

export const productFormat: FormatHandler = {
  apply(page, document) {
    const fromSchema = productFromSchema(readSchemaNodes(page.rawHtml, page.url), page.url);
    if (fromSchema) {
      document.product = fromSchema.product;
      document.metadata.productSource = fromSchema.source;
      return;
    }
    const fromOpenGraph = productFromOpenGraph(page.metadata, page.url);
    if (fromOpenGraph) {
      document.product = fromOpenGraph;
      document.metadata.productSource = 'opengraph';
    }
  },
  async enrich({ text, runner, warnings }, document) {
    const product = document.product as ProductProfile | undefined;
    if (!runner) {
      if (!product)
        warnings.push(
          'The page publishes no schema.org or OpenGraph product data; configure an LLM to read products from page text.',
        );
      return;
    }
    if (!hasGaps(product)) return;
    try {
      const answer = await runner.ask(
        {
          name: 'product',
          instruction:
            'Read the product this page sells: its title, brand, category, a one-sentence description, the current price as a number with its ISO currency code, and whether it is in stock.',
          schema: llmSchema,
        },
        text,
      );
      warnings.push(...answer.warnings);
      const read = (answer.json ?? {}) as LlmProduct;
      if (!product) {
        if (!read.title) return;
        document.product = {
          title: read.title,
          url: document.metadata.url,
          ...(read.brand ? { brand: read.brand } : {}),
          ...(read.category ? { category: read.category } : {}),
          ...(read.description ? { description: read.description } : {}),
          variants: [
            {
              id: '1',
              title: read.title,
              values: {},
              availability: { inStock: read.inStock ?? true },
              ...(typeof read.price === 'number'
                ? { price: makePrice(read.price, read.currency ?? undefined) }
                : {}),
            },
          ],
        };
        document.metadata.productSource = 'llm';
        return;
      }
      // The markup wins; the model only fills what it left empty.
      if (!product.brand && read.brand) product.brand = read.brand;
      if (!product.category && read.category) product.category = read.category;
      if (!product.description && read.description) product.description = read.description;
      const variant = product.variants[0];
      if (variant && !variant.price && typeof read.price === 'number')
        variant.price = makePrice(read.price, read.currency ?? undefined);
      document.metadata.productSource = `${String(document.metadata.productSource)}+llm`;
    } catch (error) {
      warnings.push(warnOf('product', error));
    }
  },
};
