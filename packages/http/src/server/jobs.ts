/**
 * The server's crawls and batch scrapes: which team owns each, who drives each, and their
 * restart. Core keeps each job's frontier and results in the Store; this adds the owner record
 * (namespace `job-owners`) and the list of running jobs (`jobs-running`).
 *
 * Starting a job writes its record and puts one `job` unit on the Queue; whichever process
 * consumes it drives the job: this process with the embedded queue, any worker with
 * BullMQ, which also scrapes each page as a `page` unit on any worker. Opening a job to read it
 * never starts anything: a job this process does not drive is read from the store.
 */
import {
  resumeJob,
  scanStore,
  type BatchScrapeOptions,
  type CrawlOptions,
  type EngineConfig,
  type EngineContext,
  type Job,
  type JobKind,
  type JobSummary,
  type Queue,
  type QueueUnit,
  type ResolvedBatchScrapeOptions,
  type ResolvedCrawlOptions,
  type Store,
} from '@trawl/core';
import type { UnitKind } from '@trawl/core/server';
import {
  dayMs,
  givenOptions,
  openJob,
  StoredJob,
  submitJob,
  withoutUserinfo,
} from '@trawl/core/server';
import { pageDispatch, pageUnitKind, PageUnitRunner, unmeteredPage } from './page-units.ts';
import type { MeteredLlm } from '../process/services.ts';
import { pagePayload, type WebhookConfig, type WebhookSender } from './webhooks.ts';

const ownersNamespace = 'job-owners';
/** Jobs not yet final, by id, with their owner record: what `active()` lists in any process. */
const runningNamespace = 'jobs-running';
/** When each team's last job completed, for `GET /v2/team/queue-status`. */
const successNamespace = 'jobs-last-success';
/** Kind of the units that drive a job. */
const jobUnitKind = 'job';
/** Jobs one process drives at once with a shared queue (each mostly waits on its pages). */
const jobsPerWorker = 100;

/** The event family of a job's webhooks: `crawl.*` or `batch_scrape.*`. */
const family = (job: { kind: JobKind }) => (job.kind === 'crawl' ? 'crawl' : 'batch_scrape');
const startedPayload = { success: true, data: [] };

/** Who started a job, and with what. */
export interface JobOwner {
  id: string;
  team: string;
  kind: JobKind;
  url: string;
  createdAt: string;
  /** The options as the request gave them, before defaults (for `GET /v2/crawl/active`). */
  options: Record<string, unknown>;
  /** Where the job's events go, if anywhere. */
  webhook?: WebhookConfig;
}

/** What the registry tells others about its jobs. */
export interface JobHooks {
  /** Runs once per job this process sees end (credits are charged there). */
  onFinished?: (owner: JobOwner, summary: JobSummary) => Promise<void>;
  /** Delivers the jobs' webhooks. */
  webhooks?: WebhookSender;
  /** What a job's pages get besides store and config: the LLM and its token meter. */
  engineContext?: (team: string, jobId: string) => Partial<EngineContext>;
  /**
   * The same for one page unit run here for a job driven anywhere: its tokens are charged when
   * the page ends, since the job's end is seen only by its owner.
   */
  pageContext?: (team: string, jobId: string) => MeteredLlm;
}

/** How long a finished job's results stay readable, as the hosted service keeps them. */
export const jobResultsRetentionMs = dayMs;

/** How a process takes part in running jobs. */
export interface ConsumeJobsOptions {
  /** Pages this process scrapes at once for jobs driven anywhere (shared queue only). */
  pageConcurrency: number;
}

export class JobRegistry {
  readonly #store: Store;
  readonly #config: EngineConfig;
  readonly #queue: Queue;
  readonly #running = new Map<string, Job>();
  /** Jobs started here that this process drives, until their runner exists. */
  readonly #starting = new Map<string, PromiseWithResolvers<void>>();
  readonly #hooks: JobHooks;
  /** Whether this process drives jobs (its units are consumed here). */
  #runsHere = false;

  constructor(store: Store, config: EngineConfig, queue: Queue, hooks: JobHooks = {}) {
    this.#store = store;
    this.#config = config;
    this.#queue = queue;
    this.#hooks = hooks;
  }

  /**
   * Starts a crawl for `team`; `id`: the job's id (its admission ticket's, so the process that
   * finishes it settles the reservation). @throws BAD_REQUEST / INVALID_URL for bad options
   */
  startCrawl(
    team: string,
    url: string,
    options: CrawlOptions | ResolvedCrawlOptions,
    webhook?: WebhookConfig,
    id: string = crypto.randomUUID(),
  ): Promise<Job> {
    return this.#start(team, options, webhook, { kind: 'crawl', url, options }, id);
  }

