/**
 * What an agent run may still spend: model steps, pages, and credits. Credits are
 * counted as the server charges them: each search, map and page at its price, and the LLM tokens
 * of the whole run at the `llm_tokens` price per started thousand. `maxCredits` is a hard stop:
 * before anything that costs, the run asks whether it fits together with a reserve for one last
 * model call that writes the answer, so it can always stop and answer with what it has rather
 * than pass the budget.
 */
import type { PriceTable } from '../credits/prices.ts';
import type { LlmUsage } from '../interfaces/llm-provider.ts';

/** Work counted against the credits. */
export interface AgentSpend {
  searches: number;
  maps: number;
  /** Pages scraped or read by extract. */
  pages: number;
}

/** An amount of work not yet done, for `fits()`. */
export interface SpendEstimate {
  searches?: number;
  maps?: number;
  pages?: number;
  tokens?: number;
}

/** Credits of each kind a run spent. */
export interface AgentCredits {
  searches: number;
  maps: number;
  pages: number;
  tokens: number;
  total: number;
}

/** The limits of one run. */
export interface BudgetLimits {
  maxSteps: number;
  maxPages: number;
  /** Undefined: no credit limit beyond the steps and pages. */
  maxCredits: number | undefined;
}

/** A run's spending against its limits; reads and updates the run's own counters. */
export class AgentBudget {
  readonly limits: BudgetLimits;
  readonly #prices: PriceTable;
  readonly #spend: AgentSpend;
  readonly #usage: LlmUsage;

  /** `spend` and `usage` are the run's state, updated in place (and so checkpointed with it). */
  constructor(limits: BudgetLimits, prices: PriceTable, spend: AgentSpend, usage: LlmUsage) {
    this.limits = limits;
    this.#prices = prices;
    this.#spend = spend;
    this.#usage = usage;
  }

  /** Tokens used so far by the run (model steps and tools). */
  get tokens(): number {
    return this.#usage.inputTokens + this.#usage.outputTokens;
  }

  /** Pages read so far. */
  get pages(): number {
    return this.#spend.pages;
  }

  /** Credits spent so far, by kind. */
  credits(extra: SpendEstimate = {}): AgentCredits {
    const prices = this.#prices;
    const searches = prices.cost('search', this.#spend.searches + (extra.searches ?? 0));
    const maps = prices.cost('map', this.#spend.maps + (extra.maps ?? 0));
    const pages = prices.cost('scrape', this.#spend.pages + (extra.pages ?? 0));
    const tokens = prices.tokenCredits(this.tokens + (extra.tokens ?? 0));
    return { searches, maps, pages, tokens, total: searches + maps + pages + tokens };
  }

  /**
   * Whether `work` fits the credits with `reserveTokens` kept for the answer. Always true
   * without `maxCredits`.
   */
  fits(work: SpendEstimate, reserveTokens: number): boolean {
    if (this.limits.maxCredits === undefined) return true;
    const after = this.credits({ ...work, tokens: (work.tokens ?? 0) + reserveTokens });
    return after.total <= this.limits.maxCredits;
  }

  /** Pages the page budget still allows. */
  get pagesLeft(): number {
    return Math.max(0, this.limits.maxPages - this.#spend.pages);
  }

  /** Counts work done. */
  spend(work: Partial<AgentSpend>): void {
    this.#spend.searches += work.searches ?? 0;
    this.#spend.maps += work.maps ?? 0;
    this.#spend.pages += work.pages ?? 0;
  }

  /** Counts tokens used. */
  use(usage: LlmUsage | undefined): void {
    if (!usage) return;
    this.#usage.inputTokens += usage.inputTokens;
    this.#usage.outputTokens += usage.outputTokens;
  }
}
