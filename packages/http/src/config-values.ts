/**
 * How a configuration row reads its value: the row's shape, and the schemas that turn
 * environment strings into booleans, integers, lists and credit prices (config.ts).
 */
import { creditPricesSchema } from '@trawl/core/server';
import { z } from 'zod';

export interface ConfigRow<S extends z.ZodType = z.ZodType> {
  key: string;
  env: string;
  /** Other environment variables read for this setting when `env` is unset (older names). */
  aliases?: readonly string[];
  schema: S;
  description: string;
}

export const booleanFromEnv = z.union(
  [
    z.boolean(),
    z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1'),
  ],
  { error: 'give true or false (or 1 or 0)' },
);
export const integerFromEnv = z.coerce.number().int();

/** A comma-separated list in the environment, an array in the config file. */
export const listFromEnv = z.union([
  z.array(z.string().min(1)),
  z.string().transform((text) =>
    text
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean),
  ),
]);

/**
 * Credit prices: `scrape=2,crawl=1` in the environment, an object in the config file. Core's
 * schema checks the names and amounts and fills in the prices left out.
 */
export const pricesFromEnv = z
  .union([
    z.record(z.string(), z.unknown()),
    z.string().transform((text, context) => {
      const prices: Record<string, number> = {};
      for (const pair of text.split(',').map((item) => item.trim())) {
        if (pair === '') continue;
        const [name = '', amount = ''] = pair.split('=').map((part) => part.trim());
        if (name === '' || amount === '' || Number.isNaN(Number(amount))) {
          context.addIssue({
            code: 'custom',
            message: `expected name=credits pairs such as 'scrape=1,crawl=2' (got '${pair}')`,
          });
          return z.NEVER;
        }
        prices[name] = Number(amount);
      }
      return prices;
    }),
  ])
  .pipe(creditPricesSchema);
