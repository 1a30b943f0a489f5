/**
 * LLM tokens per team: every piece of work's tokens are added to the team's day in the Store,
 * capped per day when the operator sets a cap (admission reserves under it: 429 with
 * Retry-After until midnight UTC), and reported by the SDK's usage endpoints. Their credits
 * (`llm_tokens` per started 1,000) are charged by admission's ticket.
 */
import { MemoryCounters, scanStore, type Counters, type Store } from '@trawl/core';
import { daysMs, type TokenAllowance } from '@trawl/core/server';
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

/** Token usage of the teams: admission's token allowance. */
export class TokenUsageBook implements TokenAllowance {
  readonly #store: Store;
  readonly #dailyCap: number | undefined;
  readonly #counters: Counters;
  #writes: Promise<unknown> = Promise.resolve();

  /**
   * `dailyCap`: LLM tokens a team may use per UTC day; undefined: no cap. `counters`: where the
   * day totals are added up (shared ones when several processes, workers, spend tokens at
   * once); the store keeps a copy that seeds them again.
   */
  constructor(store: Store, dailyCap?: number, counters: Counters = new MemoryCounters()) {
    this.#store = store;
    this.#dailyCap = dailyCap;
    this.#counters = counters;
  }

  /**
   * Reserves `tokens` of today's cap for a piece of work (again: its new amount), atomically
   * against what the team used and every other work in flight: the refusal (429) when they do
   * not fit.
   */
  async reserve(
    team: string,
    id: string,
    tokens: number,
    leaseMs: number,
  ): Promise<Refusal | undefined> {
    if (this.#dailyCap === undefined) return undefined;
    const day = dayOf(new Date());
    const taken = await this.#counters.reserve(sharedDayKey(team, day), {
      id,
      amount: Math.max(1, Math.ceil(tokens)),
      ceiling: { weights: { inputTokens: 1, outputTokens: 1 }, max: this.#dailyCap },
      leaseMs,
      ttlMs: dayRetentionMs,
      seed: { ...(await this.#storedDay(team, day)) },
    });
    return taken ? undefined : this.#refusal();
  }

  /** Puts a work's tokens on the team's day and drops its reservation. */
  async settle(team: string, id: string, usage: DayUsage | undefined): Promise<void> {
    if (usage) await this.#add(team, usage);
    await this.#counters.unreserve(sharedDayKey(team, dayOf(new Date())), id);
  }

  /** The 429 of a team whose tokens of the day cannot pay for the work (or its next call). */
  #refusal(): Refusal {
    const now = new Date();
    const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    const retryAfterSeconds = Math.ceil((midnight - now.getTime()) / 1000);
    return new Refusal(
      'RATE_LIMITED',
      `The team's LLM tokens of today (${this.#dailyCap}, TRAWL_LLM_DAILY_TOKENS) are used up or cannot pay for this model call; try again after midnight UTC.`,
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
      (await this.#sharedDay(team, dayOf(date))) ?? (await this.#storedDay(team, dayOf(date)));
    return day.inputTokens + day.outputTokens;
  }

  /** A day's totals among the counters: they lead the store's copy while they live. */
  async #sharedDay(team: string, day: string): Promise<DayUsage | undefined> {
    const shared = await this.#counters.read(sharedDayKey(team, day));
    return shared && asDayUsage(shared);
  }

  async #storedDay(team: string, day: string): Promise<DayUsage> {
    return (
      (await this.#store.get<DayUsage>(daysNamespace, dayKey(team, day))) ?? {
        inputTokens: 0,
        outputTokens: 0,
        calls: 0,
      }
    );
  }

  /**
   * Adds to today's total; one write at a time so concurrent requests lose no tokens, and with
   * shared counters one atomic add there, so concurrent processes lose none either.
   */
  #add(team: string, usage: DayUsage): Promise<void> {
    const write = this.#writes.then(async () => {
      const day = dayOf(new Date());
      const key = dayKey(team, day);
      const stored = await this.#storedDay(team, day);
      const totals = asDayUsage(
        await this.#counters.add(
          sharedDayKey(team, day),
          { ...usage },
          { ttlMs: dayRetentionMs, seed: { ...stored } },
        ),
      );
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
