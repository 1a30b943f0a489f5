/**
 * Reading a product from what the page publishes (`product` format): schema.org
 * `Product` / `ProductGroup` with their `Offer`s in JSON-LD, microdata or RDFa, else OpenGraph
 * product tags (`og:title`, `product:price:amount` …). No model is involved; the format file
 * asks one only for what is still missing.
 */
import type { PageMetadata } from '../../convert/metadata.ts';
import { all, nodesOfType, text, typesOf, type SchemaNode } from '../../convert/structured-data.ts';

/** A price as the spec's product shape gives it. */
export interface Price {
  amount: number;
  currency?: string;
  formatted?: string;
}

/** One purchasable variant. */
export interface ProductVariant {
  id: string;
  sku?: string;
  title?: string;
  values: Record<string, string>;
  availability: { inStock: boolean; text?: string };
  images?: { url: string; alt?: string }[];
  price?: Price;
  sale?: { originalPrice: Price };
}

/** The spec's `product` object. */
export interface ProductProfile {
  title: string;
  url: string;
  brand?: string;
  category?: string;
  description?: string;
  variants: ProductVariant[];
}

/** What a product was read from. */
export type ProductSource = 'json-ld' | 'microdata' | 'rdfa' | 'opengraph';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A number from `12.50`, `"12,50"` or `"€ 1.299,00"`. */
export function parseAmount(value: unknown): number | undefined {
  const raw = text(value);
  if (raw === undefined) return undefined;
  let digits = raw.replace(/[^\d.,-]/g, '');
  // A comma followed by exactly two digits at the end is a decimal comma.
  if (/,\d{2}$/.test(digits)) digits = digits.replace(/\./g, '').replace(',', '.');
  else digits = digits.replace(/,/g, '');
  const amount = Number.parseFloat(digits);
  return Number.isFinite(amount) ? amount : undefined;
}

/** A price with its display form. */
export function makePrice(amount: number, currency: string | undefined): Price {
  let formatted = currency ? `${amount.toFixed(2)} ${currency}` : amount.toFixed(2);
  if (currency && /^[A-Z]{3}$/.test(currency)) {
    try {
      formatted = new Intl.NumberFormat('en', { style: 'currency', currency }).format(amount);
    } catch {
      // An unknown code keeps the plain form.
    }
  }
  return { amount, ...(currency ? { currency } : {}), formatted };
}

