/**
 * `Monitors`: monitors kept in a Store, checked on their schedules, their news sent to
 * notifiers. A facade over the parts: create, read, list, update and delete monitors here (their
 * fields stored as target-input.ts builds them); run a check now; read checks and their pages;
 * `start()` the scheduler and `stop()` it.
 *
 * The parts: scheduler.ts (one timer over every monitor's `nextRunAt`), check-runner.ts (checks
 * in the background, a few at a time), check.ts (one check: its targets, classification,
 * notifications), billing.ts (estimates and charges), retention.ts (what is kept how long).
 *
 * At `start()` a monitor whose run fell while the process was down runs once (no storm of
 * missed runs) and checks left `queued`/`running` by a crash are closed as failed. Paused
 * monitors never run. Any number of processes may run the scheduler of one shared store (Redis,
 * PostgreSQL): each due time of a monitor is claimed in the store (`Store.claim`), so exactly one
 * of them runs it, and each re-reads the monitors now and then to plan those another created.
 */
import { randomUUID } from 'node:crypto';
import { resolveEngineConfig, type EngineConfig } from '../config.ts';
import { ConflictError, NotFoundError, PaymentRequiredError, ValidationError } from '../errors.ts';
import type { Fetcher } from '../interfaces/fetcher.ts';
import type { LlmProvider } from '../interfaces/llm-provider.ts';
import type { Notifier } from '../interfaces/notifier.ts';
import type { Queue } from '../interfaces/queue.ts';
import type { SearchProvider } from '../interfaces/search-provider.ts';
import type { Store } from '../interfaces/store.ts';
import type { UnitKind } from '../jobs/host.ts';
import { KeyedQueue } from '../internal/keyed-queue.ts';
import { dayMs } from '../internal/time.ts';
import { givenOptions, resolveOptions } from '../internal/resolved.ts';
import { parseOrThrow } from '../internal/zod.ts';
import { Baselines } from './baselines.ts';
import { estimateMonthlyCredits, type MonitorCredits } from './billing.ts';
import { CheckLeases } from './check-leases.ts';
import { CheckRunner, monitorCheckUnitKind } from './check-runner.ts';
import { skippedCheck } from './check-record.ts';
import {
  checkListSchema,
  checkPagesSchema,
  monitorCreateSchema,
  monitorListSchema,
  monitorUpdateSchema,
  type CheckListOptions,
  type CheckPagesOptions,
  type MonitorCreateInput,
  type MonitorListOptions,
  type MonitorUpdateInput,
  type ResolvedMonitorCreate,
  type ResolvedMonitorUpdate,
} from './options.ts';
import { applyUpdate, newMonitorRecord, publicMonitor } from './monitor-record.ts';
import { MonitorRecords, type MonitorRecord } from './records.ts';
import { purgeExpired } from './retention.ts';
import { MonitorScheduler } from './scheduler.ts';
import { nextRunOf, resolveSchedule, type MonitorSchedule } from './schedule.ts';
import { storedTargets, type TargetServices } from './target-input.ts';
import type { Monitor, MonitorCheck, MonitorCheckDetail } from './types.ts';

export type { MonitorCredits } from './billing.ts';
export type { MonitorSchedule } from './schedule.ts';

/** Where the due runs are claimed: one entry per monitor and due time. */
const runClaims = 'monitor-run-claims';
/** A due time's claim outlives any clock skew or slow fire between the processes. */
const runClaimTtlMs = dayMs;
/**
 * How often a scheduler on a shared store re-reads the monitors: a monitor another process
 * created is planned here within this time (the minimum schedule interval is a minute).
 */
const rescanMs = 30_000;

