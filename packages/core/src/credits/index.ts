/**
 * The credits ledger: every piece of work a team is charged for and every credit given back, kept
 * in the Store, with running totals per team and per job. The server debits each job through it,
 * feedback refunds through it, monitor checks debit through it, and `GET /v2/team/credit-usage`
 * reads it. With no credit limit configured nothing is ever refused, but the ledger is still kept.
 */
import { ValidationError } from '../errors.ts';
import { MemoryCounters } from '../defaults/memory-counters.ts';
import type { Counters } from '../interfaces/counters.ts';
import { scanStore, type Store } from '../interfaces/store.ts';
import { timeOrderedId, uuidTimePrefix } from '../internal/uuid.ts';
import { parseOrThrow } from '../internal/zod.ts';
import {
  creditLedgerOptionsSchema,
  type CreditEndpoint,
  type CreditLedgerOptions,
} from './options.ts';
import { PriceTable } from './prices.ts';
import { daysMs } from '../internal/time.ts';

/** What a ledger entry is about. */
export interface LedgerReference {
  /** The kind of work (a key of the prices). */
  endpoint: CreditEndpoint;
  /** The job, scrape, map, parse, search or monitor check the credits are for. */
  jobId?: string;
  /** The feedback that earned a refund. */
  feedbackId?: string;
}

/** One line of the ledger. */
export interface LedgerEntry extends LedgerReference {
  /** Time-ordered id (UUID v7). */
  id: string;
  team: string;
  kind: 'debit' | 'refund';
  /** Always positive; `kind` says which way it went. */
  credits: number;
  /** ISO time of the entry. */
  at: string;
}

/** A team's use of credits, as `GET /v2/team/credit-usage` reports it. */
export interface CreditUsage {
  /** Credits ever charged. */
  debited: number;
  /** Credits ever given back. */
  refunded: number;
  /** Credits each team may spend; undefined when unlimited. */
  limit: number | undefined;
  /** `limit - (debited - refunded)`, never below 0; undefined when unlimited. */
  remaining: number | undefined;
}

/** Credits charged for one job and given back for it. */
export interface JobCharges {
  debited: number;
  refunded: number;
}

const entriesNamespace = 'credit-ledger';
const balancesNamespace = 'credit-balances';
const jobsNamespace = 'credit-jobs';
/** Ledger lines are kept for a year; the totals, which every check reads, are kept for good. */
const entryRetentionMs = daysMs(365);
/** Per-job totals outlive the job records (30 days) that feedback checks against. */
const jobTotalsRetentionMs = daysMs(31);
/**
 * Shared totals live this long after a team's last charge; then the next charge starts them
 * again from the store's copy.
 */
const sharedTotalsTtlMs = daysMs(7);

/** Store keys never hold a team name as is: a '/' in it must not split the key. */
const teamKey = (team: string) => encodeURIComponent(team);
/** The team's totals among the shared counters. */
const sharedKey = (team: string) => `credits:${teamKey(team)}`;

/**
 * Credits per team, kept in the Store.
 *
 * @remarks
 * Writes go one at a time within this object, so concurrent debits and refunds of one process
 * never lose an update. The team totals are added up in `Counters` (in memory by default; shared
 * ones, Redis, when several processes share the store): each charge is one atomic add there, and
 * the store keeps a copy that seeds them again should they expire. Credits are reserved there
 * too, before work ({@link reserve}), so concurrent work cannot together pass the limit: the
 * server's `Admission` does that for every route.
 *
 * @example
 * const ledger = new CreditLedger(store, { perTeam: 500, prices: { scrape: 1, crawl: 1 } });
 * if (await ledger.allows(team)) {
 *   // … do the work, then:
 *   await ledger.debit(team, ledger.cost('scrape'), { endpoint: 'scrape', jobId });
 * }
 */
export class CreditLedger {
  readonly #store: Store;
  readonly #perTeam: number | undefined;
  readonly #prices: PriceTable;
  readonly #counters: Counters;
  #writes: Promise<unknown> = Promise.resolve();

