/**
 * The server's crawls and batch scrapes: which team owns each, the running Job objects, and their
 * restart. Core keeps each job's frontier and results in the Store; this adds the owner record
 * (namespace `job-owners`) and finds jobs again after a restart of the process.
 */
import {
  batchScrape,
  crawl,
  resumeJob,
  type BatchScrapeOptions,
  type CrawlOptions,
  type EngineConfig,
  type Job,
  type JobKind,
  type JobSummary,
  type Store,
} from '@trawl/core';

const ownersNamespace = 'job-owners';

/** Who started a job, and with what. */
export interface JobOwner {
  id: string;
  team: string;
  kind: JobKind;
  url: string;
  createdAt: string;
  /** The options as the request gave them (for `GET /v2/crawl/active`). */
  options: Record<string, unknown>;
}

/** How long a finished job's results stay readable, as the hosted service keeps them. */
export const jobRetentionMs = 24 * 60 * 60 * 1000;

export class JobRegistry {
  readonly #store: Store;
  readonly #config: EngineConfig;
  readonly #running = new Map<string, Job>();
  readonly #onFinished: ((owner: JobOwner, summary: JobSummary) => Promise<void>) | undefined;

  /** `onFinished` runs once per job this process sees end (credits are charged there). */
  constructor(
    store: Store,
    config: EngineConfig,
    onFinished?: (owner: JobOwner, summary: JobSummary) => Promise<void>,
  ) {
    this.#store = store;
    this.#config = config;
    this.#onFinished = onFinished;
  }

  /** Starts a crawl for `team`. @throws BAD_REQUEST / INVALID_URL for bad options */
  async startCrawl(team: string, url: string, options: CrawlOptions): Promise<Job> {
    const id = crypto.randomUUID();
    const job = crawl(url, options, { store: this.#store, config: this.#config, jobId: id });
    await this.#own(job, team, { ...options });
    return job;
  }

  /** Starts a batch scrape for `team`; `invalidURLs` lists what was skipped. */
  async startBatch(
    team: string,
    urls: string[],
    options: BatchScrapeOptions,
  ): Promise<Job & { invalidURLs: string[] }> {
    const id = crypto.randomUUID();
    const job = batchScrape(urls, options, { store: this.#store, config: this.#config, jobId: id });
    await this.#own(job, team, { ...options });
    return job;
  }

  async #own(job: Job, team: string, options: Record<string, unknown>): Promise<void> {
    const owner: JobOwner = {
      id: job.id,
      team,
      kind: job.kind,
      url: job.url,
      createdAt: new Date().toISOString(),
      options,
    };
    await this.#store.set(ownersNamespace, job.id, owner, { ttlMs: jobRetentionMs * 30 });
    this.#track(job);
  }

  #track(job: Job): void {
    this.#running.set(job.id, job);
    // A finished job is read back from the store on demand; keep only running ones in memory.
    void job.done.then(async (summary) => {
      this.#running.delete(job.id);
      const owner = await this.#store.get<JobOwner>(ownersNamespace, job.id).catch(() => undefined);
      if (owner && this.#onFinished) await this.#onFinished(owner, summary).catch(() => undefined);
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
    const job = await resumeJob(id, { store: this.#store, config: this.#config });
    if (!job) return undefined;
    if (job.status === 'scraping') this.#track(job);
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
    let after: string | undefined;
    for (;;) {
      const page = await this.#store.list<JobOwner>(ownersNamespace, {
        limit: 500,
        ...(after !== undefined ? { after } : {}),
      });
      for (const { key } of page) {
        if (this.#running.has(key)) continue;
        const job = await resumeJob(key, { store: this.#store, config: this.#config });
        if (job?.status === 'scraping') {
          this.#track(job);
          resumed.push(key);
        }
      }
      if (page.length < 500) return resumed;
      after = page.at(-1)?.key;
    }
  }

  /** Running jobs, for a graceful shutdown. */
  get running(): Job[] {
    return [...this.#running.values()];
  }
}
