/**
 * The formats that need no model: `product` and `menu` read from the schema.org data
 * and OpenGraph tags real shops and restaurants publish, `attributes` from CSS selectors, and
 * `highlights` by BM25 over the page's paragraphs; and the LLM-only formats refused with
 * NOT_CONFIGURED naming the settings when no model is configured.
 */
import { describe, expect, inject, it } from 'vitest';
import { scrape, type ScrapeOptions, type TrawlError } from '@trawl/core';

/** The error a scrape throws (the test fails when it does not throw). */
const failureOf = (url: string, options: ScrapeOptions) =>
  scrape(url, options).then(
    () => {
      throw new Error('expected the scrape to fail');
    },
    (error: unknown) => error as TrawlError,
  );

const site = inject('fixtureUrl');
const page = (path: string) => `${site}${path}`;

type Variant = {
  sku?: string;
  values: Record<string, string>;
  availability: { inStock: boolean };
  price?: { amount: number; currency?: string; formatted?: string };
  sale?: { originalPrice: { amount: number } };
};
type Product = { title: string; brand?: string; category?: string; variants: Variant[] };

const productOf = async (path: string) => {
  const doc = await scrape(page(path), { formats: ['product'] });
  return { product: doc.product as Product, source: doc.metadata['productSource'] };
};

describe('product without an LLM', () => {
  it('reads a JSON-LD Product with one offer', async () => {
    const { product, source } = await productOf('/shop/trail-runner.html');
    expect(source).toBe('json-ld');
    expect(product).toMatchObject({
      title: 'Ridgeline Trail Runner 3',
      brand: 'Northpeak',
      category: 'Shoes > Running > Trail',
    });
    expect(product.variants).toHaveLength(1);
    expect(product.variants[0]).toMatchObject({
      sku: 'NP-RTR3-BLK-42',
      availability: { inStock: true },
      price: { amount: 139, currency: 'USD', formatted: '$139.00' },
    });
  });

  it('reads microdata with a decimal-comma shop', async () => {
    const { product, source } = await productOf('/shop/espresso-grinder.html');
    expect(source).toBe('microdata');
    expect(product).toMatchObject({ title: 'Mühle Präzision 64', brand: 'Kaffeewerk' });
    expect(product.variants[0]).toMatchObject({
      sku: 'KW-P64-SLV',
      availability: { inStock: true },
      price: { amount: 449, currency: 'EUR' },
    });
  });

  it('reads OpenGraph product tags when the page has no schema.org data', async () => {
    const { product, source } = await productOf('/shop/linen-shirt.html');
    expect(source).toBe('opengraph');
    expect(product).toMatchObject({ title: 'Washed Linen Shirt – Sand', brand: 'Fable & Thread' });
    expect(product.variants[0]).toMatchObject({
      sku: 'FT-LS-SAND',
      availability: { inStock: true },
      price: { amount: 68, currency: 'GBP' },
    });
  });

  it('gives each variant of a ProductGroup with its own values, price and stock', async () => {
    const { product } = await productOf('/shop/merino-hoodie.html');
    expect(product).toMatchObject({ title: 'Merino Travel Hoodie', brand: 'Summit Wool Co.' });
    expect(product.variants.map((variant) => variant.sku)).toEqual([
      'SW-MTH-CHAR-M',
      'SW-MTH-CHAR-L',
      'SW-MTH-MOSS-M',
    ]);
    expect(product.variants[1]).toMatchObject({
      values: { color: 'Charcoal', size: 'L' },
      availability: { inStock: false },
    });
    expect(product.variants[2]?.price?.amount).toBe(134);
  });

  it('reads a sale price and the struck-through original from an @graph', async () => {
    const { product } = await productOf('/shop/noise-cancelling-headphones.html');
    expect(product).toMatchObject({ title: 'Aurora ANC 700 Wireless Headphones', brand: 'Aurora' });
    expect(product.variants[0]).toMatchObject({
      price: { amount: 199.99, currency: 'EUR' },
      sale: { originalPrice: { amount: 279 } },
    });
  });

  it('reads RDFa and says out of stock', async () => {
    const { product, source } = await productOf('/shop/cast-iron-skillet.html');
    expect(source).toBe('rdfa');
    expect(product).toMatchObject({
      title: 'Pre-seasoned Cast Iron Skillet 26 cm',
      brand: 'Hearth & Pan',
    });
    expect(product.variants[0]).toMatchObject({
      sku: 'HP-CI-26',
      availability: { inStock: false },
      price: { amount: 54.95 },
    });
  });

  it('warns, and sets no product, on a page without product data', async () => {
    const doc = await scrape(page('/articles/plain.html'), { formats: ['product'] });
    expect(doc.product).toBeUndefined();
    expect(doc.warning).toMatch(/no schema\.org or OpenGraph product data/);
  });
});