  /** Starts a batch scrape for `team`; `invalidURLs` lists what was skipped. `id` as above. */
  startBatch(
    team: string,
    urls: string[],
    options: BatchScrapeOptions | ResolvedBatchScrapeOptions,
    webhook?: WebhookConfig,
    id: string = crypto.randomUUID(),
  ): Promise<Job & { invalidURLs: string[] }> {
    return this.#start(team, options, webhook, { kind: 'batch', urls, options }, id);
  }

  /**
   * The units this process takes part in running jobs with, for the job host to consume: it
   * drives `job` units and, with a shared queue, scrapes `page` units. `trawl serve` and
   * `trawl worker` take them; `trawl serve --role api` does not.
   */
  units(options: ConsumeJobsOptions): UnitKind[] {
    const shared = this.#queue.capabilities.shared;
    this.#runsHere = true;
    // In-process, every job runs at once, as it always did; its pages are scraped by its runner.
    const units: UnitKind[] = [
      {
        kind: jobUnitKind,
        run: (unit, signal) => this.#drive(unit, signal),
        concurrency: shared ? jobsPerWorker : 0,
      },
    ];
    if (shared) {
      const pages = new PageUnitRunner(
        this.#store,
        this.#config,
        (team, jobId) => this.#hooks.pageContext?.(team, jobId) ?? unmeteredPage,
      );
      units.push({ kind: pageUnitKind, run: pages.run, concurrency: options.pageConcurrency });
    }
    return units;
  }

