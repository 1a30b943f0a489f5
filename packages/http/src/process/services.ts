/**
 * The one builder of a process's services, for every role (config-roles.ts): `trawl serve`
 * (answers requests and runs jobs), `trawl serve --role api` (answers and queues), `trawl
 * worker` (runs what the API queued; no HTTP server), and the CLI. It makes the credits ledger
 * and admission, the request records, webhooks and their outbox drain, the crawl and batch job
 * registry, the job host with its kinds (agent, extract), and the monitor service, each once;
 * `start()` sets them going as the role asks and `stop()` lets them go, so no route plugin and no
 * command starts or stops a service of its own.
 */
import {
  InProcessQueue,
  MemoryCounters,
  MonitorService,
  WebhookNotifier,
  type Counters,
  type EngineConfig,
  type EngineContext,
  type LlmProvider,
  type Queue,
  type SearchProvider,
  type Store,
} from '@trawl/core';
import {
  Admission,
  CreditLedger,
  JobHost,
  type AdmissionTicket,
  type CreditLedgerOptions,
} from '@trawl/core/server';
import type { ProcessRole } from '../config-roles.ts';
import { agentJobs } from '../server/agent-jobs.ts';
import { extractJobs } from '../server/extract-jobs.ts';
import { JobRegistry } from '../server/jobs.ts';
import { TokenUsageBook } from '../server/llm-usage.ts';
import type { MonitorServerSettings } from '../server/monitor-settings.ts';
import { RequestRecords } from '../server/records.ts';
import { WebhookOutboxDrain, WebhookSender, type WebhookSettings } from '../server/webhooks.ts';

/** What a process's services are built from. */
export interface ProcessOptions {
  /** What the process is for: which of its services run. @default 'serve' */
  role?: ProcessRole;
  store: Store;
  /** Where units of work wait. @default an InProcessQueue: jobs run in this process */
  queue?: Queue;
  /** Pages this process scrapes at once for jobs driven anywhere (shared queue). @default config.crawlConcurrency */
  pageConcurrency?: number;
  config: EngineConfig;
  /** Webhook delivery: signing secret, retries. */
  webhooks?: WebhookSettings;
  /** Monitors: the LLM that judges changes, notifiers besides the webhook (e-mail). */
  monitors?: MonitorServerSettings;
  /**
   * Where the team limits are counted; shared ones (Redis) when several processes must share
   * them. @default MemoryCounters: in this process
   */
  counters?: Counters;
  /** Per-team limits; each off when 0 or unset. */
  limits?: { ratePerMinute?: number; teamConcurrency?: number; teamCredits?: number };
  /** Credits per kind of work (each 1 when unset); the ledger is kept even without teamCredits. */
  creditPrices?: CreditLedgerOptions['prices'];
  /** The model of the LLM formats; the monitors' model when unset. */
  llm?: LlmProvider;
  /** LLM tokens a team may use per UTC day; unset: no cap. */
  llmDailyTokens?: number;
  /** Web search providers (SearXNG); without one, /v2/search answers from the built-in index. */
  searchProviders?: readonly SearchProvider[];
  /** Where warnings of work in the background go. @default standard error */
  log?: (message: string, error?: unknown) => void;
}

/** An LLM context for one request's work, and the meter that charges its tokens. */
export interface MeteredLlm {
  context: Partial<EngineContext>;
  meter: { settle(): Promise<number> };
}

/** What `start()` found to do again. */
export interface ProcessStarted {
  /** Crawls and batch scrapes a stopped process left running, queued again. */
  resumedJobs: string[];
  /** Hosted jobs (agent, extract) a stopped process left running, queued again. */
  resumedHosted: string[];
  /** Webhook deliveries a stopped process left pending, queued again. */
  webhooksPending: number;
}

/** The services of one process. */
export interface ProcessServices {
  role: ProcessRole;
  options: ProcessOptions;
  store: Store;
  config: EngineConfig;
  queue: Queue;
  counters: Counters;
  /** The model of the LLM formats, prompts and extract; undefined when none is configured. */
  llm: LlmProvider | undefined;
  /** The credits ledger: read by the usage routes and feedback; work is charged via admission. */
  ledger: CreditLedger;
  /** Admission and billing: every piece of work is admitted, reserved and settled here. */
  admission: Admission;
  tokens: TokenUsageBook;
  records: RequestRecords;
  webhooks: WebhookSender;
  /** Delivers what the outbox holds and no live process does. */
  webhookDrain: WebhookOutboxDrain;
  /** Crawls and batch scrapes. */
  jobs: JobRegistry;
  /** The job host: agent runs and extract jobs, run wherever the queue hands them. */
  host: JobHost;
  monitors: MonitorService;
  searchProviders: readonly SearchProvider[];
  /**
   * The LLM context of work outside any reservation (a crawl's prompt, a page unit of a job
   * driven elsewhere), charged as `id` when settled.
   */
  metered(team: string, id: string): MeteredLlm;
  /**
   * Sets the services going as the role asks: runs queued work (serve, worker), queues again
   * what a stopped process left, drains the webhook outbox, schedules monitors (serve, api).
   * Idempotent. @throws when a shared queue cannot start (Redis down)
   */
  start(): Promise<ProcessStarted>;
  /** Lets running work go (it resumes wherever it is taken next) and stops the services. */
  stop(): Promise<void>;
}