type Menu = {
  isMenu: boolean;
  merchant: { name: string };
  currency: string | null;
  sections: {
    name: string;
    items: {
      name: string;
      price?: { amount: number };
      dietary: string[];
      calories?: number;
      availability: { inStock: boolean };
    }[];
  }[];
};

describe('menu without an LLM', () => {
  it('reads a JSON-LD Restaurant menu with sections, diets, calories and a sold-out dish', async () => {
    const doc = await scrape(page('/restaurants/trattoria.html'), { formats: ['menu'] });
    const menu = doc.menu as Menu;
    expect(doc.metadata['menuSource']).toBe('json-ld');
    expect(menu).toMatchObject({
      isMenu: true,
      merchant: { name: 'Trattoria Sole' },
      currency: 'GBP',
    });
    expect(menu.sections.map((section) => section.name)).toEqual(['Antipasti', 'Pasta']);
    expect(menu.sections[0]?.items[0]).toMatchObject({
      name: 'Bruschetta al pomodoro',
      price: { amount: 7.5 },
      dietary: ['vegan'],
    });
    expect(menu.sections[1]?.items[0]?.calories).toBe(780);
    expect(menu.sections[1]?.items[1]?.availability.inStock).toBe(false);
  });

  it('reads a microdata menu', async () => {
    const doc = await scrape(page('/restaurants/noodle-bar.html'), { formats: ['menu'] });
    const menu = doc.menu as Menu;
    expect(doc.metadata['menuSource']).toBe('microdata');
    expect(menu.merchant.name).toBe('Kumo Noodle Bar');
    expect(menu.sections.map((section) => section.items.map((item) => item.name))).toEqual([
      ['Tonkotsu Ramen', 'Shoyu Ramen'],
      ['Gyoza (6)'],
    ]);
    expect(menu.sections[1]?.items[0]).toMatchObject({
      price: { amount: 8.5 },
      dietary: ['vegetarian'],
    });
  });

  it('reads a menu linked by @id inside an @graph, with decimal commas', async () => {
    const doc = await scrape(page('/restaurants/bakery-cafe.html'), { formats: ['menu'] });
    const menu = doc.menu as Menu;
    expect(menu.merchant.name).toBe('Boulangerie Delmas');
    expect(menu.currency).toBe('EUR');
    expect(menu.sections[0]?.items.map((item) => item.price?.amount)).toEqual([1.4, 1.6]);
    expect(menu.sections[1]?.items[0]?.name).toBe('Café crème');
  });
});