/** What the monitors are built from. */
export interface MonitorsOptions {
  /** Where monitors, checks and snapshots live. */
  store: Store;
  /** Engine settings (minimum schedule interval, check concurrency, fetch settings). */
  config?: EngineConfig;
  /** Fetchers for the checks' scrapes (tests, custom transports). */
  fetchers?: readonly Fetcher[];
  /** Judges changes against goals and extracts JSON; without one, judging uses keywords. */
  llm?: LlmProvider;
  /**
   * Web search providers of search targets (SearXNG …); the store's built-in index is always
   * searched when the store keeps one.
   */
  searchProviders?: readonly SearchProvider[];
  /** Where events go (the webhook notifier, e-mail …). */
  notifiers?: readonly Notifier[];
  /** Credits of checks; unset: checks are free. */
  credits?: MonitorCredits;
  /** Told what went wrong in the background (a failed save, a judge failure). */
  onWarning?: (message: string, error?: unknown) => void;
  /**
   * A queue shared with worker processes: checks then run on the processes whose job host
   * consumes `checkUnits()`. Unset or in-process: each process runs the checks it starts.
   */
  queue?: Queue;
}

/** Who a call acts for: monitors belong to a team and are invisible to others. */
export interface MonitorScope {
  /** @default 'default' */
  team?: string;
}

/** Monitors over a Store: CRUD, checks, and the scheduler (`new Monitors({ store, notifiers, llm })`). */
export class Monitors {
  readonly #records: MonitorRecords;
  readonly #config: EngineConfig;
  readonly #options: MonitorsOptions;
  readonly #notifiers: readonly Notifier[];
  readonly #targetServices: TargetServices;
  /** Read-modify-write of one monitor's record, one at a time. */
  readonly #queue = new KeyedQueue();
  readonly #checks: CheckRunner;
  readonly #scheduler: MonitorScheduler;
  /** This instance's name in the run claims of a shared store. */
  readonly #owner = randomUUID();
  /** Re-reads the store's monitors when it is shared, so those another process made are planned. */
  #rescan: NodeJS.Timeout | undefined;

