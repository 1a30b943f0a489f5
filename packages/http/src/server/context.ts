/**
 * What one server is built from, made once: the store and settings it was given, and the
 * services the routes share (credits ledger, request records, crawl and batch jobs, webhooks,
 * token book, limits). Every route plugin gets this one object.
 */
import type { FastifyRequest } from 'fastify';
import {
  InProcessQueue,
  MemoryCounters,
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
  type AdmissionTicket,
  CreditLedger,
  FeedbackService,
  JobHost,
  type CreditLedgerOptions,
  type FeedbackSettings,
} from '@trawl/core/server';
import { agentJobs } from './agent-jobs.ts';
import type { ApiKeys } from './auth.ts';
import { extractJobs } from './extract-jobs.ts';
import { JobRegistry } from './jobs.ts';
import { IdempotencyKeys, RateLimiter, TeamConcurrency } from './limits.ts';
import { TokenUsageBook } from './llm-usage.ts';
import type { MonitorServerSettings } from './monitor-settings.ts';
import { RequestRecords } from './records.ts';
import { WebhookOutboxDrain, WebhookSender, type WebhookSettings } from './webhooks.ts';

/** What the server is built from. */
export interface ServerOptions {
  store: Store;
  /** Where units of work wait (issue 21). @default an InProcessQueue: jobs run in this process */
  queue?: Queue;
  /**
   * `all` runs jobs besides answering requests; `api` only accepts, queues and answers from the
   * store, for a deployment whose `trawl worker` processes run the jobs. @default 'all'
   */
  role?: 'all' | 'api';
  /** Pages this process scrapes at once for jobs driven anywhere (shared queue). @default config.crawlConcurrency */
  pageConcurrency?: number;
  config: EngineConfig;
  keys: ApiKeys;
  logLevel?: string;
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
  /** Feedback refund caps, window and opted-out teams. */
  feedback?: FeedbackSettings;
  /** The model of the LLM formats; the monitors' model when unset (issue 18). */
  llm?: LlmProvider;
  /** LLM tokens a team may use per UTC day; unset: no cap. */
  llmDailyTokens?: number;
  /** Web search providers (SearXNG); without one, /v2/search answers from the built-in index. */
  searchProviders?: readonly SearchProvider[];
}

/** An LLM context for one request's work, and the meter that charges its tokens. */
export interface MeteredLlm {
  context: Partial<EngineContext>;
  meter: { settle(): Promise<number> };
}

/** The services of one server, shared by its route plugins. */
export interface ServerContext {
  options: ServerOptions;
  store: Store;
  config: EngineConfig;
  keys: ApiKeys;
  /** The model of the LLM formats, prompts and extract; undefined when none is configured. */
  llm: LlmProvider | undefined;
  /** The credits ledger: read by the usage routes and feedback; work is charged via admission. */
  ledger: CreditLedger;
  /** Admission and billing: every route's work is admitted, reserved and settled here. */
  admission: Admission;
  /** Feedback on finished work, and its refunds. */
  feedback: FeedbackService;
  records: RequestRecords;
  webhooks: WebhookSender;
  /** Delivers what the outbox holds and no live process does; `trawl serve` starts it. */
  webhookDrain: WebhookOutboxDrain;
  jobs: JobRegistry;
  /** The job host: agent runs and extract jobs, run wherever the queue hands them. */
  host: JobHost;
  queue: Queue;
  tokens: TokenUsageBook;
  rate: RateLimiter;
  concurrency: TeamConcurrency;
  idempotency: IdempotencyKeys;
  limits: NonNullable<ServerOptions['limits']>;
  searchProviders: readonly SearchProvider[];
  /** `http(s)://host` of a request, for the absolute URLs answers carry. */
  base(request: FastifyRequest): string;
  /**
   * The LLM context of work outside any reservation (a crawl's prompt, a page unit of a job
   * driven elsewhere), charged as `id` when settled.
   */
  metered(team: string, id: string): MeteredLlm;
}

/** Builds the services of a server from its options. */
export function serverContext(options: ServerOptions): ServerContext {
  const { store, config } = options;
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
  const admission = new Admission(ledger, tokens);
  const records = new RequestRecords(store);
  const metered = (team: string, id: string): MeteredLlm => {
    const ticket = admission.ticket(team, crypto.randomUUID());
    return {
      context: llm ? { llm, onLlmUsage: ticket.onLlmUsage } : {},
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
  const jobs = new JobRegistry(store, config, queue, {
    engineContext: (team, jobId) =>
      llm ? { llm, onLlmUsage: jobTicket(team, jobId).onLlmUsage } : {},
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
  const log = (message: string, error?: unknown) =>
    process.stderr.write(`${message}${error instanceof Error ? `: ${error.message}` : ''}\n`);
  const host = new JobHost({ store, queue, log });
  const searchProviders = options.searchProviders ?? [];
  host.register(
    agentJobs({ store, config, llm, admission, records, webhooks, providers: searchProviders, log }),
  );
  host.register(extractJobs({ store, config, llm, admission }));
  // The process that accepts a job runs it too, unless it is only the API of a deployment.
  // `trawl serve` awaits the same promise, so a shared queue that cannot start stops it there.
  if (options.role !== 'api') {
    jobs
      .consume({ pageConcurrency: options.pageConcurrency ?? config.crawlConcurrency })
      .catch(() => undefined);
    host.consume().catch(() => undefined);
  }
  return {
    options,
    store,
    config,
    keys: options.keys,
    llm,
    ledger,
    admission,
    feedback: new FeedbackService({
      store,
      ledger,
      counters,
      findJob: (team, id) => records.get(team, id),
      ...(options.feedback ? { settings: options.feedback } : {}),
    }),
    records,
    webhooks,
    webhookDrain: new WebhookOutboxDrain(webhooks),
    jobs,
    host,
    queue,
    tokens,
    rate: new RateLimiter(options.limits?.ratePerMinute ?? 0, counters),
    concurrency: new TeamConcurrency(options.limits?.teamConcurrency ?? 0, counters),
    idempotency: new IdempotencyKeys(store),
    limits: options.limits ?? {},
    searchProviders,
    base: (request) => `${request.protocol}://${request.host}`,
    metered,
  };
}
