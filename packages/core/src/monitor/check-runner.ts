/**
 * Runs monitor checks in the background, `monitorConcurrency` at a time: starts a check (its
 * record queued and made the monitor's current one), runs it when a slot is free, charges it,
 * folds its outcome into the monitor and purges what retention no longer keeps. A process that
 * stopped mid-check leaves it open; `closeInterrupted` fails it at the next start.
 *
 * With a shared queue a check is handed to the workers as a `monitor-check` unit: the
 * process that started it waits for the final record, the worker runs it (`runUnit`), and both
 * keep its lease alive, so another process closes it only when neither lives.
 */
import type { EngineConfig } from '../config.ts';
import { NotFoundError, toTrawlError } from '../errors.ts';
import type { Fetcher } from '../interfaces/fetcher.ts';
import type { LlmProvider } from '../interfaces/llm-provider.ts';
import type { Notifier } from '../interfaces/notifier.ts';
import type { Queue } from '../interfaces/queue.ts';
import type { SearchProvider } from '../interfaces/search-provider.ts';
import type { KeyedQueue } from '../internal/keyed-queue.ts';
import { Semaphore } from '../internal/semaphore.ts';
import { Baselines } from './baselines.ts';
import type { CheckLeases } from './check-leases.ts';
import {
  admitCheck,
  chargeCheck,
  estimatedCreditsPerRun,
  pageTake,
  estimateMonthlyCredits,
  pricesOf,
  type MonitorCredits,
} from './billing.ts';
import { runCheck } from './check.ts';
import { failedCheck, queuedCheck } from './check-record.ts';
import type { MonitorRecord, MonitorRecords } from './records.ts';
import { purgeExpired } from './retention.ts';
import type { Monitor, MonitorCheck } from './types.ts';

/** The queue unit of a check handed to a worker. */
export const monitorCheckUnitKind = 'monitor-check';
/** What a `monitor-check` unit carries: the check's record is in the store. */
interface CheckUnitData {
  monitorId: string;
  checkId: string;
}
/** How often a worker looks for a stop request of the check it runs. */
const stopPollMs = 500;
/** The lease holder shared by the process waiting for a check and the worker running it. */
const sharedHolderOf = (checkId: string) => `check:${checkId}`;

/** What checks run with. */
export interface CheckRunnerOptions {
  records: MonitorRecords;
  config: EngineConfig;
  /** Work on one monitor's record, one at a time (shared with the facade's updates). */
  queue: KeyedQueue;
  notifiers: readonly Notifier[];
  fetchers?: readonly Fetcher[] | undefined;
  llm?: LlmProvider | undefined;
  searchProviders?: readonly SearchProvider[] | undefined;
  credits?: MonitorCredits | undefined;
  /** The resource a check is run for (the record without what only the store needs). */
  publicMonitor: (record: MonitorRecord) => Monitor;
  /** Who runs which check, when processes share the store. */
  leases: CheckLeases;
  /** A shared queue: checks run on the processes consuming its `monitor-check` units. */
  workQueue?: Queue | undefined;
  warn: (message: string, error?: unknown) => void;
}

/** A check in progress in this process. */
interface Running {
  checkId: string;
  abort: AbortController;
  done: Promise<MonitorCheck>;
  /** Run by a worker: this process only waits for it. */
  handedOver: boolean;
}

/** The checks of this process. */
export class CheckRunner {
  readonly #options: CheckRunnerOptions;
  readonly #running = new Map<string, Running>();
  readonly #slots: Semaphore;

  constructor(options: CheckRunnerOptions) {
    this.#options = options;
    this.#slots = new Semaphore(options.config.monitorConcurrency);
  }

  /**
   * The id of the monitor's check this process runs or waits for, if one is still open. Its
   * record in the store decides: the final record is written a moment before this process lets
   * the check go (after its lease is released here, or after a worker's unit is heard to end),
   * and a check a caller has read as ended must not refuse the next run as "already running".
   */
  async runningCheckOf(monitorId: string): Promise<string | undefined> {
    const running = this.#running.get(monitorId);
    if (!running) return undefined;
    const check = await this.#options.records.getCheck(monitorId, running.checkId);
    return check && (check.status === 'queued' || check.status === 'running')
      ? running.checkId
      : undefined;
  }

  /** The final record of the monitor's running check `checkId`, once it ends. */
  done(monitorId: string, checkId: string): Promise<MonitorCheck> | undefined {
    const running = this.#running.get(monitorId);
    return running?.checkId === checkId ? running.done : undefined;
  }