describe('attributes', () => {
  it('gives the values of each selector’s attribute over the whole page', async () => {
    const doc = await scrape(page('/shop/trail-runner.html'), {
      formats: [
        {
          type: 'attributes',
          selectors: [
            { selector: 'img', attribute: 'alt' },
            { selector: 'nav a', attribute: 'href' },
            { selector: '.price', attribute: 'text' },
          ],
        },
      ],
    });
    expect(doc.attributes).toEqual([
      { selector: 'img', attribute: 'alt', values: ['Ridgeline Trail Runner 3, side view'] },
      {
        selector: 'nav a',
        attribute: 'href',
        values: ['/', '/shop/', '/cart', '/shop/', '/shop/'],
      },
      { selector: '.price', attribute: 'text', values: ['$139.00'] },
    ]);
  });

  it('refuses a selector that is not CSS before fetching, naming its path', async () => {
    const error = await failureOf(page('/shop/trail-runner.html'), {
      formats: [{ type: 'attributes', selectors: [{ selector: 'a[[', attribute: 'href' }] }],
    });
    expect(error).toMatchObject({ code: 'BAD_REQUEST' });
    expect(error.details).toEqual([
      expect.objectContaining({ path: ['formats', 0, 'selectors', 0, 'selector'] }),
    ]);
  });
});

/** Ten questions about the long article, and words its best passage must contain. */
const highlightCases: [query: string, answer: string][] = [
  ['When was the TTP timetable planner written and by whom?', '1998'],
  ['How many passengers rely on the timetable each weekday?', '41,000'],
  ['What rule applied to trains terminating at Ashby?', '23:10'],
  ['How many archived timetables were treated as the specification?', '412 in all'],
  ['Why was the 2016 replacement attempt abandoned?', 'abandoned after eight months'],
  ['Which programming languages did the team choose?', 'Python for the engine'],
  ['How many differences did the comparison script find in its first run?', '1,906'],
  ['How was the daylight saving clocks bug fixed?', 'astimezone'],
  ['Where is the old TTP server now?', 'heritage centre'],
  ['Connections at Millford and the footbridge', 'footbridge'],
];

describe('highlights without an LLM', () => {
  it('puts a passage answering the query first in at least 8 of 10 cases', async () => {
    let answered = 0;
    const misses: string[] = [];
    for (const [query, answer] of highlightCases) {
      const doc = await scrape(page('/articles/heavy-boilerplate.html'), {
        formats: [{ type: 'highlights', query }],
      });
      const top = doc.highlights?.split('\n\n')[0] ?? '';
      if (top.includes(answer)) answered += 1;
      else misses.push(`${query} → ${top.slice(0, 80)}`);
    }
    expect(answered, misses.join('\n')).toBeGreaterThanOrEqual(8);
  });
});

describe('LLM formats without an LLM', () => {
  it.each([
    ['json', { type: 'json', prompt: 'the title' }],
    ['summary', 'summary'],
    ['question', { type: 'question', question: 'What is it?' }],
    ['query', { type: 'query', prompt: 'What is it?' }],
  ] as const)(
    'refuses %s with NOT_CONFIGURED naming the llmBaseUrl and llmModel options',
    async (_name, format) => {
      const error = await failureOf(page('/articles/plain.html'), { formats: [format] });
      expect(error).toMatchObject({ code: 'NOT_CONFIGURED' });
      expect(error.message).toMatch(/llmBaseUrl/);
      expect(error.message).toMatch(/llmModel/);
    },
  );

  it('refuses an invalid JSON Schema with BAD_REQUEST naming its path, before anything else', async () => {
    const error = await failureOf(page('/articles/plain.html'), {
      formats: [
        'markdown',
        { type: 'json', schema: { type: 'object', properties: { price: { type: 'money' } } } },
      ],
    });
    expect(error).toMatchObject({ code: 'BAD_REQUEST' });
    expect(error.message).toContain('formats.1.schema');
    expect(error.message).toContain('properties');
  });

  it('refuses a schema of 1 MB and a prompt of 100 KB with BAD_REQUEST', async () => {
    const huge = { type: 'object', description: 'x'.repeat(1024 * 1024) };
    for (const format of [
      { type: 'json', schema: huge },
      { type: 'json', prompt: 'y'.repeat(100 * 1024) },
    ] as const) {
      const error = await failureOf(page('/articles/plain.html'), { formats: [format] });
      expect(error).toMatchObject({ code: 'BAD_REQUEST' });
    }
  });
});