  /** Records a new job, who owns it, and queues the unit that drives it. */
  async #start(
    team: string,
    options: object,
    webhook: WebhookConfig | undefined,
    submission: Parameters<typeof submitJob>[0],
    id: string,
  ): Promise<Job & { invalidURLs: string[] }> {
    const record = await submitJob(submission, {
      store: this.#store,
      config: this.#config,
      jobId: id,
      team,
    });
    const owner: JobOwner = {
      id,
      team,
      kind: record.kind,
      url: withoutUserinfo(record.url),
      createdAt: new Date().toISOString(),
      options: { ...givenOptions(options) },
      ...(webhook ? { webhook } : {}),
    };
    await this.#store.set(ownersNamespace, id, owner, { ttlMs: jobResultsRetentionMs * 30 });
    await this.#store.set(runningNamespace, id, owner, { ttlMs: jobResultsRetentionMs * 30 });
    // In the store's outbox before the start is answered, and before any page's event.
    if (webhook)
      await this.#hooks.webhooks?.post(webhook, `${family(owner)}.started`, id, startedPayload);
    // The embedded queue runs the unit here: hand back the live job, as before scale-out.
    const local = this.#runsHere && !this.#queue.capabilities.shared;
    const starting = Promise.withResolvers<void>();
    if (local) this.#starting.set(id, starting);
    await this.#queue.add(jobUnit(id));
    if (local) await starting.promise;
    const running = this.#running.get(id);
    if (!running) return new StoredJob(this.#store, record);
    return Object.assign(running, { invalidURLs: record.invalidURLs ?? [] });
  }

  /** Drives one job to its end: the handler of `job` units, in whichever process takes it. */
  async #drive(unit: QueueUnit, signal: AbortSignal): Promise<null> {
    const id = (unit.data as { id: string }).id;
    try {
      if (this.#running.has(id) || signal.aborted) return null;
      const owner = await this.#store.get<JobOwner>(ownersNamespace, id);
      if (!owner) return null;
      const job = await resumeJob(id, {
        ...this.#hooks.engineContext?.(owner.team, id),
        store: this.#store,
        config: this.#config,
        team: owner.team,
        ...(this.#queue.capabilities.shared
          ? { dispatch: pageDispatch(this.#queue, owner.team) }
          : {}),
      });
      if (!job || job.status !== 'scraping') {
        await this.#store.delete(runningNamespace, id);
        return null;
      }
      this.#track(job, owner);
      this.#starting.get(id)?.resolve();
      // A lost lease (or this process closing) hands the job to another owner: stop driving
      // it here without an end status, so exactly one process drives it.
      const released = new Promise<void>((resolve) => {
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
      await Promise.race([job.done, released]);
      if (job.status === 'scraping') {
        // resumeJob's runner can let go; the Job interface of library users does not say so.
        (job as Job & { abandon?: () => void }).abandon?.();
        this.#running.delete(id);
      }
      return null;
    } finally {
      this.#starting.get(id)?.resolve();
      this.#starting.delete(id);
    }
  }

  #track(job: Job, owner: JobOwner | undefined): void {
    this.#running.set(job.id, job);
    const webhook = owner?.webhook;
    const sender = this.#hooks.webhooks;
    if (webhook && sender) {
      const event = `${family(job)}.page`;
      job.on(
        'document',
        (document) => void sender.send(webhook, event, job.id, pagePayload({ document })),
      );
      job.on(
        'pageError',
        (error) => void sender.send(webhook, event, job.id, pagePayload({ error })),
      );
    }
    // A finished job is read back from the store on demand; keep only running ones in memory.
    void job.done.then(async (summary) => {
      this.#running.delete(job.id);
      await this.#store.delete(runningNamespace, job.id).catch(() => undefined);
      if (owner && summary.status === 'completed')
        await this.#store
          .set(successNamespace, owner.team, new Date().toISOString())
          .catch(() => undefined);
      if (webhook && sender) {
        const final = summary.status === 'completed' ? 'completed' : summary.status;
        // In the store's outbox before the job's end is recorded and charged.
        await sender
          .post(webhook, `${family(job)}.${final}`, job.id, {
            success: summary.status === 'completed',
            data: [],
            ...(summary.error ? { error: summary.error } : {}),
          })
          .catch(() => undefined);
      }
      if (owner && this.#hooks.onFinished)
        await this.#hooks.onFinished(owner, summary).catch(() => undefined);
    });
  }

  /** The owner record of a job, if `team` owns it and it has the right kind. */
  async owner(team: string, id: string, kind: JobKind): Promise<JobOwner | undefined> {
    const owner = await this.#store.get<JobOwner>(ownersNamespace, id);
    return owner && owner.team === team && owner.kind === kind ? owner : undefined;
  }

  /** The job, running or finished, if `team` owns it; undefined otherwise (also for others'). */
  async get(
    team: string,
    id: string,
    kind: JobKind,
  ): Promise<{ job: Job; owner: JobOwner } | undefined> {
    const owner = await this.owner(team, id, kind);
    if (!owner) return undefined;
    // Reading never starts a runner: a job driven elsewhere is read from the store.
    const job = this.#running.get(id) ?? (await openJob(id, this.#store));
    return job ? { job, owner } : undefined;
  }

  /** The team's crawls still running, wherever they are driven. */
  async active(team: string): Promise<JobOwner[]> {
    return (await this.#runningOf(team)).filter((owner) => owner.kind === 'crawl');
  }

  /**
   * The team's pages queued and being scraped over all its running jobs, wherever they run (as
   * their owners last published them, twice a second), and when a job of it last completed.
   */
  async queueStatus(
    team: string,
  ): Promise<{ active: number; waiting: number; mostRecentSuccess: string | null }> {
    let active = 0;
    let waiting = 0;
    for (const owner of await this.#runningOf(team)) {
      const job = this.#running.get(owner.id) ?? (await openJob(owner.id, this.#store));
      if (!job || job.status !== 'scraping') continue;
      const pages = 'activePages' in job ? Number(job.activePages) : 0;
      active += pages;
      waiting += Math.max(0, job.progress.total - job.progress.completed - pages);
    }
    const mostRecentSuccess = (await this.#store.get<string>(successNamespace, team)) ?? null;
    return { active, waiting, mostRecentSuccess };
  }

  async #runningOf(team: string): Promise<JobOwner[]> {
    const owners: JobOwner[] = [];
    for await (const { value } of scanStore<JobOwner>(this.#store, runningNamespace)) {
      if (value.team === team) owners.push(value);
    }
    return owners;
  }

  /**
   * Queues again the unit of every job that was running when the process stopped (with the
   * embedded queue they resume here; with BullMQ a unit still waiting or held is not doubled).
   * Resolves with their ids.
   */
  async restore(): Promise<string[]> {
    const resumed: string[] = [];
    for await (const { key } of scanStore<JobOwner>(this.#store, ownersNamespace)) {
      if (this.#running.has(key)) continue;
      const job = await openJob(key, this.#store);
      if (job?.status !== 'scraping') continue;
      await this.#queue.add(jobUnit(key));
      resumed.push(key);
    }
    return resumed;
  }

  /** Running jobs, for a graceful shutdown. */
  get running(): Job[] {
    return [...this.#running.values()];
  }
}

/** The unit that drives job `id`; its id is the job's, so a job is never driven twice at once. */
function jobUnit(id: string): QueueUnit<{ id: string }> {
  return { kind: jobUnitKind, id, data: { id } };
}
