/**
 * LLM tokens per team (issue 18): every call's tokens are added to the team's day in the Store,
 * charged to the credits ledger at the `llm_tokens` price (per 1,000 tokens, rounded up per
 * request or job), capped per day when the operator sets a cap (429 with Retry-After until
 * midnight UTC), and reported by the SDK's usage endpoints.
 */
import {
  scanStore,
  type Counters,
  type EngineContext,
  type LlmProvider,
  type LlmUsage,
  type Store,
} from '@trawl/core';
import { daysMs, type CreditLedger } from '@trawl/core/server';
import { Refusal } from './errors.ts';

const daysNamespace = 'llm-token-days';
/** Day totals are kept for a year and a day, like the ledger's lines. */
const dayRetentionMs = daysMs(366);

/** One team's tokens on one UTC day. */
interface DayUsage {
  inputTokens: number;
  outputTokens: number;
  calls: number;
}

const teamKey = (team: string) => encodeURIComponent(team);
const dayOf = (date: Date) => date.toISOString().slice(0, 10);
const dayKey = (team: string, day: string) => `${teamKey(team)}/${day}`;
/** A team's day among the shared counters. */
const sharedDayKey = (team: string, day: string) => `llm-tokens:${dayKey(team, day)}`;

/** Formats that always call the model. */
const modelFormats = new Set(['json', 'summary', 'question', 'query']);

/** Whether a scrape, crawl or batch body asks for a format that calls the model. */
export function asksModel(body: unknown): boolean {
  const record = (body ?? {}) as { formats?: unknown; scrapeOptions?: { formats?: unknown } };
  const formats = record.formats ?? record.scrapeOptions?.formats;
  if (!Array.isArray(formats)) return false;
  return formats.some((format: unknown) =>
    modelFormats.has(
      typeof format === 'string' ? format : String((format as { type?: unknown })?.type),
    ),
  );
}

/** Reported as remaining tokens when no cap is set (unlimited). */
const unlimitedTokens = 2 ** 31 - 1;

/** What a running request or job reports its tokens through. */
export interface TokenMeter {
  /** Pass as `onLlmUsage` in the engine context. */
  onLlmUsage: (usage: LlmUsage) => void;
  /** Tokens so far. */
  readonly tokens: number;
  /** Records the tokens on the team's day and charges them; resolves with the credits charged. */
  settle(): Promise<number>;
}

/** Token usage of the teams. */
export class TokenUsageBook {
  readonly #store: Store;
  readonly #ledger: CreditLedger;
  readonly #dailyCap: number | undefined;
  readonly #counters: Counters | undefined;
  #writes: Promise<unknown> = Promise.resolve();

  /**
   * `dailyCap`: LLM tokens a team may use per UTC day; undefined: no cap. `counters`: where the
   * day totals are added up when several processes (workers) spend tokens at once; the store
   * keeps a copy that seeds them again.
   */
  constructor(store: Store, ledger: CreditLedger, dailyCap?: number, counters?: Counters) {
    this.#store = store;
    this.#ledger = ledger;
    this.#dailyCap = dailyCap;
    this.#counters = counters;
  }

  /**
   * The engine context of one request's LLM work (the model and its meter; nothing without a
   * model), and the meter that charges it when settled.
   */
  metered(
    llm: LlmProvider | undefined,
    team: string,
    jobId: string,
  ): { meter: TokenMeter; context: Pick<EngineContext, 'llm' | 'onLlmUsage'> } {
    const meter = this.meter(team, jobId);
    return { meter, context: llm ? { llm, onLlmUsage: meter.onLlmUsage } : {} };
  }

  /** A meter for one request or job of `team`, charged as `jobId`. */
  meter(team: string, jobId: string): TokenMeter {
    const total = { inputTokens: 0, outputTokens: 0, calls: 0 };
    let settled = false;
    const settle = async () => {
      if (settled || total.calls === 0) return 0;
      settled = true;
      const tokens = total.inputTokens + total.outputTokens;
      await this.#add(team, total);
      const credits = this.#ledger.cost('llm_tokens', Math.ceil(tokens / 1000));
      await this.#ledger.debit(team, credits, { endpoint: 'llm_tokens', jobId });
      return credits;
    };
    return {
      onLlmUsage: (usage) => {
        total.inputTokens += usage.inputTokens;
        total.outputTokens += usage.outputTokens;
        total.calls += 1;
      },
      get tokens() {
        return total.inputTokens + total.outputTokens;
      },
      settle,
    };
  }

