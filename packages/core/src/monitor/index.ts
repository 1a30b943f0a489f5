/**
 * `MonitorService`: monitors kept in a Store, checked on their schedules, their news sent to
 * notifiers. Create, read, list, update and delete monitors; run a check now; read checks and
 * their pages; `start()` the scheduler and `stop()` it.
 *
 * Scheduling: croner evaluates each schedule in its timezone; the store's `nextRunAt` is the
 * truth, so one timer (at the earliest `nextRunAt` of all monitors, kept in a heap) drives every
 * monitor and a restart loses nothing. At `start()` a monitor whose run fell while the process
 * was down runs once (no storm of missed runs) and checks left `queued`/`running` by a crash are
 * closed as failed. Paused monitors never run. One process should run the scheduler of a store:
 * two schedulers sharing a Redis or PostgreSQL store would both run every monitor.
 */
import { resolveEngineConfig, type EngineConfig } from '../config.ts';
import { crawlOptionsSchema } from '../crawl/options.ts';
import {
  ConflictError,
  NotConfiguredError,
  NotFoundError,
  PaymentRequiredError,
  ValidationError,
  toTrawlError,
} from '../errors.ts';
import type { Fetcher } from '../interfaces/fetcher.ts';
import type { LlmProvider } from '../interfaces/llm-provider.ts';
import type { Notifier } from '../interfaces/notifier.ts';
import type { SearchProvider } from '../interfaces/search-provider.ts';
import type { Store } from '../interfaces/store.ts';
import { parseTargetUrl } from '../internal/url.ts';
import { parseOrThrow } from '../internal/zod.ts';
import { scrapeOptionsSchema, type ScrapeOptions } from '../scrape/options.ts';
import { Baselines } from './baselines.ts';
import { comparisonOf, creditsPerPage, emptySummary, runCheck } from './check.ts';
import {
  checkListSchema,
  checkPagesSchema,
  monitorCreateSchema,
  monitorListSchema,
  monitorSearchTargetSchema,
  monitorUpdateSchema,
  searchTargetGoalProblem,
  type CheckListOptions,
  type CheckPagesOptions,
  type MonitorCreateInput,
  type MonitorListOptions,
  type MonitorTargetInput,
  type MonitorUpdateInput,
} from './options.ts';
import { MonitorRecords, type MonitorRecord } from './records.ts';
import { pendingSearchResult } from './search-target.ts';
import { nextRunOf, resolveSchedule, runsPerMonth, type MonitorSchedule } from './schedule.ts';
import type {
  Monitor,
  MonitorCheck,
  MonitorCheckDetail,
  MonitorNotification,
  MonitorTarget,
  MonitorWebhook,
} from './types.ts';

/** How monitor checks are paid for; the credits ledger fits. */
export interface MonitorCredits {
  /** Whether the team may spend `credits` now. */
  allows(team: string, credits?: number): Promise<boolean>;
  /** Charges a finished check. */
  debit(
    team: string,
    credits: number,
    reference: { endpoint: 'monitor'; jobId?: string },
  ): Promise<unknown>;
  /** Credits of `units` pages of monitor checks (default: one each). */
  cost?(endpoint: 'monitor', units: number): number;
}

/** What a MonitorService is built from. */
export interface MonitorServiceOptions {
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
}

/** Who a call acts for: monitors belong to a team and are invisible to others. */
export interface MonitorScope {
  /** @default 'default' */
  team?: string;
}

const dayMs = 24 * 60 * 60 * 1000;
/** Longest a timer waits before looking at the heap again (timers cannot wait past ~24.8 days). */
const maxTimerMs = 6 * 60 * 60 * 1000;
/** Delay of the first retention sweep after `start()`, out of the way of the catch-up runs. */
const firstSweepMs = 60_000;
/** Pages a crawl target counts for, before its first check, when it sets no limit. */
const defaultCrawlEstimate = 100;

/** A min-heap entry of the scheduler; stale when its version is not the monitor's latest. */
interface Due {
  at: number;
  id: string;
  version: number;
}

/** A check in progress in this process. */
interface Running {
  checkId: string;
  abort: AbortController;
  done: Promise<MonitorCheck>;
}

