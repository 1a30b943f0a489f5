/**
 * Admission: the one step every piece of paid work passes before it starts. `admit(team, work)`
 * checks the team's daily LLM token cap (for work that can call a model) and reserves what the
 * work may cost against the team's credits, atomically (in `Counters`: per process in memory,
 * across processes in Redis), and hands back a ticket. The work takes from its ticket as it goes
 * (a job that runs out stops) and settles it with what it really cost; the rest goes back.
 * Prices are the ledger's table, read here and nowhere else.
 */
import { randomUUID } from 'node:crypto';
import type { LlmUsage } from '../interfaces/llm-provider.ts';
import { minuteMs } from '../internal/time.ts';
import type { CreditLedger, CreditUsage, LedgerReference } from './index.ts';
import type { CreditEndpoint, CreditPrices } from './options.ts';

/** The daily LLM token cap as admission asks it (the server's token book). */
export interface TokenAllowance {
  /**
   * Reserves room under the team's cap for a piece of work as `id`: undefined when taken, else
   * the refusal to answer (the cap is used up).
   */
  reserve(team: string, id: string, leaseMs: number): Promise<Error | undefined>;
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
  /** The work can call a model: the token cap is checked, and its tokens are metered. */
  callsModel?: boolean;
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

/** One admitted piece of work: what it reserved, what it used, and how to settle. */
export class AdmissionTicket {
  readonly id: string;
  readonly team: string;
  readonly #admission: Admission;
  readonly #leaseMs: number;
  readonly #meterTokens: boolean;
  /** Credits reserved; undefined when the team is unlimited. */
  #reserved: number | undefined;
  #taken = 0;
  #usage: LlmUsage = { inputTokens: 0, outputTokens: 0 };
  #calls = 0;
  #settled = false;

  /** @internal made by {@link Admission} */
  constructor(
    admission: Admission,
    team: string,
    id: string,
    reserved: number | undefined,
    leaseMs: number,
    meterTokens: boolean,
  ) {
    this.#admission = admission;
    this.team = team;
    this.id = id;
    this.#reserved = reserved;
    this.#leaseMs = leaseMs;
    this.#meterTokens = meterTokens;
  }

  /** Credits reserved for the work; undefined when the team is unlimited. */
  get reserved(): number | undefined {
    return this.#reserved;
  }

  /** LLM tokens metered so far. */
  get tokens(): number {
    return this.#usage.inputTokens + this.#usage.outputTokens;
  }

  /** Pass as the engine context's `onLlmUsage`: the tokens are charged when settled. */
  readonly onLlmUsage = (usage: LlmUsage): void => {
    this.#usage = {
      inputTokens: this.#usage.inputTokens + usage.inputTokens,
      outputTokens: this.#usage.outputTokens + usage.outputTokens,
    };
    this.#calls += 1;
  };

  /**
   * Takes `credits` of the reservation for a part of the work about to run (a monitor page);
   * grows the reservation when it is spent, if the team has the credits. False when it has not:
   * the part must not run.
   */
  async take(credits: number): Promise<boolean> {
    const wanted = this.#taken + credits;
    if (this.#reserved !== undefined && wanted > this.#reserved) {
      const ledger = this.#admission.ledger;
      if (!(await ledger.reserve(this.team, this.id, wanted, this.#leaseMs))) return false;
      this.#reserved = wanted;
    }
    this.#taken = wanted;
    return true;
  }

  /**
   * Settles the work with what it really cost (credits per kind of work, before its LLM tokens,
   * which the ticket metered and charges itself): charged in the ledger, the reservation
   * dropped in the same step, the tokens put on the team's day. Resolves with the credits
   * charged. Settling twice charges once.
   */
  async settle(
    charges: Partial<Record<CreditEndpoint, number>> = {},
    reference: Omit<LedgerReference, 'endpoint'> = {},
  ): Promise<number> {
    if (this.#settled) return 0;
    this.#settled = true;
    const { ledger, tokens } = this.#admission;
    const lines = Object.entries(charges).filter(([, credits]) => credits > 0) as [
      CreditEndpoint,
      number,
    ][];
    if (this.#calls > 0) lines.push(['llm_tokens', this.#admission.tokenCredits(this.tokens)]);
    const jobId = reference.jobId ?? this.id;
    let total = 0;
    for (const [index, [endpoint, credits]] of lines.entries()) {
      total += credits;
      const last = index === lines.length - 1;
      await ledger.debit(
        this.team,
        credits,
        { ...reference, endpoint, jobId },
        last ? this.id : undefined,
      );
    }
    if (lines.length === 0) await ledger.unreserve(this.team, this.id);
    if (tokens && (this.#meterTokens || this.#calls > 0))
      await tokens.settle(
        this.team,
        this.id,
        this.#calls > 0 ? { ...this.#usage, calls: this.#calls } : undefined,
      );
    return total;
  }
}

/**
 * The admission and billing service of a server (or of any program that charges teams).
 *
 * @example
 * const admitted = await admission.admit(team, { credits: admission.cost('scrape') });
 * if ('reason' in admitted) refuse(admitted);
 * else {
 *   const result = await work({ onLlmUsage: admitted.onLlmUsage });
 *   await admitted.settle({ scrape: admission.cost('scrape') });
 * }
 */
export class Admission {
  readonly ledger: CreditLedger;
  readonly tokens: TokenAllowance | undefined;

  /** `tokens`: the daily token cap; without it, work that calls a model is not capped. */
  constructor(ledger: CreditLedger, tokens?: TokenAllowance) {
    this.ledger = ledger;
    this.tokens = tokens;
  }

  /** The price table: what each kind of work costs. */
  get prices(): Readonly<CreditPrices> {
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
    return this.ledger.cost('llm_tokens', Math.ceil(tokens / 1000));
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
    const reserved = await this.#reserve(team, id, work, leaseMs);
    if (reserved === false) return { reason: 'credits' };
    if (work.callsModel && this.tokens) {
      const refusal = await this.tokens.reserve(team, id, leaseMs);
      if (refusal) {
        await this.ledger.unreserve(team, id);
        return { reason: 'tokens', refusal };
      }
    }
    return new AdmissionTicket(this, team, id, reserved, leaseMs, work.callsModel === true);
  }

  /**
   * The ticket of admitted work by its id, in whichever process settles it (a job admitted by
   * the API process, finished by a worker).
   */
  ticket(team: string, id: string, options: { callsModel?: boolean; leaseMs?: number } = {}) {
    return new AdmissionTicket(
      this,
      team,
      id,
      this.limit === undefined ? undefined : 0,
      options.leaseMs ?? requestLeaseMs,
      options.callsModel === true,
    );
  }

  /** Resolves the credits reserved (undefined: unlimited), or false when they do not fit. */
  async #reserve(
    team: string,
    id: string,
    work: AdmissionWork,
    leaseMs: number,
  ): Promise<number | undefined | false> {
    const { ledger } = this;
    if (ledger.limit === undefined) return undefined;
    // Even free work needs a credit left, as the hosted service answers 402 at zero.
    const least = Math.max(work.atLeast ?? work.credits, 1);
    for (let attempt = 0; attempt < reserveTries; attempt += 1) {
      const available = (await ledger.available(team)) ?? 0;
      if (available < least) return false;
      const amount = work.atLeast === undefined ? work.credits : Math.min(work.credits, available);
      if (await ledger.reserve(team, id, amount, leaseMs)) return amount;
      if (work.atLeast === undefined) return false;
    }
    return false;
  }
}
