/**
 * The server's crawls and batch scrapes: which team owns each, the running Job objects, and their
 * restart. Core keeps each job's frontier and results in the Store; this adds the owner record
 * (namespace `job-owners`) and finds jobs again after a restart of the process.
 */
import {
  batchScrape,
  crawl,
  resumeJob,
  scanStore,
  type BatchScrapeOptions,
  type CrawlOptions,
  type EngineConfig,
  type EngineContext,
  type Job,
  type JobContext,
  type JobKind,
  type JobSummary,
  type ResolvedBatchScrapeOptions,
  type ResolvedCrawlOptions,
  type Store,
} from '@trawl/core';
import { dayMs, givenOptions } from '@trawl/core/server';
import { pagePayload, type WebhookConfig, type WebhookSender } from './webhooks.ts';

const ownersNamespace = 'job-owners';

/** The event family of a job's webhooks: `crawl.*` or `batch_scrape.*`. */
const family = (job: Job) => (job.kind === 'crawl' ? 'crawl' : 'batch_scrape');
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
  /** What a job's pages get besides store and config: the LLM and its token meter (issue 18). */
  engineContext?: (team: string, jobId: string) => Partial<EngineContext>;
}

/** How long a finished job's results stay readable, as the hosted service keeps them. */
export const jobResultsRetentionMs = dayMs;

export class JobRegistry {
  readonly #store: Store;
  readonly #config: EngineConfig;
  readonly #running = new Map<string, Job>();
  readonly #hooks: JobHooks;

  constructor(store: Store, config: EngineConfig, hooks: JobHooks = {}) {
    this.#store = store;
    this.#config = config;
    this.#hooks = hooks;
  }

  /** Starts a crawl for `team`. @throws BAD_REQUEST / INVALID_URL for bad options */
  startCrawl(
    team: string,
    url: string,
    options: CrawlOptions | ResolvedCrawlOptions,
    webhook?: WebhookConfig,
  ): Promise<Job> {
    return this.#start(team, options, webhook, (context) => crawl(url, options, context));
  }

  /** Starts a batch scrape for `team`; `invalidURLs` lists what was skipped. */
  startBatch(
    team: string,
    urls: string[],
    options: BatchScrapeOptions | ResolvedBatchScrapeOptions,
    webhook?: WebhookConfig,
  ): Promise<Job & { invalidURLs: string[] }> {
    return this.#start(team, options, webhook, (context) => batchScrape(urls, options, context));
  }

  /** Starts a job of `team` with its services, and records who owns it. */
  async #start<J extends Job>(
    team: string,
    options: object,
    webhook: WebhookConfig | undefined,
    start: (context: JobContext) => J,
  ): Promise<J> {
    const id = crypto.randomUUID();
    // The team keys its browser profiles (scrapeOptions.profile).
    const job = start({
      ...this.#hooks.engineContext?.(team, id),
      store: this.#store,
      config: this.#config,
      jobId: id,
      team,
    });
    await this.#own(job, team, { ...givenOptions(options) }, webhook);
    return job;
  }

  async #own(
    job: Job,
    team: string,
    options: Record<string, unknown>,
    webhook: WebhookConfig | undefined,
  ): Promise<void> {
    const owner: JobOwner = {
      id: job.id,
      team,
      kind: job.kind,
      url: job.url,
      createdAt: new Date().toISOString(),
      options,
      ...(webhook ? { webhook } : {}),
    };
    await this.#store.set(ownersNamespace, job.id, owner, { ttlMs: jobResultsRetentionMs * 30 });
    // Queued before the pages' events (so it goes first), and in the store's outbox before the
    // start is answered.
    const started = webhook
      ? this.#hooks.webhooks?.post(webhook, `${family(job)}.started`, job.id, startedPayload)
      : undefined;
    this.#track(job, owner);
    await started;
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
    const running = this.#running.get(id);
    if (running) return { job: running, owner };
    const job = await resumeJob(id, {
      ...this.#hooks.engineContext?.(owner.team, id),
      store: this.#store,
      config: this.#config,
      team: owner.team,
    });
    if (!job) return undefined;
    if (job.status === 'scraping') this.#track(job, owner);
    return { job, owner };
  }

  /** The team's crawls still running. */
  async active(team: string): Promise<JobOwner[]> {
    const owners: JobOwner[] = [];
    for (const job of this.#running.values()) {
      if (job.kind !== 'crawl' || job.status !== 'scraping') continue;
      const owner = await this.#store.get<JobOwner>(ownersNamespace, job.id);
      if (owner?.team === team) owners.push(owner);
    }
    return owners;
  }

  /** Resumes every job that was running when the process stopped. Resolves with their ids. */
  async restore(): Promise<string[]> {
    const resumed: string[] = [];
    for await (const { key, value } of scanStore<JobOwner>(this.#store, ownersNamespace)) {
      if (this.#running.has(key)) continue;
      const job = await resumeJob(key, {
        ...this.#hooks.engineContext?.(value.team, key),
        store: this.#store,
        config: this.#config,
        team: value.team,
      });
      if (job?.status === 'scraping') {
        this.#track(job, value);
        resumed.push(key);
      }
    }
    return resumed;
  }

  /** Running jobs, for a graceful shutdown. */
  get running(): Job[] {
    return [...this.#running.values()];
  }
}
