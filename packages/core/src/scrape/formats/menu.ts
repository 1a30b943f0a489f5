/**
 * `menu` → `doc.menu` (the spec's Parsed document shape): a restaurant's menu from the
 * page's schema.org data — `Restaurant`/`FoodEstablishment` → `hasMenu` → `Menu` →
 * `hasMenuSection` → `MenuSection` → `hasMenuItem` → `MenuItem` — in JSON-LD, microdata or RDFa,
 * with no model. With an LLM configured, a page without such markup is read by the model.
 * `metadata.menuSource` says which.
 */
import {
  all,
  nodesOfType,
  readSchemaNodes,
  text,
  type SchemaNode,
} from '../../convert/structured-data.ts';
import type { FormatHandler } from './index.ts';
import { warnOf } from './llm-settings.ts';
import { makePrice, parseAmount, readAvailability, type Price } from './product-profile.ts';

interface MenuItem {
  id: string;
  name: string;
  description?: string;
  images: { url: string; alt?: string }[];
  price?: Price;
  availability: { inStock: boolean; text?: string };
  dietary: string[];
  calories?: number;
  optionGroups: unknown[];
  identifiers: { merchantItemId?: string };
  url?: string;
  sourceUrl: string;
}

interface MenuSection {
  id: string;
  name: string;
  description?: string;
  items: MenuItem[];
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const slug = (value: string) =>
  value
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-|-$/g, '') || 'section';

/** `https://schema.org/VeganDiet` → `vegan`. */
const dietOf = (value: unknown) =>
  (text(value) ?? '')
    .replace(/^.*[/#:]/, '')
    .replace(/Diet$/, '')
    .toLowerCase();

function readItem(
  node: Record<string, unknown>,
  index: number,
  sourceUrl: string,
  currency: { value?: string },
): MenuItem {
  const name = text(node['name']) ?? `Item ${index + 1}`;
  const offer = all(node['offers']).find(isRecord);
  const amount = parseAmount(offer?.['price'] ?? node['price']);
  const itemCurrency = text(offer?.['priceCurrency']) ?? currency.value;
  if (itemCurrency) currency.value ??= itemCurrency;
  const nutrition = all(node['nutrition']).find(isRecord);
  const calories = parseAmount(nutrition?.['calories']);
  const description = text(node['description']);
  const id = text(node['identifier']) ?? text(node['sku']) ?? slug(name);
  const url = text(node['url']);
  return {
    id,
    name,
    ...(description ? { description } : {}),
    images: all(node['image']).flatMap((image) => {
      const src =
        typeof image === 'string'
          ? image
          : isRecord(image)
            ? text(image['url'] ?? image['contentUrl'])
            : undefined;
      return src ? [{ url: src }] : [];
    }),
    ...(amount !== undefined ? { price: makePrice(amount, itemCurrency) } : {}),
    availability: readAvailability(offer?.['availability']),
    dietary: all(node['suitableForDiet']).map(dietOf).filter(Boolean),
    ...(calories !== undefined ? { calories: Math.round(calories) } : {}),
    optionGroups: [],
    identifiers: text(node['identifier']) ? { merchantItemId: id } : {},
    ...(url ? { url } : {}),
    sourceUrl,
  };
}

/** The menu from schema.org nodes, or undefined when the page has none. */
function menuFromSchema(nodes: readonly SchemaNode[], pageUrl: string) {
  const menus = nodesOfType(nodes, ['Menu']);
  const sectionNodes = menus.length
    ? menus.flatMap((menu) => all(menu.data['hasMenuSection']).filter(isRecord))
    : nodesOfType(nodes, ['MenuSection']).map((node) => node.data);
  if (sectionNodes.length === 0) return undefined;
  const source = (menus[0] ?? nodesOfType(nodes, ['MenuSection'])[0])?.source ?? 'json-ld';
  const merchantNode = nodesOfType(nodes, [
    'Restaurant',
    'FoodEstablishment',
    'CafeOrCoffeeShop',
    'Bakery',
    'BarOrPub',
    'FastFoodRestaurant',
  ])[0];
  const currency: { value?: string } = {};
  const sections: MenuSection[] = sectionNodes.map((section, index) => {
    const name = text(section['name']) ?? `Section ${index + 1}`;
    const description = text(section['description']);
    return {
      id: slug(name),
      name,
      ...(description ? { description } : {}),
      items: all(section['hasMenuItem'])
        .filter(isRecord)
        .map((item, itemIndex) => readItem(item, itemIndex, pageUrl, currency)),
    };
  });
  const merchantName = merchantNode ? text(merchantNode.data['name']) : undefined;
  return {
    source,
    menu: {
      isMenu: true,
      confidence: 1,
      merchant: {
        name: merchantName ?? '',
        type: merchantNode?.types[0] ?? null,
      },
      currency: currency.value ?? text(merchantNode?.data['currenciesAccepted']) ?? null,
      sections,
      sourceUrl: pageUrl,
    },
  };
}

const llmSchema = {
  type: 'object',
  properties: {
    isMenu: { type: 'boolean' },
    restaurant: { type: ['string', 'null'] },
    currency: { type: ['string', 'null'] },
    sections: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          items: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                name: { type: 'string' },
                description: { type: ['string', 'null'] },
                price: { type: ['number', 'null'] },
              },
              required: ['name'],
            },
          },
        },
        required: ['name', 'items'],
      },
    },
  },
  required: ['isMenu', 'sections'],
};

interface LlmMenu {
  isMenu: boolean;
  restaurant?: string | null;
  currency?: string | null;
  sections: {
    name: string;
    items: { name: string; description?: string | null; price?: number | null }[];
  }[];
}

export const menuFormat: FormatHandler = {
  apply(page, document) {
    const found = menuFromSchema(readSchemaNodes(page.rawHtml, page.url), page.url);
    if (!found) return;
    document.menu = found.menu;
    document.metadata.menuSource = found.source;
  },
  async enrich({ text: pageText, runner, warnings }, document) {
    if (document.menu) return;
    if (!runner) {
      warnings.push(
        'The page publishes no schema.org menu data; configure an LLM to read menus from page text.',
      );
      return;
    }
    try {
      const answer = await runner.ask(
        {
          name: 'menu',
          instruction:
            'If this page is a restaurant or cafe menu, list its sections and their dishes with prices as numbers; set isMenu false otherwise.',
          schema: llmSchema,
        },
        pageText,
      );
      warnings.push(...answer.warnings);
      const read = answer.json as LlmMenu | undefined;
      if (!read) return;
      const sourceUrl = document.metadata.url;
      document.menu = {
        isMenu: read.isMenu,
        confidence: 0.7,
        merchant: { name: read.restaurant ?? '', type: null },
        currency: read.currency ?? null,
        sections: read.sections.map((section) => ({
          id: slug(section.name),
          name: section.name,
          items: section.items.map((item) => ({
            id: slug(item.name),
            name: item.name,
            ...(item.description ? { description: item.description } : {}),
            images: [],
            ...(typeof item.price === 'number'
              ? { price: makePrice(item.price, read.currency ?? undefined) }
              : {}),
            availability: { inStock: true },
            dietary: [],
            optionGroups: [],
            identifiers: {},
            sourceUrl,
          })),
        })),
        sourceUrl,
      };
      document.metadata.menuSource = 'llm';
    } catch (error) {
      warnings.push(warnOf('menu', error));
    }
  },
};