  /**
   * `counters`: where the team totals are added up (shared ones when several processes share
   * the store).
   * @throws BAD_REQUEST for invalid options
   */
  constructor(
    store: Store,
    options: CreditLedgerOptions = {},
    counters: Counters = new MemoryCounters(),
  ) {
    const resolved = parseOrThrow(creditLedgerOptionsSchema, options, 'credit ledger options');
    this.#store = store;
    this.#counters = counters;
    this.#perTeam = resolved.perTeam;
    this.#prices = new PriceTable(resolved.prices);
  }

  /** Credits each team may spend; undefined when unlimited. */
  get limit(): number | undefined {
    return this.#perTeam;
  }

  /** The price table charges are made by. */
  get prices(): PriceTable {
    return this.#prices;
  }

  /** What `units` of `endpoint` cost (pages for crawls, batch scrapes and monitor checks). */
  cost(endpoint: CreditEndpoint, units = 1): number {
    return this.#prices.cost(endpoint, units);
  }

  /** The team's totals; a team with no entry has used nothing. */
  async usage(team: string): Promise<CreditUsage> {
    const balance = await this.#balance(team);
    const remaining =
      this.#perTeam === undefined
        ? undefined
        : Math.max(0, this.#perTeam - (balance.debited - balance.refunded));
    return { ...balance, limit: this.#perTeam, remaining };
  }

  /** Credits left; undefined when unlimited. */
  async remaining(team: string): Promise<number | undefined> {
    return (await this.usage(team)).remaining;
  }

  /** Whether the team has `credits` left (always, when unlimited). */
  async allows(team: string, credits = 1): Promise<boolean> {
    const remaining = await this.remaining(team);
    return remaining === undefined || remaining >= Math.max(credits, 1);
  }

  /**
   * Reserves `credits` of the team's limit as `id` for `leaseMs`, atomically against what was
   * charged and every other live reservation: false when they do not fit. Reserving an id again
   * replaces its amount. Always true when unlimited. A debit naming the reservation
   * (`settles`) drops it in the same step.
   */
  async reserve(team: string, id: string, credits: number, leaseMs: number): Promise<boolean> {
    checkAmount(credits);
    if (this.#perTeam === undefined) return true;
    return this.#counters.reserve(sharedKey(team), {
      id,
      amount: credits,
      ceiling: { weights: { debited: 1, refunded: -1 }, max: this.#perTeam },
      leaseMs,
      ttlMs: sharedTotalsTtlMs,
      seed: { ...(await this.#storedBalance(team)) },
    });
  }

  /** Drops the reservation `id` without charging it. Idempotent. */
  unreserve(team: string, id: string): Promise<void> {
    return this.#counters.unreserve(sharedKey(team), id);
  }

  /** Credits the team could reserve now; undefined when unlimited. */
  async available(team: string): Promise<number | undefined> {
    const remaining = await this.remaining(team);
    if (remaining === undefined) return undefined;
    return Math.max(0, remaining - (await this.#counters.reserved(sharedKey(team))));
  }

  /** What was charged for a job and given back for it; zeros for a job never charged. */
  async jobCharges(team: string, jobId: string): Promise<JobCharges> {
    return (
      (await this.#store.get<JobCharges>(jobsNamespace, `${teamKey(team)}/${jobId}`)) ?? {
        debited: 0,
        refunded: 0,
      }
    );
  }

  /**
   * Charges `credits` to the team. The work was done, so this never refuses: reserve before the
   * work. `settles`: the reservation this charge ends, dropped in the same atomic step. Zero
   * credits write no line (and still drop the reservation).
   * @throws BAD_REQUEST for a negative or fractional amount; STORE_UNAVAILABLE
   */
  debit(
    team: string,
    credits: number,
    reference: LedgerReference,
    settles?: string,
  ): Promise<LedgerEntry | undefined> {
    checkAmount(credits);
    return this.#serially(async () => {
      if (credits === 0) {
        if (settles !== undefined) await this.unreserve(team, settles);
        return undefined;
      }
      return this.#write(team, 'debit', credits, reference, settles);
    });
  }

  /**
   * Gives credits back for a job, at most what the job was charged and not yet given back: no
   * sequence of refunds returns more than a job cost. Resolves with the credits given back.
   * @throws BAD_REQUEST for a negative or fractional amount; STORE_UNAVAILABLE
   */
  refund(
    team: string,
    credits: number,
    reference: LedgerReference & { jobId: string },
  ): Promise<number> {
    checkAmount(credits);
    return this.#serially(async () => {
      const job = await this.jobCharges(team, reference.jobId);
      const given = Math.min(credits, Math.max(0, job.debited - job.refunded));
      if (given > 0) await this.#write(team, 'refund', given, reference);
      return given;
    });
  }

  /** The team's ledger lines, oldest first; `since` skips older ones. */
  async *entries(team: string, since?: Date): AsyncGenerator<LedgerEntry> {
    // Ids are UUID v7, whose first 12 hex digits are the time in ms: a key after that prefix
    // starts the scan at `since` instead of reading the older lines.
    const prefix = `${teamKey(team)}/`;
    const after = since === undefined ? undefined : `${prefix}${uuidTimePrefix(since)}`;
    for await (const { value } of scanStore<LedgerEntry>(
      this.#store,
      entriesNamespace,
      prefix,
      after,
    )) {
      yield value;
    }
  }

  async #balance(team: string): Promise<JobCharges> {
    const shared = await this.#counters.read(sharedKey(team));
    if (shared) return { debited: shared['debited'] ?? 0, refunded: shared['refunded'] ?? 0 };
    return this.#storedBalance(team);
  }

  async #storedBalance(team: string): Promise<JobCharges> {
    return (
      (await this.#store.get<JobCharges>(balancesNamespace, teamKey(team))) ?? {
        debited: 0,
        refunded: 0,
      }
    );
  }