  /** The 429 to throw when the team has used its tokens of the day, else undefined. */
  async refusal(team: string): Promise<Refusal | undefined> {
    if (this.#dailyCap === undefined) return undefined;
    const used = await this.#usedOn(team, new Date());
    if (used < this.#dailyCap) return undefined;
    const now = new Date();
    const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    const retryAfterSeconds = Math.ceil((midnight - now.getTime()) / 1000);
    return new Refusal(
      'RATE_LIMITED',
      `The team has used its ${this.#dailyCap} LLM tokens of today (TRAWL_LLM_DAILY_TOKENS); try again after midnight UTC.`,
      { headers: { 'retry-after': String(retryAfterSeconds) } },
    );
  }

  /** What `GET /v2/team/token-usage` answers. */
  async current(team: string) {
    const used = await this.#usedOn(team, new Date());
    return {
      remainingTokens:
        this.#dailyCap === undefined ? unlimitedTokens : Math.max(0, this.#dailyCap - used),
      planTokens: this.#dailyCap ?? unlimitedTokens,
      billingPeriodStart: null,
      billingPeriodEnd: null,
      // Beyond the hosted answer: today's tokens, which count even with no cap.
      tokensUsedToday: used,
    };
  }

  /** One period per UTC day the team used tokens, oldest first. */
  async history(team: string) {
    const periods: { startDate: string; endDate: string; tokensUsed: number }[] = [];
    for await (const { key, value } of scanStore<DayUsage>(
      this.#store,
      daysNamespace,
      `${teamKey(team)}/`,
    )) {
      const day = key.slice(key.lastIndexOf('/') + 1);
      const totals = (await this.#sharedDay(team, day)) ?? value;
      periods.push({
        startDate: `${day}T00:00:00.000Z`,
        endDate: `${day}T23:59:59.999Z`,
        tokensUsed: totals.inputTokens + totals.outputTokens,
      });
    }
    return periods;
  }

  async #usedOn(team: string, date: Date): Promise<number> {
    const day =
      (await this.#sharedDay(team, dayOf(date))) ??
      (await this.#store.get<DayUsage>(daysNamespace, dayKey(team, dayOf(date))));
    return day ? day.inputTokens + day.outputTokens : 0;
  }

  /** A day's totals among the shared counters: they lead the store's copy while they live. */
  async #sharedDay(team: string, day: string): Promise<DayUsage | undefined> {
    const shared = await this.#counters?.read(sharedDayKey(team, day));
    return shared && asDayUsage(shared);
  }

  /**
   * Adds to today's total; one write at a time so concurrent requests lose no tokens, and with
   * shared counters one atomic add there, so concurrent processes lose none either.
   */
  #add(team: string, usage: DayUsage): Promise<void> {
    const write = this.#writes.then(async () => {
      const day = dayOf(new Date());
      const key = dayKey(team, day);
      const stored = (await this.#store.get<DayUsage>(daysNamespace, key)) ?? {
        inputTokens: 0,
        outputTokens: 0,
        calls: 0,
      };
      const totals = this.#counters
        ? asDayUsage(
            await this.#counters.add(
              sharedDayKey(team, day),
              { ...usage },
              {
                ttlMs: dayRetentionMs,
                seed: { ...stored },
              },
            ),
          )
        : {
            inputTokens: stored.inputTokens + usage.inputTokens,
            outputTokens: stored.outputTokens + usage.outputTokens,
            calls: stored.calls + usage.calls,
          };
      await this.#store.set(daysNamespace, key, totals, { ttlMs: dayRetentionMs });
    });
    this.#writes = write.catch(() => undefined);
    return write;
  }
}

function asDayUsage(fields: Record<string, number>): DayUsage {
  return {
    inputTokens: fields['inputTokens'] ?? 0,
    outputTokens: fields['outputTokens'] ?? 0,
    calls: fields['calls'] ?? 0,
  };
}
