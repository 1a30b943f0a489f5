/**
 * Admission: the one step every piece of paid work passes before it starts. `admit(team, work)`
 * checks the team's daily LLM token cap (for work that can call a model) and reserves what the
 * work may cost against the team's credits, atomically (in `Counters`: per process in memory,
 * across processes in Redis or PostgreSQL), and hands back a ticket. The work takes from its
 * ticket as it goes (a job that runs out stops), each model call reserves its upper bound in
 * tokens before it is made (`ticket.model`), and the ticket is settled with what the work really
 * cost; the rest goes back. Prices are the one price table (prices.ts), read through here.
 */
import { randomUUID } from 'node:crypto';
import { resolveEngineConfig } from '../config.ts';
import type { LlmUsage } from '../interfaces/llm-provider.ts';
import { minuteMs } from '../internal/time.ts';
import type { CreditLedger, CreditUsage } from './index.ts';
import type { CreditEndpoint } from './options.ts';
import type { PriceTable } from './prices.ts';
import { AdmissionTicket } from './ticket.ts';

export { AdmissionTicket };

/** The daily LLM token cap as admission asks it (the server's token book). */
export interface TokenAllowance {
  /**
   * Reserves `tokens` under the team's cap for a piece of work as `id` (again: its new amount):
   * undefined when taken, else the refusal to answer (the cap is used up).
   */
  reserve(team: string, id: string, tokens: number, leaseMs: number): Promise<Error | undefined>;
  /** Records tokens the work used (in `calls` calls) on the team's day; drops its reservation. */
  settle(
    team: string,
    id: string,
    usage: (LlmUsage & { calls: number }) | undefined,
  ): Promise<void>;
}

/** What a piece of work asks to be admitted with. */
export interface AdmissionWork {
  /** Credits the work may cost at most (see {@link Admission.cost}). */
  credits: number;
  /**
   * Take less when less is left, but at least this many credits: the work is capped to
   * `ticket.reserved` (a crawl's page limit, an agent's maxCredits). Unset: all or nothing.
   */
  atLeast?: number;
  /**
   * The work can call a model: one call's worth of tokens (the model's context) is reserved
   * up front, in credits and under the token cap, and its tokens are metered.
   */
  callsModel?: boolean;
  /**
   * `credits` are a budget the work keeps itself, its model's tokens included (an agent's
   * maxCredits, checked before every step with the same bound): its calls are not reserved in
   * credits on top of it (the token cap still holds each).
   */
  budget?: boolean;
  /** The ticket's id (a job's id, so whichever process finishes the job settles it). */
  id?: string;
  /** How long the reservation holds should the work never settle (its process died). */
  leaseMs?: number;
}

/** Why work was not admitted. */
export type AdmissionRefusal = { reason: 'credits' } | { reason: 'tokens'; refusal: Error };

/** A request's reservation outlives any request: a dead process's lapses after this. */
const requestLeaseMs = 15 * minuteMs;
/** Times an `atLeast` reservation reads what is left again after losing a race for it. */
const reserveTries = 5;

/**
 * The admission and billing service of a server (or of any program that charges teams).
 *
 * @example
 * const admitted = await admission.admit(team, { credits: admission.cost('scrape'), callsModel });
 * if ('reason' in admitted) refuse(admitted);
 * else {
 *   const result = await work({ llm: admitted.model(llm) });
 *   await admitted.settle({ scrape: admission.cost('scrape') });
 * }
 */
export class Admission {
  readonly ledger: CreditLedger;
  readonly tokens: TokenAllowance | undefined;
  /**
   * The most tokens one model call may use, prompt and answer (the model's context): what work
   * that calls a model reserves up front, and the bound of a call that sets no answer length.
   */
  readonly callTokens: number;

  /**
   * `tokens`: the daily token cap; without it, work that calls a model is not capped.
   * `callTokens`: the model's context (the engine's `llmContextTokens` by default).
   */
  constructor(
    ledger: CreditLedger,
    tokens?: TokenAllowance,
    options: { callTokens?: number } = {},
  ) {
    this.ledger = ledger;
    this.tokens = tokens;
    this.callTokens = options.callTokens ?? resolveEngineConfig().llmContextTokens;
  }

  /** The one price table: what each kind of work costs. */
  get prices(): PriceTable {
    return this.ledger.prices;
  }