/** Monitors over a Store: CRUD, checks, and the scheduler. */
export class MonitorService {
  readonly #records: MonitorRecords;
  readonly #config: EngineConfig;
  readonly #options: MonitorServiceOptions;
  readonly #notifiers: readonly Notifier[];
  readonly #running = new Map<string, Running>();
  readonly #locks = new Map<string, Promise<unknown>>();
  readonly #heap: Due[] = [];
  readonly #versions = new Map<string, number>();
  #slots: number;
  readonly #waiting: (() => void)[] = [];
  #timer: NodeJS.Timeout | undefined;
  #sweeper: NodeJS.Timeout | undefined;
  #started = false;

  constructor(options: MonitorServiceOptions) {
    this.#options = options;
    this.#records = new MonitorRecords(options.store);
    this.#config = options.config ?? resolveEngineConfig();
    this.#notifiers = options.notifiers ?? [];
    this.#slots = this.#config.monitorConcurrency;
  }

  /**
   * Creates a monitor. It is active at once; its first check runs at its schedule's next time.
   *
   * @throws BAD_REQUEST naming the bad field (schedule, targets, webhook …); INVALID_URL for a
   * target URL; NOT_CONFIGURED when a target asks for JSON and no LLM is configured.
   * @example
   * const monitors = new MonitorService({ store: new SqliteStore({ path: 'trawl.db' }) });
   * const monitor = await monitors.create({
   *   name: 'Pricing',
   *   schedule: { text: 'every day at 9am' },
   *   targets: [{ type: 'scrape', urls: ['https://example.com/pricing'] }],
   * });
   * monitors.start();
   */
  async create(input: MonitorCreateInput, scope: MonitorScope = {}): Promise<Monitor> {
    const parsed = parseOrThrow(monitorCreateSchema, input, 'monitor');
    const now = new Date();
    const schedule = this.#schedule(parsed.schedule, now);
    const targets = this.#targets(input.targets);
    const id = crypto.randomUUID();
    const createdAt = now.toISOString();
    const team = scope.team ?? 'default';
    const goal = parsed.goal ?? null;
    requireSearchGoal({ targets, goal, judgeEnabled: parsed.judgeEnabled });
    const record: MonitorRecord = {
      id,
      name: parsed.name,
      status: 'active',
      schedule,
      nextRunAt: nextRunOf(schedule, now)?.toISOString() ?? null,
      lastRunAt: null,
      currentCheckId: null,
      targets,
      webhook: webhookOf(input.webhook),
      notification: notificationOf(parsed.notification),
      retentionDays: parsed.retentionDays,
      estimatedCreditsPerMonth: 0,
      lastCheckSummary: null,
      goal,
      judgeEnabled: parsed.judgeEnabled ?? Boolean(goal?.trim()),
      createdAt,
      updatedAt: createdAt,
      team,
      teamKey: this.#records.teamKeyOf(team, createdAt, id),
    };
    record.estimatedCreditsPerMonth = this.#estimate(record);
    await this.#records.putMonitor(record);
    this.#plan(record);
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
  async update(id: string, input: MonitorUpdateInput, scope: MonitorScope = {}): Promise<Monitor> {
    const parsed = parseOrThrow(monitorUpdateSchema, input, 'monitor update');
    if (Object.keys(parsed).length === 0) {
      throw new ValidationError('Update body cannot be empty', {
        details: [{ path: [], message: 'give at least one field to change' }],
      });
    }
    await this.#owned(id, scope);
    return this.#locked(id, async () => {
      const record = await this.#owned(id, scope);
      const now = new Date();
      if (parsed.name !== undefined) record.name = parsed.name;
      if (parsed.retentionDays !== undefined) record.retentionDays = parsed.retentionDays;
      if (input.targets !== undefined) record.targets = this.#targets(input.targets);
      if (input.webhook !== undefined) record.webhook = webhookOf(input.webhook ?? undefined);
      if (parsed.notification !== undefined)
        record.notification = notificationOf(parsed.notification);
      if (parsed.goal !== undefined) {
        record.goal = parsed.goal;
        if (parsed.judgeEnabled === undefined && parsed.goal?.trim()) record.judgeEnabled = true;
      }
      if (parsed.judgeEnabled !== undefined) record.judgeEnabled = parsed.judgeEnabled;
      requireSearchGoal(record);
      if (parsed.schedule !== undefined) {
        record.schedule = this.#schedule(parsed.schedule, now);
        if (record.status === 'active')
          record.nextRunAt = nextRunOf(record.schedule, now)?.toISOString() ?? null;
      }
      if (parsed.status !== undefined && parsed.status !== record.status) {
        record.status = parsed.status;
        record.nextRunAt =
          parsed.status === 'paused'
            ? null
            : (nextRunOf(record.schedule, now)?.toISOString() ?? null);
      }
      record.estimatedCreditsPerMonth = this.#estimate(record);
      record.updatedAt = now.toISOString();
      await this.#records.putMonitor(record);
      this.#plan(record);
      return publicMonitor(record);
    });
  }

  /** Deletes a monitor, its checks and snapshots; a running check is stopped first. @throws NOT_FOUND */
  async delete(id: string, scope: MonitorScope = {}): Promise<void> {
    await this.#owned(id, scope);
    const running = this.#running.get(id);
    if (running) {
      running.abort.abort();
      await running.done.catch(() => undefined);
    }
    await this.#locked(id, async () => {
      const record = await this.#owned(id, scope);
      this.#unplan(id);
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
    return this.#locked(id, async () => {
      const record = await this.#owned(id, scope);
      if (record.status === 'paused')
        throw new ConflictError('Monitor is paused. Resume it before running a check.');
      const running = this.#running.get(id);
      if (running) {
        throw new ConflictError('Monitor check is already running.', {
          details: { checkId: running.checkId },
        });
      }
      if (this.#options.credits && !(await this.#options.credits.allows(record.team)))
        throw new PaymentRequiredError(
          'Insufficient credits to run a monitor check. Ask the operator for more credits.',
        );
      return this.#startCheck(record, 'manual', null);
    });
  }

  /** Resolves when the check ends (at once when it has ended), with its final record. @throws NOT_FOUND */
  async waitForCheck(
    monitorId: string,
    checkId: string,
    scope: MonitorScope = {},
  ): Promise<MonitorCheck> {
    const running = this.#running.get(monitorId);
    if (running?.checkId === checkId) return running.done;
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
      await this.#closeInterrupted(record, now);
      if (record.status !== 'active') continue;
      const next = record.nextRunAt ? Date.parse(record.nextRunAt) : NaN;
      if (!Number.isFinite(next) || next <= now.getTime()) due.push(record);
      else this.#plan(record);
    }
    for (const record of due) {
      await this.#locked(record.id, () => this.#fire(record.id, now)).catch((error: unknown) =>
        this.#warn(`catching up monitor ${record.id} failed`, error),
      );
    }
    this.#arm();
    // Monitors that never run (paused ones) are purged too: once a day, starting soon after.
    const sweep = () => {
      this.#sweeper = setTimeout(
        () => {
          void this.purgeAll().finally(() => {
            if (this.#started) sweep();
          });
        },
        this.#sweeper === undefined ? firstSweepMs : dayMs,
      );
      this.#sweeper.unref();
    };
    sweep();
  }

  /**
   * Stops the scheduler and the checks in progress (they end `failed`, and the next scheduled
   * run happens as planned). Resolves once they have ended. Idempotent.
   */
  async stop(): Promise<void> {
    this.#started = false;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#sweeper) clearTimeout(this.#sweeper);
    this.#sweeper = undefined;
    const running = [...this.#running.values()];
    for (const check of running) check.abort.abort();
    await Promise.allSettled(running.map((check) => check.done));
    await Promise.allSettled(
      this.#notifiers.map((notifier) => notifier.idle?.() ?? Promise.resolve()),
    );
  }

  /** Resolves when no check of this process is running or queued. */
  async idle(): Promise<void> {
    while (this.#running.size > 0) {
      await Promise.allSettled([...this.#running.values()].map((check) => check.done));
    }
  }

  // ---- internals ----

  #schedule(
    input: { cron?: string | undefined; text?: string | undefined; timezone?: string | undefined },
    now: Date,
  ): MonitorSchedule {
    return resolveSchedule(input, this.#config.monitorMinIntervalMinutes, now);
  }

  /** Targets as stored: the caller's own options (no defaults spelled out), each with an id. */
  #targets(inputs: readonly MonitorTargetInput[]): MonitorTarget[] {
    return inputs.map((input, index) => {
      const path = ['targets', index];
      const id = input.id ?? crypto.randomUUID();
      if (input.type === 'search') return this.#searchTarget(input, id, path);
      const scrapeOptions = input.scrapeOptions as ScrapeOptions | undefined;
      // Checks across fields (changeTracking needs markdown, waitFor ≤ timeout / 2).
      if (scrapeOptions)
        parseOrThrow(scrapeOptionsSchema, scrapeOptions, `targets.${index}.scrapeOptions`);
      if (comparisonOf(scrapeOptions).json && !this.#options.llm) {
        throw new NotConfiguredError(
          `Target ${index} asks for JSON (a json format or changeTracking json mode), which needs an LLM provider, and none is configured.`,
          {
            details: [
              { path: [...path, 'scrapeOptions', 'formats'], message: 'needs an LLM provider' },
            ],
          },
        );
      }
      if (input.type === 'scrape') {
        const urls = input.urls ?? (input.url !== undefined ? [input.url] : []);
        const checked = urls.map((url) => parseTargetUrl(url).href);
        return {
          id,
          type: 'scrape',
          urls: checked,
          ...(scrapeOptions ? { scrapeOptions: structuredClone(scrapeOptions) } : {}),
        };
      }
      parseOrThrow(crawlOptionsSchema, input.crawlOptions ?? {}, `targets.${index}.crawlOptions`);
      return {
        id,
        type: 'crawl',
        url: parseTargetUrl(input.url).href,
        ...(input.crawlOptions ? { crawlOptions: structuredClone(input.crawlOptions) } : {}),
        ...(input.scrapeOptions ? { scrapeOptions: structuredClone(input.scrapeOptions) } : {}),
      };
    });
  }

  /** A search target as stored. @throws NOT_CONFIGURED when nothing could answer its queries */
  #searchTarget(
    input: Extract<MonitorTargetInput, { type: 'search' }>,
    id: string,
    path: (string | number)[],
  ): MonitorTarget {
    if (!this.#options.store.searchIndex && !this.#options.searchProviders?.length) {
      throw new NotConfiguredError(
        'Search targets need something to search: this store keeps no search index (use the SQLite store) and no web search provider is configured (TRAWL_SEARXNG_URL).',
        { details: [{ path, message: 'no search provider' }] },
      );
    }
    const parsed = parseOrThrow(monitorSearchTargetSchema, input, path.join('.'));
    return {
      id,
      type: 'search',
      queries: parsed.queries,
      searchWindow: parsed.searchWindow,
      maxResults: parsed.maxResults,
      ...(parsed.includeDomains ? { includeDomains: parsed.includeDomains } : {}),
      ...(parsed.excludeDomains ? { excludeDomains: parsed.excludeDomains } : {}),
    };
  }

  /**
   * Credits a month of checks costs: runs in the next 30 days × pages of every target × credits
   * per page (5 with a JSON extraction). A crawl target counts the pages its last check reached;
   * before that, its `limit`, or 100 pages without one.
   */
  #estimate(record: MonitorRecord): number {
    const runs = runsPerMonth(record.schedule);
    let perRun = 0;
    for (const target of record.targets) {
      // A search target costs a credit per query (its results are not scraped).
      if (target.type === 'search') {
        perRun += target.queries.length;
        continue;
      }
      const rate = creditsPerPage(comparisonOf(target.scrapeOptions));
      const pages =
        target.type === 'scrape'
          ? target.urls.length
          : (record.pagesSeen?.[target.id] ?? target.crawlOptions?.limit ?? defaultCrawlEstimate);
      perRun += pages * rate;
    }
    const credits = this.#options.credits?.cost?.('monitor', perRun) ?? perRun;
    return runs * credits;
  }

  /** The monitor, if it exists and belongs to the scope's team. @throws NOT_FOUND */
  async #owned(id: string, scope: MonitorScope): Promise<MonitorRecord> {
    const record = await this.#records.getMonitor(id);
    if (!record || record.team !== (scope.team ?? 'default'))
      throw new NotFoundError('Monitor not found');
    return record;
  }

  /** Runs `work` after every earlier locked work on the same monitor (read-modify-write safety). */
  #locked<T>(id: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#locks.get(id) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => undefined);
    this.#locks.set(id, settled);
    void settled.then(() => {
      if (this.#locks.get(id) === settled) this.#locks.delete(id);
    });
    return next;
  }

  /** Creates a check record, marks it current, and runs it in the background. Call locked. */
  async #startCheck(
    record: MonitorRecord,
    trigger: MonitorCheck['trigger'],
    scheduledFor: string | null,
  ): Promise<MonitorCheck> {
    const now = new Date().toISOString();
    const check: MonitorCheck = {
      id: crypto.randomUUID(),
      monitorId: record.id,
      status: 'queued',
      trigger,
      scheduledFor,
      startedAt: null,
      finishedAt: null,
      estimatedCredits: Math.round(
        record.estimatedCreditsPerMonth / Math.max(1, runsPerMonth(record.schedule)),
      ),
      reservedCredits: null,
      actualCredits: null,
      billingStatus: this.#options.credits ? 'reserved' : 'not_applicable',
      summary: emptySummary(),
      targetResults: record.targets.map((target) =>
        target.type === 'scrape'
          ? { targetId: target.id, type: 'scrape', expectedJobs: [] }
          : target.type === 'search'
            ? pendingSearchResult(target.id)
            : { targetId: target.id, type: 'crawl', crawlId: '' },
      ),
      notificationStatus: {},
      error: null,
      createdAt: now,
      updatedAt: now,
    };
    await this.#records.putCheck(check);
    record.currentCheckId = check.id;
    record.updatedAt = now;
    await this.#records.putMonitor(record);
    const abort = new AbortController();
    let resolveDone!: (check: MonitorCheck) => void;
    const done = new Promise<MonitorCheck>((resolve) => (resolveDone = resolve));
    this.#running.set(record.id, { checkId: check.id, abort, done });
    void this.#execute(record.id, check, abort.signal).then(
      (final) => {
        this.#running.delete(record.id);
        resolveDone(final);
      },
      (error: unknown) => {
        this.#running.delete(record.id);
        this.#warn(`check ${check.id} of monitor ${record.id} failed unexpectedly`, error);
        resolveDone({ ...check, status: 'failed', error: toTrawlError(error).message });
      },
    );
    return check;
  }

  /** Waits for a slot, runs the check, and folds its outcome into the monitor. */
  async #execute(
    monitorId: string,
    queued: MonitorCheck,
    signal: AbortSignal,
  ): Promise<MonitorCheck> {
    await this.#acquire();
    let check = queued;
    try {
      const record = await this.#records.getMonitor(monitorId);
      if (!record || signal.aborted) {
        check = {
          ...check,
          status: 'failed',
          error: 'The check was stopped before it started.',
          finishedAt: new Date().toISOString(),
        };
        if (record) await this.#records.putCheck(check);
        return check;
      }
      const startedAt = new Date().toISOString();
      check = { ...check, status: 'running', startedAt, updatedAt: startedAt };
      await this.#records.putCheck(check);
      await this.#locked(monitorId, async () => {
        const current = await this.#records.getMonitor(monitorId);
        if (!current) return;
        current.lastRunAt = startedAt;
        await this.#records.putMonitor(current);
      });
      let run;
      try {
        run = await runCheck(
          {
            records: this.#records,
            config: this.#config,
            ...(this.#options.fetchers ? { fetchers: this.#options.fetchers } : {}),
            ...(this.#options.llm ? { llm: this.#options.llm } : {}),
            ...(this.#options.searchProviders
              ? { searchProviders: this.#options.searchProviders }
              : {}),
            notifiers: this.#notifiers,
            signal,
            warn: (message) => this.#warn(message),
          },
          publicMonitor(record),
          check,
          (next) => this.#records.putCheck(next),
        );
      } catch (error) {
        await new Baselines(this.#records).discard(monitorId, check.id);
        const failed: MonitorCheck = {
          ...check,
          status: 'failed',
          error: toTrawlError(error).message,
          finishedAt: new Date().toISOString(),
          updatedAt: new Date().toISOString(),
        };
        await this.#records.putCheck(failed);
        return failed;
      }
      check = run.check;
      if (this.#options.credits && check.actualCredits) {
        try {
          await this.#options.credits.debit(
            record.team,
            this.#options.credits.cost?.('monitor', check.actualCredits) ?? check.actualCredits,
            {
              endpoint: 'monitor',
              jobId: check.id,
            },
          );
          check = { ...check, billingStatus: 'confirmed' };
        } catch (error) {
          check = { ...check, billingStatus: 'failed' };
          this.#warn(`charging check ${check.id} failed`, error);
        }
        await this.#records.putCheck(check);
      } else if (this.#options.credits) {
        check = { ...check, billingStatus: 'released' };
        await this.#records.putCheck(check);
      }
      const final = check;
      await this.#locked(monitorId, async () => {
        const current = await this.#records.getMonitor(monitorId);
        if (!current) return;
        current.lastCheckSummary = final.summary;
        current.pagesSeen = { ...current.pagesSeen, ...Object.fromEntries(run.pagesSeen) };
        current.estimatedCreditsPerMonth = this.#estimate(current);
        current.updatedAt = new Date().toISOString();
        await this.#records.putMonitor(current);
        await this.#purge(current, new Date());
      });
      return final;
    } finally {
      this.#release();
    }
  }

  async #acquire(): Promise<void> {
    if (this.#slots > 0) {
      this.#slots -= 1;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  #release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#slots += 1;
  }

  /** Deletes checks (with their pages) and baselines older than the monitor's retention. */
  async #purge(record: MonitorRecord, now: Date): Promise<void> {
    const cutoff = new Date(now.getTime() - record.retentionDays * dayMs).toISOString();
    for await (const { key, id } of this.#records.checksBefore(record.id, cutoff)) {
      if (id === record.currentCheckId) continue;
      await this.#records.deleteCheck(record.id, id, key);
    }
    for await (const { key, value } of this.#records.allSnapshots(record.id)) {
      if (value.seenAt < cutoff) await this.#records.deleteSnapshotKey(key);
    }
  }

  /** Purges one monitor now (tests and maintenance), as a finished check does. @throws NOT_FOUND */
  async purge(id: string, now = new Date(), scope: MonitorScope = {}): Promise<void> {
    const record = await this.#owned(id, scope);
    await this.#locked(id, () => this.#purge(record, now));
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
      await this.#locked(record.id, async () => {
        const current = await this.#records.getMonitor(record.id);
        if (current) await this.#purge(current, now);
      }).catch((error: unknown) => this.#warn(`purging monitor ${record.id} failed`, error));
    }
    return count;
  }

  /** Closes the current check a crash left open (not running here), dropping what it staged. */
  async #closeInterrupted(record: MonitorRecord, now: Date): Promise<void> {
    if (!record.currentCheckId || this.#running.has(record.id)) return;
    const check = await this.#records.getCheck(record.id, record.currentCheckId);
    if (!check || (check.status !== 'queued' && check.status !== 'running')) return;
    await new Baselines(this.#records).discard(record.id, check.id);
    await this.#records.putCheck({
      ...check,
      status: 'failed',
      error: 'The check was interrupted: the process stopped before it finished.',
      finishedAt: now.toISOString(),
      updatedAt: now.toISOString(),
    });
  }

  /**
   * A scheduled run of a monitor: moves `nextRunAt` past now first (so a crash cannot repeat the
   * run, and a late timer cannot start a storm), then starts the check — or records it skipped
   * when one is still running or the team has no credits. Call locked.
   */
  async #fire(id: string, now: Date): Promise<void> {
    const record = await this.#records.getMonitor(id);
    if (!record || record.status !== 'active') return;
    const scheduledFor = record.nextRunAt;
    record.nextRunAt = nextRunOf(record.schedule, now)?.toISOString() ?? null;
    record.updatedAt = now.toISOString();
    await this.#records.putMonitor(record);
    this.#plan(record);
    const running = this.#running.get(id);
    const hasCredits = !this.#options.credits || (await this.#options.credits.allows(record.team));
    if (running || !hasCredits) {
      const at = now.toISOString();
      await this.#records.putCheck({
        id: crypto.randomUUID(),
        monitorId: id,
        status: running ? 'skipped_overlap' : 'skipped_no_credits',
        trigger: 'scheduled',
        scheduledFor,
        startedAt: null,
        finishedAt: at,
        estimatedCredits: null,
        reservedCredits: null,
        actualCredits: 0,
        billingStatus: 'not_applicable',
        summary: emptySummary(),
        targetResults: [],
        notificationStatus: {},
        error: running
          ? `Skipped: check ${running.checkId} was still running.`
          : 'Monitor check skipped: insufficient credits.',
        createdAt: at,
        updatedAt: at,
      });
      return;
    }
    await this.#startCheck(record, 'scheduled', scheduledFor);
  }

  /** Puts (or moves) a monitor on the timer heap; paused monitors leave it. */
  #plan(record: MonitorRecord): void {
    const version = (this.#versions.get(record.id) ?? 0) + 1;
    this.#versions.set(record.id, version);
    if (record.status !== 'active' || !record.nextRunAt) return;
    heapPush(this.#heap, { at: Date.parse(record.nextRunAt), id: record.id, version });
    if (this.#started && this.#heap[0]?.id === record.id) this.#arm();
  }

  #unplan(id: string): void {
    this.#versions.delete(id);
  }

  /** Sets the one timer at the earliest planned run. */
  #arm(): void {
    if (!this.#started) return;
    if (this.#timer) clearTimeout(this.#timer);
    while (this.#heap[0] && this.#heap[0].version !== this.#versions.get(this.#heap[0].id))
      heapPop(this.#heap);
    const first = this.#heap[0];
    if (!first) {
      this.#timer = undefined;
      return;
    }
    const delay = Math.min(Math.max(0, first.at - Date.now()), maxTimerMs);
    this.#timer = setTimeout(() => void this.#tick(), delay);
  }

  /** Fires every monitor whose time has come, then sets the timer again. */
  async #tick(): Promise<void> {
    this.#timer = undefined;
    const now = new Date();
    const due: string[] = [];
    while (this.#heap[0] && this.#heap[0].at <= now.getTime()) {
      const entry = heapPop(this.#heap);
      if (entry && entry.version === this.#versions.get(entry.id)) due.push(entry.id);
    }
    for (const id of due) {
      // Versions move while firing; the fire re-plans the monitor.
      this.#versions.set(id, (this.#versions.get(id) ?? 0) + 1);
      await this.#locked(id, () => this.#fire(id, now)).catch((error: unknown) =>
        this.#warn(`scheduled run of monitor ${id} failed`, error),
      );
    }
    this.#arm();
  }

  #warn(message: string, error?: unknown): void {
    this.#options.onWarning?.(message, error);
  }
}

/** The resource without what only the store needs. */
function publicMonitor(record: MonitorRecord): Monitor {
  const { team: _team, teamKey: _key, pagesSeen: _pages, ...monitor } = record;
  return monitor;
}

/** Notification settings as stored: only what was given. */
function notificationOf(
  notification: { email?: MonitorNotification['email'] | undefined } | null | undefined,
): MonitorNotification {
  return notification?.email ? { email: notification.email } : {};
}

/** The webhook as stored: the object form. */
function webhookOf(webhook: MonitorCreateInput['webhook'] | undefined): MonitorWebhook | null {
  if (webhook === undefined || webhook === null) return null;
  if (typeof webhook === 'string') return { url: webhook };
  return structuredClone(webhook) as MonitorWebhook;
}

function heapPush(heap: Due[], entry: Due): void {
  heap.push(entry);
  let index = heap.length - 1;
  while (index > 0) {
    const parent = (index - 1) >> 1;
    if ((heap[parent]?.at ?? 0) <= entry.at) break;
    heap[index] = heap[parent] as Due;
    index = parent;
  }
  heap[index] = entry;
}

function heapPop(heap: Due[]): Due | undefined {
  const top = heap[0];
  const last = heap.pop();
  if (heap.length === 0 || !last) return top;
  let index = 0;
  for (;;) {
    const left = 2 * index + 1;
    const right = left + 1;
    let smallest = index;
    const at = (i: number) => (i === index ? last.at : (heap[i]?.at ?? Infinity));
    if (left < heap.length && at(left) < at(smallest)) smallest = left;
    if (right < heap.length && at(right) < at(smallest)) smallest = right;
    if (smallest === index) break;
    heap[index] = heap[smallest] as Due;
    index = smallest;
  }
  heap[index] = last;
  return top;
}

export type { MonitorSchedule } from './schedule.ts';

/** Search targets are judged against the goal: one is needed unless judging is off. @throws BAD_REQUEST */
function requireSearchGoal(monitor: Parameters<typeof searchTargetGoalProblem>[0]): void {
  const problem = searchTargetGoalProblem(monitor);
  if (problem)
    throw new ValidationError(problem, { details: [{ path: ['goal'], message: problem }] });
}
