/**
 * One admitted piece of work (see admission.ts): what it reserved, what it used, the model it
 * calls through (each call reserved at its upper bound before it is made), and how it settles.
 */
import { PaymentRequiredError } from '../errors.ts';
import type { LlmProvider, LlmUsage } from '../interfaces/llm-provider.ts';
import type { Admission } from './admission.ts';
import type { LedgerReference } from './index.ts';
import { meteredModel } from './metered-model.ts';
import type { CreditEndpoint } from './options.ts';

/** The reservation of a ticket's model tokens, beside the work's own. */
export const tokensId = (id: string) => `${id}:llm`;

/** How a ticket meters its model calls. */
export interface TicketOptions {
  leaseMs: number;
  /** Settling puts the work's tokens (or its reservation's end) on the team's token day. */
  meterTokens: boolean;
  /** The credits are the work's own budget, tokens included: calls reserve no credits. */
  budget: boolean;
  /** Credits of one model call reserved with the work (its first calls' tokens come from them). */
  floor: number;
}

/** One admitted piece of work: what it reserved, what it used, and how to settle. */
export class AdmissionTicket {
  readonly id: string;
  readonly team: string;
  readonly #admission: Admission;
  readonly #options: TicketOptions;
  /** Credits reserved for the work; undefined when the team is unlimited. */
  #reserved: number | undefined;
  /** Credits of model tokens held in the work's reservation beside `#reserved`. */
  #floor: number;
  #taken = 0;
  #usage: LlmUsage = { inputTokens: 0, outputTokens: 0 };
  #calls = 0;
  /** Upper bounds of the model calls under way. */
  #inFlight = 0;
  /** Reservations of tokens, one at a time, so a smaller one never lands after a larger. */
  #holding: Promise<unknown> = Promise.resolve();
  /** A call reserved under the token cap: settling drops it. */
  #heldTokens = false;
  #settled = false;

  /** @internal made by {@link Admission} */
  constructor(
    admission: Admission,
    team: string,
    id: string,
    reserved: number | undefined,
    options: TicketOptions,
  ) {
    this.#admission = admission;
    this.team = team;
    this.id = id;
    this.#reserved = reserved;
    this.#options = options;
    this.#floor = options.floor;
  }

  /** Credits reserved for the work; undefined when the team is unlimited. */
  get reserved(): number | undefined {
    return this.#reserved;
  }

  /** LLM tokens metered so far. */
  get tokens(): number {
    return this.#usage.inputTokens + this.#usage.outputTokens;
  }

  /**
   * Tokens used outside {@link model} (a resumed run's earlier steps): charged when settled.
   * Calls made through `model` meter themselves; do not report them here too.
   */
  readonly onLlmUsage = (usage: LlmUsage): void => {
    this.#usage = {
      inputTokens: this.#usage.inputTokens + usage.inputTokens,
      outputTokens: this.#usage.outputTokens + usage.outputTokens,
    };
    this.#calls += 1;
  };

  /**
   * `llm` paid for through this ticket: each call reserves its upper bound in tokens (prompt
   * estimate and the most its answer may take) before it is made, in credits and under the
   * token cap, and meters what it used. A call that does not fit is refused (PAYMENT_REQUIRED,
   * or the token cap's refusal) and never reaches the model.
   */
  model(llm: LlmProvider): LlmProvider {
    return meteredModel(
      llm,
      {
        hold: (tokens) => this.#hold(tokens),
        release: (tokens, usage) => {
          this.#inFlight -= tokens;
          if (usage) this.onLlmUsage(usage);
        },
      },
      this.#admission.callTokens,
    );
  }

  /**
   * Takes `credits` of the reservation for a part of the work about to run (a monitor page);
   * grows the reservation when it is spent, if the team has the credits. False when it has not:
   * the part must not run.
   */
  async take(credits: number): Promise<boolean> {
    const wanted = this.#taken + credits;
    if (this.#reserved !== undefined && wanted > this.#reserved) {
      const ledger = this.#admission.ledger;
      const amount = wanted + this.#floor;
      if (!(await ledger.reserve(this.team, this.id, amount, this.#options.leaseMs))) return false;
      this.#reserved = wanted;
    }
    this.#taken = wanted;
    return true;
  }

  /** Reserves what the tokens used and under way may cost, with `tokens` more. @throws refusals */
  #hold(tokens: number): Promise<void> {
    const held = this.#holding.then(async () => {
      const { ledger, tokens: allowance } = this.#admission;
      const total = this.tokens + this.#inFlight + tokens;
      const { leaseMs } = this.#options;
      // Beyond the call's worth reserved with the work, the rest is reserved beside it.
      const beside = (all: number) =>
        Math.max(0, this.#admission.prices.tokenCredits(all) - this.#floor);
      if (
        !this.#options.budget &&
        !(await ledger.reserve(this.team, tokensId(this.id), beside(total), leaseMs))
      )
        throw new PaymentRequiredError(
          `The team's credits left cannot pay for a model call of up to ${tokens} tokens.`,
        );
      this.#heldTokens = allowance !== undefined;
      const refusal = await allowance?.reserve(this.team, this.id, total, leaseMs);
      if (refusal) {
        // The call is not made: its credits go back to what the others hold.
        if (!this.#options.budget)
          await ledger.reserve(this.team, tokensId(this.id), beside(total - tokens), leaseMs);
        throw refusal;
      }
      this.#inFlight += tokens;
    });
    this.#holding = held.catch(() => undefined);
    return held;
  }

  /**
   * Charges the tokens metered so far and lets their reservation go, the work going on under
   * the ticket (a crawl's prompt, before its job runs in another process). Resolves with the
   * credits charged.
   */
  async chargeTokens(reference: Omit<LedgerReference, 'endpoint'> = {}): Promise<number> {
    if (this.#calls === 0 || this.#settled) return 0;
    const usage = { ...this.#usage, calls: this.#calls };
    this.#usage = { inputTokens: 0, outputTokens: 0 };
    this.#calls = 0;
    const { ledger, tokens } = this.#admission;
    const credits = this.#admission.prices.tokenCredits(usage.inputTokens + usage.outputTokens);
    await ledger.debit(
      this.team,
      credits,
      { ...reference, endpoint: 'llm_tokens', jobId: reference.jobId ?? this.id },
      tokensId(this.id),
    );
    await tokens?.settle(this.team, this.id, usage);
    // The call's worth reserved with the work was spent: the work keeps only its own credits.
    if (
      this.#floor > 0 &&
      this.#reserved !== undefined &&
      (await ledger.reserve(this.team, this.id, this.#reserved, this.#options.leaseMs))
    )
      this.#floor = 0;
    return credits;
  }

  /**
   * Settles the work with what it really cost (credits per kind of work, before its LLM tokens,
   * which the ticket metered and charges itself): charged in the ledger, the reservations
   * dropped in the same steps, the tokens put on the team's day. Resolves with the credits
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
    if (this.#calls > 0) {
      const credits = this.#admission.prices.tokenCredits(this.tokens);
      total += credits;
      await ledger.debit(
        this.team,
        credits,
        { ...reference, endpoint: 'llm_tokens', jobId },
        tokensId(this.id),
      );
    }
    // Whichever reservation no charge ended (idempotent).
    await ledger.unreserve(this.team, this.id);
    await ledger.unreserve(this.team, tokensId(this.id));
    if (tokens && (this.#options.meterTokens || this.#heldTokens || this.#calls > 0))
      await tokens.settle(
        this.team,
        this.id,
        this.#calls > 0 ? { ...this.#usage, calls: this.#calls } : undefined,
      );
    return total;
  }
}