  constructor(options: MonitorsOptions) {
    this.#options = options;
    this.#records = new MonitorRecords(options.store);
    this.#config = options.config ?? resolveEngineConfig();
    this.#notifiers = options.notifiers ?? [];
    this.#targetServices = {
      store: options.store,
      llm: options.llm,
      searchProviders: options.searchProviders,
    };
    this.#checks = new CheckRunner({
      records: this.#records,
      config: this.#config,
      queue: this.#queue,
      notifiers: this.#notifiers,
      fetchers: options.fetchers,
      llm: options.llm,
      searchProviders: options.searchProviders,
      credits: options.credits,
      publicMonitor,
      leases: new CheckLeases(options.store, this.#owner),
      workQueue: options.queue?.capabilities.shared ? options.queue : undefined,
      warn: (message, error) => this.#warn(message, error),
    });
    this.#scheduler = new MonitorScheduler({
      fire: (id, now) =>
        this.#queue
          .run(id, () => this.#fire(id, now))
          .catch((error: unknown) => this.#warn(`scheduled run of monitor ${id} failed`, error)),
      sweep: () => this.purgeAll(),
    });
  }

  /**
   * Creates a monitor. It is active at once; its first check runs at its schedule's next time.
   *
   * @throws BAD_REQUEST naming the bad field (schedule, targets, webhook …); INVALID_URL for a
   * target URL; NOT_CONFIGURED when a target asks for JSON and no LLM is configured.
   * @example
   * const monitors = new Monitors({ store: new SqliteStore({ path: 'trawl.db' }) });
   * const monitor = await monitors.create({
   *   name: 'Pricing',
   *   schedule: { text: 'every day at 9am' },
   *   targets: [{ type: 'scrape', urls: ['https://example.com/pricing'] }],
   * });
   * monitors.start();
   */
  async create(
    input: MonitorCreateInput | ResolvedMonitorCreate,
    scope: MonitorScope = {},
  ): Promise<Monitor> {
    const parsed = resolveOptions(monitorCreateSchema, input, 'monitor');
    // Targets and webhook are stored as the caller wrote them, without defaults spelled out.
    const given = givenOptions(parsed) as MonitorCreateInput;
    const record = newMonitorRecord(parsed, given, {
      team: scope.team ?? 'default',
      schedule: (schedule, now) => this.#schedule(schedule, now),
      targets: (inputs) => storedTargets(inputs, this.#targetServices),
      teamKeyOf: (team, createdAt, id) => this.#records.teamKeyOf(team, createdAt, id),
    });
    record.estimatedCreditsPerMonth = estimateMonthlyCredits(record, this.#options.credits);
    await this.#records.putMonitor(record);
    this.#scheduler.plan(record);
    return publicMonitor(record);
  }

  /** A monitor by id. @throws NOT_FOUND ("Monitor not found") for unknown or another team's ids */
  async get(id: string, scope: MonitorScope = {}): Promise<Monitor> {
    return publicMonitor(await this.#owned(id, scope));
  }

  /** A team's monitors, newest first: `limit` 1–100 (default 25) from `offset`. @throws BAD_REQUEST */
  async list(options: MonitorListOptions = {}, scope: MonitorScope = {}): Promise<Monitor[]> {
    const { limit, offset } = parseOrThrow(monitorListSchema, options, 'monitor list options');
    const records = await this.#records.listMonitors(scope.team ?? 'default', limit, offset);
    return records.map(publicMonitor);
  }

  /**
   * Changes some fields of a monitor. Omitted fields stay; `webhook`, `notification` and `goal`
   * take null to clear. A `goal` without `judgeEnabled` switches judging on (spec, "States").
   * A new schedule moves `nextRunAt`; pausing clears it and resuming sets it from now.
   *
   * @throws BAD_REQUEST for an empty update or a bad field; NOT_FOUND
   */
  async update(
    id: string,
    input: MonitorUpdateInput | ResolvedMonitorUpdate,
    scope: MonitorScope = {},
  ): Promise<Monitor> {
    const parsed = resolveOptions(monitorUpdateSchema, input, 'monitor update');
    const given = givenOptions(parsed) as MonitorUpdateInput;
    if (Object.keys(parsed).length === 0) {
      throw new ValidationError('Update body cannot be empty', {
        details: [{ path: [], message: 'give at least one field to change' }],
      });
    }
    await this.#owned(id, scope);
    return this.#queue.run(id, async () => {
      const record = await this.#owned(id, scope);
      const now = new Date();
      applyUpdate(record, parsed, given, now, {
        schedule: (schedule) => this.#schedule(schedule, now),
        targets: (inputs) => storedTargets(inputs, this.#targetServices),
      });
      record.estimatedCreditsPerMonth = estimateMonthlyCredits(record, this.#options.credits);
      record.updatedAt = now.toISOString();
      await this.#records.putMonitor(record);
      this.#scheduler.plan(record);
      return publicMonitor(record);
    });
  }

  /** Deletes a monitor, its checks and snapshots; a running check is stopped first. @throws NOT_FOUND */
  async delete(id: string, scope: MonitorScope = {}): Promise<void> {
    await this.#owned(id, scope);
    await this.#checks.stop(id);
    await this.#queue.run(id, async () => {
      const record = await this.#owned(id, scope);
      this.#scheduler.unplan(id);
      await this.#records.deleteMonitor(record);
      await new Baselines(this.#records).deleteAll(id);
    });
  }

  /**
   * Starts a check now and answers at once with it (`queued`, or `running` when a slot is free);
   * the check goes on in the background (`waitForCheck` follows it).
   *
   * @throws CONFLICT when the monitor is paused or a check is running (`details.checkId`);
   * PAYMENT_REQUIRED when the team has no credits; NOT_FOUND
   */
  async run(id: string, scope: MonitorScope = {}): Promise<MonitorCheck> {
    await this.#owned(id, scope);
    return this.#queue.run(id, async () => {
      const record = await this.#owned(id, scope);
      if (record.status === 'paused')
        throw new ConflictError('Monitor is paused. Resume it before running a check.');
      const runningCheckId = await this.#checks.runningCheckOf(id);
      if (runningCheckId) {
        throw new ConflictError('Monitor check is already running.', {
          details: { checkId: runningCheckId },
        });
      }
      if (this.#options.credits && !(await this.#options.credits.allows(record.team)))
        throw new PaymentRequiredError(
          'Insufficient credits to run a monitor check. Ask the operator for more credits.',
        );
      return this.#checks.start(record, 'manual', null);
    });
  }

  /** Resolves when the check ends (at once when it has ended), with its final record. @throws NOT_FOUND */
  async waitForCheck(
    monitorId: string,
    checkId: string,
    scope: MonitorScope = {},
  ): Promise<MonitorCheck> {
    const running = this.#checks.done(monitorId, checkId);
    if (running) return running;
    await this.#owned(monitorId, scope);
    const check = await this.#records.getCheck(monitorId, checkId);
    if (!check) throw new NotFoundError('Check not found');
    return check;
  }

  /** A monitor's checks, newest first, optionally of one status. @throws BAD_REQUEST, NOT_FOUND */
  async checks(
    monitorId: string,
    options: CheckListOptions = {},
    scope: MonitorScope = {},
  ): Promise<MonitorCheck[]> {
    const { limit, offset, status } = parseOrThrow(checkListSchema, options, 'check list options');
    await this.#owned(monitorId, scope);
    return this.#records.listChecks(monitorId, limit, offset, status);
  }

  /**
   * A check with one page of its pages (`limit` 1–100, default 25, from `skip`, optionally one
   * status). @throws BAD_REQUEST; NOT_FOUND ("Check not found")
   */
  async check(
    monitorId: string,
    checkId: string,
    options: CheckPagesOptions = {},
    scope: MonitorScope = {},
  ): Promise<MonitorCheckDetail> {
    const { limit, skip, status } = parseOrThrow(checkPagesSchema, options, 'check page options');
    await this.#owned(monitorId, scope);
    const check = await this.#records.getCheck(monitorId, checkId);
    if (!check) throw new NotFoundError('Check not found');
    const { pages, more } = await this.#records.listPages(checkId, skip, limit, status);
    return { ...check, pages, nextSkip: more ? skip + pages.length : undefined };
  }

  /**
   * Starts the scheduler: closes checks a crash left open, runs once every monitor whose run
   * fell while the process was down, and keeps every active monitor on its schedule. Resolves
   * once that catch-up has been started. Idempotent.
   */
  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    const now = new Date();
    const due: MonitorRecord[] = [];
    for await (const { value: record } of this.#records.allMonitors()) {
      await this.#checks.closeInterrupted(record, now);
      if (record.status !== 'active') continue;
      const next = record.nextRunAt ? Date.parse(record.nextRunAt) : NaN;
      if (!Number.isFinite(next) || next <= now.getTime()) due.push(record);
      else this.#scheduler.plan(record);
    }
    for (const record of due) {
      await this.#queue
        .run(record.id, () => this.#fire(record.id, now))
        .catch((error: unknown) => this.#warn(`catching up monitor ${record.id} failed`, error));
    }
    if (!this.#started) return;
    this.#scheduler.start();
    if (this.#options.store.capabilities?.shared) {
      this.#rescan = setInterval(() => void this.#planAll(), rescanMs);
      this.#rescan.unref();
    }
  }

  /**
   * Stops the scheduler and the checks in progress (they end `failed`, and the next scheduled
   * run happens as planned). Resolves once they have ended. Idempotent.
   */
  async stop(): Promise<void> {
    this.#started = false;
    this.#scheduler.stop();
    clearInterval(this.#rescan);
    this.#rescan = undefined;
    await this.#checks.stopAll();
    await Promise.allSettled(
      this.#notifiers.map((notifier) => notifier.idle?.() ?? Promise.resolve()),
    );
  }

  /**
   * The checks that processes sharing the queue hand over, as units for the job host of a
   * process that runs them (a worker's part), up to `monitorConcurrency` at once. Without a
   * shared queue each process runs its own checks, and there are none.
   */
  checkUnits(): UnitKind | undefined {
    if (!this.#options.queue?.capabilities.shared) return undefined;
    return {
      kind: monitorCheckUnitKind,
      run: (unit, signal) => this.#checks.runUnit(unit.data, signal),
      concurrency: this.#config.monitorConcurrency,
    };
  }

  /** Resolves when no check of this process is running or queued. */
  idle(): Promise<void> {
    return this.#checks.idle();
  }

  /** Purges one monitor now (tests and maintenance), as a finished check does. @throws NOT_FOUND */
  async purge(id: string, now = new Date(), scope: MonitorScope = {}): Promise<void> {
    const record = await this.#owned(id, scope);
    await this.#queue.run(id, () => purgeExpired(this.#records, record, now));
  }

  /**
   * Purges every monitor's checks and baselines older than its retention, as each finished check
   * does for its own monitor; the scheduler runs this daily so that paused monitors are purged
   * too. Resolves with the number of monitors looked at.
   */
  async purgeAll(now = new Date()): Promise<number> {
    let count = 0;
    for await (const { value: record } of this.#records.allMonitors()) {
      count += 1;
      await this.#queue
        .run(record.id, async () => {
          const current = await this.#records.getMonitor(record.id);
          if (current) await purgeExpired(this.#records, current, now);
        })
        .catch((error: unknown) => this.#warn(`purging monitor ${record.id} failed`, error));
    }
    return count;
  }

  // ---- internals ----

  #started = false;

  #schedule(
    input: { cron?: string | undefined; text?: string | undefined; timezone?: string | undefined },
    now: Date,
  ): MonitorSchedule {
    return resolveSchedule(input, this.#config.monitorMinIntervalMinutes, now);
  }

  /** The monitor, if it exists and belongs to the scope's team. @throws NOT_FOUND */
  async #owned(id: string, scope: MonitorScope): Promise<MonitorRecord> {
    const record = await this.#records.getMonitor(id);
    if (!record || record.team !== (scope.team ?? 'default'))
      throw new NotFoundError('Monitor not found');
    return record;
  }

  /**
   * A scheduled run of a monitor: moves `nextRunAt` past now first (so a crash cannot repeat the
   * run, and a late timer cannot start a storm), then starts the check — or records it skipped
   * when one is still running or the team has no credits. Call inside the monitor's queue.
   */
  async #fire(id: string, now: Date): Promise<void> {
    const record = await this.#records.getMonitor(id);
    if (!record || record.status !== 'active') return;
    // Another process sharing the store ran this due time already (or the schedule moved).
    if (record.nextRunAt !== null && Date.parse(record.nextRunAt) > now.getTime()) {
      this.#scheduler.plan(record);
      return;
    }
    const scheduledFor = record.nextRunAt;
    // One process per due time: the others only plan the next one (the winner writes it).
    const claimKey = `${id}/${scheduledFor ?? now.toISOString()}`;
    if (!(await this.#options.store.claim(runClaims, claimKey, this.#owner, runClaimTtlMs))) {
      const next = nextRunOf(record.schedule, now)?.toISOString() ?? null;
      this.#scheduler.plan({ ...record, nextRunAt: next });
      return;
    }
    record.nextRunAt = nextRunOf(record.schedule, now)?.toISOString() ?? null;
    record.updatedAt = now.toISOString();
    await this.#records.putMonitor(record);
    this.#scheduler.plan(record);
    const runningCheckId =
      (await this.#checks.runningCheckOf(id)) ?? (await this.#checks.runningElsewhere(record));
    const credits = this.#options.credits;
    const hasCredits = !credits || (await credits.allows(record.team));
    if (runningCheckId || !hasCredits) {
      const reason = runningCheckId ? { runningCheckId } : 'no_credits';
      await this.#records.putCheck(skippedCheck(id, scheduledFor, now, reason));
      return;
    }
    await this.#checks.start(record, 'scheduled', scheduledFor);
  }

  /** Plans every active monitor of the store again (those another process created or moved). */
  async #planAll(): Promise<void> {
    try {
      for await (const { value: record } of this.#records.allMonitors()) {
        if (!this.#started) return;
        // Checks whose process died are closed here, not only at a start.
        await this.#checks.closeInterrupted(record, new Date());
        this.#scheduler.replan(record);
      }
    } catch (error) {
      this.#warn('re-reading the monitors failed', error);
    }
  }

  #warn(message: string, error?: unknown): void {
    this.#options.onWarning?.(message, error);
  }
}

/** The monitor facade under its first name. */
export const MonitorService = Monitors;
/** The monitor facade under its first name. */
export type MonitorService = Monitors;
/** What the monitors are built from, under its first name. */
export type MonitorServiceOptions = MonitorsOptions;
