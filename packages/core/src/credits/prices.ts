/**
 * The one price table: what every kind of work costs in credits. The ledger charges by it,
 * admission reserves by it, the agent's budget, monitor checks and their monthly estimates read
 * it; nothing else holds a price or rounds tokens into credits (a house test keeps it so).
 */
import type { CreditEndpoint, CreditPrices } from './options.ts';
import { creditPricesSchema } from './options.ts';

/** LLM tokens are charged per started block of this many. */
const tokensPerBlock = 1000;

/** Credits per kind of work, from configured prices (each unset one at its default). */
export class PriceTable {
  /** The configured price of each kind of work. */
  readonly prices: Readonly<CreditPrices>;

  constructor(prices: Partial<CreditPrices> | Readonly<CreditPrices> = {}) {
    this.prices = Object.freeze(creditPricesSchema.parse(prices));
  }

  /** What `units` of `endpoint` cost (pages for crawls, batch scrapes and monitor checks). */
  cost(endpoint: CreditEndpoint, units = 1): number {
    return this.prices[endpoint] * units;
  }

  /** Credits of `tokens` LLM tokens: the `llm_tokens` price per started thousand. */
  tokenCredits(tokens: number): number {
    return this.prices.llm_tokens * Math.ceil(Math.max(0, tokens) / tokensPerBlock);
  }

  /** Credits of one page a monitor check scrapes: dearer when a JSON extraction runs on it. */
  monitorPage(json: boolean): number {
    return json ? this.prices.monitor_json : this.prices.monitor;
  }
}

/** The prices when none are configured (a library user's monitors and agent runs). */
export const defaultPrices = new PriceTable();