/** In stock unless schema.org or the page says otherwise. */
export function readAvailability(value: unknown): { inStock: boolean; text?: string } {
  const raw = text(value);
  if (raw === undefined) return { inStock: true };
  const short = raw.replace(/^.*[/#:]/, '');
  const outOfStock = /outofstock|out of stock|soldout|sold out|discontinued|^oos$|backorder/i.test(
    short.replace(/\s+/g, ' '),
  );
  return { inStock: !outOfStock, text: short };
}

/** Images of a node: strings or ImageObjects. */
function readImages(value: unknown): { url: string; alt?: string }[] {
  return all(value).flatMap((image) => {
    if (typeof image === 'string') return [{ url: image }];
    if (isRecord(image)) {
      const url = text(image['contentUrl'] ?? image['url'] ?? image['@id']);
      const alt = text(image['caption'] ?? image['name']);
      return url ? [{ url, ...(alt ? { alt } : {}) }] : [];
    }
    return [];
  });
}

/** Variant-defining properties schema.org names (`variesBy`). */
const valueProperties = ['color', 'size', 'material', 'pattern', 'suggestedAge', 'suggestedGender'];

/** Reads one offer (or price specification) into price, sale and availability. */
function readOffer(offer: Record<string, unknown>) {
  const specs = all(offer['priceSpecification']).filter(isRecord);
  const currency =
    text(offer['priceCurrency']) ?? specs.map((spec) => text(spec['priceCurrency'])).find(Boolean);
  // Google's markup for a reduced price: the list price as a StrikethroughPrice specification.
  const strike = specs.find((spec) =>
    /Strikethrough|ListPrice|SRP/i.test(text(spec['priceType']) ?? ''),
  );
  const current = specs.find((spec) => spec !== strike);
  const amount =
    parseAmount(offer['price']) ??
    parseAmount(offer['lowPrice']) ??
    (current ? parseAmount(current['price']) : undefined);
  const original = strike ? parseAmount(strike['price']) : undefined;
  return {
    ...(amount !== undefined ? { price: makePrice(amount, currency) } : {}),
    ...(original !== undefined && amount !== undefined && original > amount
      ? { sale: { originalPrice: makePrice(original, currency) } }
      : {}),
    availability: readAvailability(offer['availability']),
    sku: text(offer['sku']),
  };
}

/** One variant from a product node and one of its offers. */
function readVariant(
  product: Record<string, unknown>,
  offer: Record<string, unknown> | undefined,
  index: number,
): ProductVariant {
  const read = offer ? readOffer(offer) : { availability: { inStock: true }, sku: undefined };
  const sku =
    text(product['sku']) ?? read.sku ?? text(product['productID']) ?? text(product['mpn']);
  const values: Record<string, string> = {};
  for (const property of valueProperties) {
    const value = text(product[property]) ?? (offer ? text(offer[property]) : undefined);
    if (value) values[property] = value;
  }
  const images = readImages(product['image']);
  const title = text(offer?.['name']) ?? text(product['name']);
  return {
    id: sku ?? text(offer?.['@id']) ?? String(index + 1),
    ...(sku ? { sku } : {}),
    ...(title ? { title } : {}),
    values,
    availability: read.availability,
    ...(images.length > 0 ? { images } : {}),
    ...('price' in read && read.price ? { price: read.price } : {}),
    ...('sale' in read && read.sale ? { sale: read.sale } : {}),
  };
}

/** Variants of a Product or ProductGroup: its hasVariant products, else one per offer. */
function readVariants(product: Record<string, unknown>): ProductVariant[] {
  const variants = all(product['hasVariant']).filter(isRecord);
  if (variants.length > 0)
    return variants.flatMap((variant, index) =>
      readVariantsOfOne({ ...product, ...variant, hasVariant: undefined }, index),
    );
  return readVariantsOfOne(product, 0);
}

function readVariantsOfOne(product: Record<string, unknown>, start: number): ProductVariant[] {
  const offers = all(product['offers'])
    .filter(isRecord)
    .flatMap((offer) =>
      typesOf(offer).includes('AggregateOffer') && all(offer['offers']).some(isRecord)
        ? all(offer['offers']).filter(isRecord)
        : [offer],
    );
  if (offers.length === 0) return [readVariant(product, undefined, start)];
  return offers.map((offer, index) => readVariant(product, offer, start + index));
}

/** The page's product from schema.org nodes, with the syntax it came from. */
export function productFromSchema(
  nodes: readonly SchemaNode[],
  pageUrl: string,
): { product: ProductProfile; source: ProductSource } | undefined {
  const found = nodesOfType(nodes, ['ProductGroup', 'Product']).sort(
    // A ProductGroup holds the variants; otherwise the first Product is the page's own.
    (a, b) => Number(b.types.includes('ProductGroup')) - Number(a.types.includes('ProductGroup')),
  )[0];
  if (!found) return undefined;
  const node = found.data;
  const title = text(node['name']);
  if (!title) return undefined;
  const brand = text(node['brand']) ?? text(node['manufacturer']);
  const category = text(node['category']);
  const description = text(node['description']);
  return {
    source: found.source,
    product: {
      title,
      url: text(node['url']) ?? pageUrl,
      ...(brand ? { brand } : {}),
      ...(category ? { category } : {}),
      ...(description ? { description } : {}),
      variants: readVariants(node),
    },
  };
}

/** A product from OpenGraph product tags, when the page has `og:type` product or a price tag. */
export function productFromOpenGraph(
  metadata: PageMetadata,
  pageUrl: string,
): ProductProfile | undefined {
  const meta = (key: string) => {
    const value = metadata[key];
    return typeof value === 'string' ? value : Array.isArray(value) ? value[0] : undefined;
  };
  const amount = parseAmount(meta('product:price:amount') ?? meta('og:price:amount'));
  const isProduct = /product/i.test(meta('og:type') ?? '') || amount !== undefined;
  const title =
    meta('og:title') ?? (typeof metadata.title === 'string' ? metadata.title : undefined);
  if (!isProduct || !title) return undefined;
  const currency = meta('product:price:currency') ?? meta('og:price:currency');
  const original = parseAmount(meta('product:original_price:amount'));
  const sku = meta('product:retailer_item_id');
  const image = meta('og:image');
  const brand = meta('product:brand');
  const category = meta('product:category');
  const description = meta('og:description');
  const availability = meta('product:availability') ?? meta('og:availability');
  return {
    title,
    url: meta('og:url') ?? pageUrl,
    ...(brand ? { brand } : {}),
    ...(category ? { category } : {}),
    ...(description ? { description } : {}),
    variants: [
      {
        id: sku ?? '1',
        ...(sku ? { sku } : {}),
        title,
        values: {},
        availability: readAvailability(availability),
        ...(image ? { images: [{ url: image }] } : {}),
        ...(amount !== undefined ? { price: makePrice(amount, currency) } : {}),
        ...(original !== undefined && amount !== undefined && original > amount
          ? { sale: { originalPrice: makePrice(original, currency) } }
          : {}),
      },
    ],
  };
}