  /** Credits each team may spend; undefined when unlimited. */
  get limit(): number | undefined {
    return this.ledger.limit;
  }

  /** What `units` of `endpoint` cost (pages for crawls, batch scrapes and monitor checks). */
  cost(endpoint: CreditEndpoint, units = 1): number {
    return this.ledger.cost(endpoint, units);
  }

  /** Credits of `tokens` LLM tokens: the `llm_tokens` price per started thousand. */
  tokenCredits(tokens: number): number {
    return this.prices.tokenCredits(tokens);
  }

  /** The team's totals as the ledger holds them. */
  usage(team: string): Promise<CreditUsage> {
    return this.ledger.usage(team);
  }

  /** Credits per UTC day (debits less refunds), oldest first, from the ledger's lines. */
  async dailyCredits(team: string): Promise<{ day: string; credits: number }[]> {
    const byDay = new Map<string, number>();
    for await (const entry of this.ledger.entries(team)) {
      const day = entry.at.slice(0, 10);
      const signed = entry.kind === 'debit' ? entry.credits : -entry.credits;
      byDay.set(day, (byDay.get(day) ?? 0) + signed);
    }
    return [...byDay].map(([day, credits]) => ({ day, credits }));
  }

  /** Whether the team could reserve `credits` now (always, when unlimited). */
  async allows(team: string, credits = 1): Promise<boolean> {
    const available = await this.ledger.available(team);
    return available === undefined || available >= Math.max(credits, 1);
  }

  /**
   * Admits `work` for `team`: a ticket holding its reservation, or why not. Work is refused
   * when the team has no credit left at all, even work priced at 0.
   */
  async admit(team: string, work: AdmissionWork): Promise<AdmissionTicket | AdmissionRefusal> {
    const id = work.id ?? randomUUID();
    const leaseMs = work.leaseMs ?? requestLeaseMs;
    const callsModel = work.callsModel === true;
    const budget = work.budget === true;
    // One model call's worth of credits is reserved with the work, in the same step (two
    // steps could leave every one of many concurrent admissions half-reserved, and refused).
    const floor =
      callsModel && !budget && this.limit !== undefined ? this.tokenCredits(this.callTokens) : 0;
    const reserved = await this.#reserve(team, id, work, leaseMs, floor);
    if (reserved === false) return { reason: 'credits' };
    const refusal =
      callsModel && this.tokens
        ? await this.tokens.reserve(team, id, this.callTokens, leaseMs)
        : undefined;
    if (refusal) {
      await this.ledger.unreserve(team, id);
      return { reason: 'tokens', refusal };
    }
    return new AdmissionTicket(this, team, id, reserved, {
      leaseMs,
      meterTokens: callsModel,
      budget,
      floor,
    });
  }

  /**
   * The ticket of admitted work by its id, in whichever process settles it (a job admitted by
   * the API process, finished by a worker).
   */
  ticket(
    team: string,
    id: string,
    options: Pick<AdmissionWork, 'callsModel' | 'budget' | 'leaseMs'> = {},
  ): AdmissionTicket {
    return new AdmissionTicket(this, team, id, this.limit === undefined ? undefined : 0, {
      leaseMs: options.leaseMs ?? requestLeaseMs,
      meterTokens: options.callsModel === true,
      budget: options.budget === true,
      floor: 0,
    });
  }

  /**
   * Resolves the credits reserved for the work (undefined: unlimited), `extra` more reserved
   * with them in one step, or false when they do not fit.
   */
  async #reserve(
    team: string,
    id: string,
    work: AdmissionWork,
    leaseMs: number,
    extra: number,
  ): Promise<number | undefined | false> {
    const { ledger } = this;
    if (ledger.limit === undefined) return undefined;
    // Even free work needs a credit left, as the hosted service answers 402 at zero.
    const least = Math.max(work.atLeast ?? work.credits, 1) + extra;
    for (let attempt = 0; attempt < reserveTries; attempt += 1) {
      const available = (await ledger.available(team)) ?? 0;
      if (available < least) return false;
      const amount =
        work.atLeast === undefined ? work.credits : Math.min(work.credits, available - extra);
      if (await ledger.reserve(team, id, amount + extra, leaseMs)) return amount;
      if (work.atLeast === undefined) return false;
    }
    return false;
  }
}