  /** Adds a line and moves the team's and the job's totals with it. Runs inside #serially. */
  async #write(
    team: string,
    kind: LedgerEntry['kind'],
    credits: number,
    reference: LedgerReference,
    settles?: string,
  ): Promise<LedgerEntry> {
    const entry: LedgerEntry = {
      id: timeOrderedId(),
      team,
      kind,
      credits,
      ...reference,
      at: new Date().toISOString(),
    };
    const field = kind === 'debit' ? 'debited' : 'refunded';
    // The line first: were the process to stop between writes, the totals would lag the lines
    // (and be charged too little), never hold a refund the lines cannot explain.
    await this.#store.set(entriesNamespace, `${teamKey(team)}/${entry.id}`, entry, {
      ttlMs: entryRetentionMs,
    });
    const totals = await this.#counters.add(
      sharedKey(team),
      { [field]: credits },
      {
        ttlMs: sharedTotalsTtlMs,
        seed: { ...(await this.#storedBalance(team)) },
        ...(settles === undefined ? {} : { settles }),
      },
    );
    const balance = { debited: totals['debited'] ?? 0, refunded: totals['refunded'] ?? 0 };
    await this.#store.set(balancesNamespace, teamKey(team), balance);
    if (reference.jobId !== undefined) {
      const job = await this.jobCharges(team, reference.jobId);
      job[field] += credits;
      await this.#store.set(jobsNamespace, `${teamKey(team)}/${reference.jobId}`, job, {
        ttlMs: jobTotalsRetentionMs,
      });
    }
    return entry;
  }

  #serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#writes.then(work);
    this.#writes = run.catch(() => undefined);
    return run;
  }
}

function checkAmount(credits: number): void {
  if (!Number.isInteger(credits) || credits < 0)
    throw new ValidationError(`credits must be a whole number of 0 or more (got ${credits})`);
}