  /**
   * Creates a check record, marks it current, and runs it in the background; resolves with the
   * queued record. Call inside the monitor's queue.
   */
  async start(
    record: MonitorRecord,
    trigger: MonitorCheck['trigger'],
    scheduledFor: string | null,
  ): Promise<MonitorCheck> {
    const { records } = this.#options;
    const check = queuedCheck(record, trigger, scheduledFor, {
      estimatedCredits: estimatedCreditsPerRun(record),
      billed: this.#options.credits !== undefined,
    });
    await records.putCheck(check);
    const handedOver = this.#options.workQueue !== undefined;
    const release = await this.#options.leases.hold(
      check.id,
      handedOver ? sharedHolderOf(check.id) : undefined,
    );
    record.currentCheckId = check.id;
    record.updatedAt = check.createdAt;
    await records.putMonitor(record);
    const abort = new AbortController();
    let resolveDone!: (check: MonitorCheck) => void;
    const done = new Promise<MonitorCheck>((resolve) => (resolveDone = resolve));
    this.#running.set(record.id, { checkId: check.id, abort, done, handedOver });
    const run = handedOver
      ? this.#handOver(record.id, check, abort.signal)
      : this.#execute(record.id, check, abort.signal);
    void run.finally(release).then(
      (final) => {
        this.#forget(record.id, check.id);
        resolveDone(final);
      },
      (error: unknown) => {
        this.#forget(record.id, check.id);
        this.#options.warn(`check ${check.id} of monitor ${record.id} failed unexpectedly`, error);
        resolveDone({ ...check, status: 'failed', error: toTrawlError(error).message });
      },
    );
    return check;
  }

  /** Drops the monitor's entry if it is still this check's (a next check may have replaced it). */
  #forget(monitorId: string, checkId: string): void {
    if (this.#running.get(monitorId)?.checkId === checkId) this.#running.delete(monitorId);
  }

  /** Stops the monitor's running check, if any; resolves once it has ended. */
  async stop(monitorId: string): Promise<void> {
    const running = this.#running.get(monitorId);
    if (!running) return;
    running.abort.abort();
    await running.done.catch(() => undefined);
  }

  /**
   * Stops every check running here (they end `failed`); resolves once they have ended. Checks
   * handed to workers go on there: this process only stops waiting for them.
   */
  async stopAll(): Promise<void> {
    const running = [...this.#running.values()].filter((check) => !check.handedOver);
    for (const check of running) check.abort.abort();
    await Promise.allSettled(running.map((check) => check.done));
  }

  /** Resolves when no check of this process is running or queued. */
  async idle(): Promise<void> {
    while (this.#running.size > 0) {
      await Promise.allSettled([...this.#running.values()].map((check) => check.done));
    }
  }

  /** Fails the current check a crash left open (not running here), dropping what it staged. */
  async closeInterrupted(record: MonitorRecord, now: Date): Promise<void> {
    const { records } = this.#options;
    if (!record.currentCheckId || this.#running.has(record.id)) return;
    const check = await records.getCheck(record.id, record.currentCheckId);
    if (!check || (check.status !== 'queued' && check.status !== 'running')) return;
    // On a shared store, a check another live process runs is not interrupted.
    if (!(await this.#options.leases.takeOver(check.id))) return;
    await new Baselines(records).discard(record.id, check.id);
    await records.putCheck(
      failedCheck(check, 'The check was interrupted: the process stopped before it finished.', now),
    );
    await this.#options.leases.release(check.id);
  }

  /** The monitor's current check when another live process runs it (shared stores only). */
  async runningElsewhere(record: MonitorRecord): Promise<string | undefined> {
    const checkId = record.currentCheckId;
    if (!checkId || !(await this.#options.leases.isHeldElsewhere(checkId))) return undefined;
    const check = await this.#options.records.getCheck(record.id, checkId);
    return check && (check.status === 'queued' || check.status === 'running') ? checkId : undefined;
  }

  /**
   * Runs a check another process handed over (a worker's side): holds its lease with the
   * waiting process and stops it when that process asks (its monitor was deleted). A unit run
   * again after its check ended answers with the check as it ended.
   */
  async runUnit(data: unknown, signal: AbortSignal): Promise<MonitorCheck> {
    const { monitorId, checkId } = data as CheckUnitData;
    const { records, leases } = this.#options;
    const queued = await records.getCheck(monitorId, checkId);
    if (!queued) throw new NotFoundError('Check not found');
    if (queued.status !== 'queued' && queued.status !== 'running') return queued;
    const release = await leases.hold(checkId, sharedHolderOf(checkId));
    const abort = new AbortController();
    const stop = () => abort.abort();
    signal.addEventListener('abort', stop, { once: true });
    const polling = setInterval(() => {
      leases.stopRequested(checkId).then(
        (requested) => requested && stop(),
        () => undefined,
      );
    }, stopPollMs);
    try {
      return await this.#execute(monitorId, queued, abort.signal);
    } finally {
      clearInterval(polling);
      signal.removeEventListener('abort', stop);
      await release();
    }
  }

  /** Hands a check to the workers and waits for its final record; an abort asks them to stop it. */
  async #handOver(
    monitorId: string,
    queued: MonitorCheck,
    signal: AbortSignal,
  ): Promise<MonitorCheck> {
    const { workQueue, leases, warn } = this.#options;
    const askToStop = () =>
      void leases
        .requestStop(queued.id)
        .catch((error: unknown) => warn(`stopping check ${queued.id} failed`, error));
    signal.addEventListener('abort', askToStop, { once: true });
    try {
      const data: CheckUnitData = { monitorId, checkId: queued.id };
      return await workQueue!.run<MonitorCheck>({
        kind: monitorCheckUnitKind,
        id: queued.id,
        data,
      });
    } finally {
      signal.removeEventListener('abort', askToStop);
    }
  }

  /** Waits for a slot, runs the check, and folds its outcome into the monitor. */
  async #execute(
    monitorId: string,
    queued: MonitorCheck,
    signal: AbortSignal,
  ): Promise<MonitorCheck> {
    return this.#slots.run(async () => {
      const { records, queue } = this.#options;
      const record = await records.getMonitor(monitorId);
      if (!record || signal.aborted) {
        const stopped = failedCheck(queued, 'The check was stopped before it started.');
        if (record) await records.putCheck(stopped);
        return stopped;
      }
      // The check's credits are reserved where it runs; each page takes from them first.
      const ticket = await admitCheck(this.#options.credits, record, queued);
      if (ticket === 'refused') {
        const refused = failedCheck(queued, 'Insufficient credits to run a monitor check.');
        await records.putCheck(refused);
        return refused;
      }
      const startedAt = new Date().toISOString();
      const running: MonitorCheck = {
        ...queued,
        status: 'running',
        startedAt,
        updatedAt: startedAt,
      };
      await records.putCheck(running);
      await queue.run(monitorId, async () => {
        const current = await records.getMonitor(monitorId);
        if (!current) return;
        current.lastRunAt = startedAt;
        await records.putMonitor(current);
      });
      let run;
      try {
        const credits = this.#options.credits;
        const take = credits && ticket ? pageTake(credits, record) : 0;
        run = await runCheck(
          {
            ...this.#checkContext(signal, record.team),
            ...(ticket
              ? { takePage: () => ticket.take(take), take: (amount) => ticket.take(amount) }
              : {}),
          },
          this.#options.publicMonitor(record),
          running,
          (next) => records.putCheck(next),
        );
      } catch (error) {
        await ticket?.settle().catch(() => 0);
        await new Baselines(records).discard(monitorId, running.id);
        const failed = failedCheck(running, toTrawlError(error).message);
        await records.putCheck(failed);
        return failed;
      }
      const final = await chargeCheck(this.#options.credits, ticket, run.check, this.#options.warn);
      if (final !== run.check) await records.putCheck(final);
      await queue.run(monitorId, async () => {
        const current = await records.getMonitor(monitorId);
        if (!current) return;
        current.lastCheckSummary = final.summary;
        current.pagesSeen = { ...current.pagesSeen, ...Object.fromEntries(run.pagesSeen) };
        current.estimatedCreditsPerMonth = estimateMonthlyCredits(current, this.#options.credits);
        current.updatedAt = new Date().toISOString();
        await records.putMonitor(current);
        await purgeExpired(records, current, new Date());
      });
      return final;
    });
  }

  #checkContext(signal: AbortSignal, team: string) {
    const { records, config, fetchers, llm, searchProviders, notifiers, warn } = this.#options;
    return {
      team,
      records,
      config,
      prices: pricesOf(this.#options.credits),
      ...(fetchers ? { fetchers } : {}),
      ...(llm ? { llm } : {}),
      ...(searchProviders ? { searchProviders } : {}),
      notifiers,
      signal,
      warn: (message: string) => warn(message),
    };
  }
}