/** Whether a process of `role` runs queued work. */
const runsJobs = (role: ProcessRole) => role === 'serve' || role === 'worker';
/** Whether a process of `role` schedules monitors and answers their routes. */
const schedules = (role: ProcessRole) => role === 'serve' || role === 'api';

/** Builds the services of a process. */
export function buildProcess(options: ProcessOptions): ProcessServices {
  const { store, config } = options;
  const role = options.role ?? 'serve';
  const log =
    options.log ??
    ((message: string, error?: unknown) =>
      process.stderr.write(`${message}${error instanceof Error ? `: ${error.message}` : ''}\n`));
  const counters = options.counters ?? new MemoryCounters();
  const teamCredits = options.limits?.teamCredits;
  const ledger = new CreditLedger(
    store,
    {
      ...(teamCredits === undefined ? {} : { perTeam: teamCredits }),
      ...(options.creditPrices ? { prices: options.creditPrices } : {}),
    },
    counters,
  );
  const webhooks = new WebhookSender(store, {
    allowPrivateTargets: config.allowPrivateAddresses,
    ...options.webhooks,
  });
  const llm = options.llm ?? options.monitors?.llm;
  const tokens = new TokenUsageBook(store, options.llmDailyTokens, counters);
  const admission = new Admission(ledger, tokens, { callTokens: config.llmContextTokens });
  const records = new RequestRecords(store);
  const searchProviders = options.searchProviders ?? [];
  const metered = (team: string, id: string): MeteredLlm => {
    const ticket = admission.ticket(team, crypto.randomUUID());
    return {
      context: llm ? { llm: ticket.model(llm) } : {},
      meter: { settle: () => ticket.settle({}, { jobId: id }) },
    };
  };
  // Tickets of the jobs this process drives: their tokens and pages are settled when they end.
  const jobTickets = new Map<string, AdmissionTicket>();
  const jobTicket = (team: string, jobId: string) => {
    const ticket = jobTickets.get(jobId) ?? admission.ticket(team, jobId);
    jobTickets.set(jobId, ticket);
    return ticket;
  };
  const queue = options.queue ?? new InProcessQueue();
  const pageConcurrency = options.pageConcurrency ?? config.crawlConcurrency;
  const jobs = new JobRegistry(store, config, queue, {
    engineContext: (team, jobId) => (llm ? { llm: jobTicket(team, jobId).model(llm) } : {}),
    pageContext: metered,
    // A job's pages are charged when it ends, within what it reserved when it began.
    onFinished: async (owner, summary) => {
      const ticket = jobTicket(owner.team, owner.id);
      jobTickets.delete(owner.id);
      const endpoint = owner.kind === 'crawl' ? 'crawl' : 'batch_scrape';
      const cost = admission.cost(endpoint, summary.progress.scraped);
      await ticket.settle({ [endpoint]: cost });
      await records.finish(owner.id, {
        status: summary.status,
        creditsUsed: cost,
        ...(summary.error ? { error: summary.error } : {}),
      });
    },
    webhooks,
  });
  const host = new JobHost({ store, queue, log });
  host.register(
    agentJobs({
      store,
      config,
      llm,
      admission,
      records,
      webhooks,
      providers: searchProviders,
      log,
    }),
  );
  host.register(extractJobs({ store, config, llm, admission }));
  const monitorSettings = options.monitors;
  const monitors = new MonitorService({
    store,
    config,
    notifiers: [new WebhookNotifier(webhooks), ...(monitorSettings?.notifiers ?? [])],
    ...(monitorSettings?.llm ? { llm: monitorSettings.llm } : {}),
    credits: admission,
    searchProviders,
    queue,
    onWarning: log,
  });
  const webhookDrain = new WebhookOutboxDrain(webhooks);

  // A process that runs jobs takes its queue's units from the start, as it always did (the
  // embedded queue runs a job's unit as it is added); `start()` awaits the same promise, so a
  // shared queue that cannot start stops the process there.
  if (runsJobs(role)) {
    for (const units of jobs.units({ pageConcurrency })) host.registerUnits(units);
    const checks = monitors.checkUnits();
    if (checks) host.registerUnits(checks);
  }
  const consuming = runsJobs(role) ? host.consume() : Promise.resolve();
  consuming.catch(() => undefined);
  let started: Promise<ProcessStarted> | undefined;
  let stopped: Promise<void> | undefined;

  return {
    role,
    options,
    store,
    config,
    queue,
    counters,
    llm,
    ledger,
    admission,
    tokens,
    records,
    webhooks,
    webhookDrain,
    jobs,
    host,
    monitors,
    searchProviders,
    metered,
    start() {
      started ??= (async () => {
        await consuming;
        // Deliveries a previous run left pending go first, so each job's events stay in order;
        // the drain then goes on taking over those of processes on the same store that die.
        const webhooksPending = await webhookDrain.start();
        const resumedJobs = await jobs.restore();
        const resumedHosted = await host.restore();
        if (schedules(role)) await monitors.start();
        return { resumedJobs, resumedHosted, webhooksPending };
      })();
      return started;
    },
    stop() {
      stopped ??= (async () => {
        host.close();
        // Webhooks first: a receiver that keeps failing would otherwise hold the stop for its
        // whole retry schedule. Undelivered events stay pending in the store.
        await webhookDrain.stop();
        await webhooks.close();
        await monitors.stop();
        await Promise.allSettled(
          (monitorSettings?.notifiers ?? []).map(
            (notifier) => notifier.close?.() ?? Promise.resolve(),
          ),
        );
      })();
      return stopped;
    },
  };
}
