/**
 * The server's agent runs (issue 20): each is a job kept in the Store as it goes — its record,
 * and the run's state after every step — so `GET /v2/agent/{id}` and the trace outlive the
 * request, and a server killed mid-run resumes it at its next start from the last step (or fails
 * it with a clear error when the configured model cannot resume it). A run is admitted with its
 * credit budget reserved, and its ticket settled when it ends, at admission's prices (searches,
 * maps, pages, and the tokens the ticket metered);
 * webhooks `agent.started`, `agent.action`, `agent.completed`, `agent.failed` and
 * `agent.cancelled` go out with the envelope of the other jobs.
 */
import {
  agent,
  scanStore,
  toTrawlError,
  type AgentOptions,
  type AgentResult,
  type AgentState,
  type AgentTraceEvent,
  type EngineConfig,
  type LlmProvider,
  type SearchProvider,
  type Store,
} from '@trawl/core';
import { dayMs, type Admission, type AdmissionTicket } from '@trawl/core/server';
import type { RequestRecords } from './records.ts';
import type { WebhookConfig, WebhookSender } from './webhooks.ts';

const namespace = 'agent-jobs';
/** Results stay readable for a day after the last step, as the hosted service keeps them. */
export const agentRetentionMs = dayMs;

/** One agent run as stored. */
export interface AgentRecord {
  id: string;
  team: string;
  status: 'processing' | 'completed' | 'failed' | 'cancelled';
  /** The agent options as the request gave them (webhook and wire fields taken out). */
  options: AgentOptions;
  /** Where the request came from (`origin`), for the list. */
  origin: string;
  createdAt: string;
  expiresAt: string;
  /** The model that runs (the configured one), whatever `options.model` asked for. */
  model: string;
  webhook?: WebhookConfig;
  data?: unknown;
  partial?: boolean;
  warning?: string;
  error?: string;
  creditsUsed?: number;
  /** The run between steps: what a restart resumes from, and the trace. */
  state?: AgentState;
}

/** What the runs are built from. */
export interface AgentJobsContext {
  store: Store;
  config: EngineConfig;
  llm: LlmProvider | undefined;
  admission: Admission;
  records: RequestRecords;
  webhooks: WebhookSender;
  providers: readonly SearchProvider[];
  log: (message: string, error?: unknown) => void;
}

const keyOf = (team: string, id: string) => `${encodeURIComponent(team)}/${id}`;

/** The runs of this server. */
export class AgentJobs {
  readonly #context: AgentJobsContext;
  /** Runs going on in this process, by id: their live record and their abort. */
  readonly #running = new Map<string, { record: AgentRecord; abort: AbortController }>();
  /** Writes of each run, one after another, so an older state never lands last. */
  readonly #writes = new Map<string, Promise<unknown>>();
  #closing = false;

  constructor(context: AgentJobsContext) {
    this.#context = context;
  }

  /** Stores a new run and starts it. */
  async start(record: AgentRecord): Promise<void> {
    await this.#save(record);
    await this.#context.records.start(
      record.team,
      'agent',
      record.options.prompt.slice(0, 200),
      record.id,
    );
    this.#send(record, 'started', { success: true, data: [] });
    this.#run(record);
  }

  /** A team's run, if it has one by that id; the live record while it runs here. */
  async get(team: string, id: string): Promise<AgentRecord | undefined> {
    const running = this.#running.get(id)?.record;
    if (running) return running.team === team ? running : undefined;
    return this.#context.store.get<AgentRecord>(namespace, keyOf(team, id));
  }

  /** A team's runs created before `beforeMs`, newest first, at most `limit`. */
  async list(team: string, beforeMs: number, limit: number): Promise<AgentRecord[]> {
    const found: AgentRecord[] = [];
    for await (const { value } of scanStore<AgentRecord>(
      this.#context.store,
      namespace,
      `${encodeURIComponent(team)}/`,
    ))
      if (Date.parse(value.createdAt) < beforeMs) found.push(value);
    found.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
    return found.slice(0, limit);
  }

  /** Cancels a run; resolves with its record as cancelled. */
  async cancel(record: AgentRecord): Promise<AgentRecord> {
    const running = this.#running.get(record.id);
    const live = running?.record ?? record;
    live.status = 'cancelled';
    running?.abort.abort();
    await this.#save(live);
    if (!running) await this.#ended(live, undefined);
    return live;
  }

  /**
   * Goes on with every run a stopped process left `processing`: from its last step, or failed
   * with the reason when it cannot go on. Resolves with the ids resumed.
   */
  async restore(): Promise<string[]> {
    const resumed: string[] = [];
    for await (const { value } of scanStore<AgentRecord>(this.#context.store, namespace)) {
      if (value.status !== 'processing' || this.#running.has(value.id)) continue;
      this.#run(value);
      resumed.push(value.id);
    }
    return resumed;
  }

  /** Stops the runs of this process without ending them: they resume at the next start. */
  close(): void {
    this.#closing = true;
    for (const { abort } of this.#running.values()) abort.abort();
  }

  #run(record: AgentRecord): void {
    const { store, config, llm, admission, providers } = this.#context;
    const abort = new AbortController();
    this.#running.set(record.id, { record, abort });
    // The run's reservation has its id, whichever process admitted it.
    const meter = admission.ticket(record.team, record.id, {
      callsModel: true,
      budget: true,
      leaseMs: agentRetentionMs,
    });
    // Tokens of the steps before a restart are charged with the rest, at the end.
    if (record.state && record.state.usage.inputTokens + record.state.usage.outputTokens > 0)
      meter.onLlmUsage(record.state.usage);
    void (async () => {
      let result: AgentResult | undefined;
      let failure: string | undefined;
      try {
        result = await agent(record.options, {
          store,
          config,
          team: record.team,
          signal: abort.signal,
          providers,
          prices: admission.prices,
          runId: record.id,
          ...(llm ? { llm: meter.model(llm) } : {}),
          ...(record.state ? { resume: record.state } : {}),
          checkpoint: (state) => {
            // Stopping for a shutdown is not an end: the state of the last step stays as stored.
            if (this.#closing) return Promise.resolve();
            record.state = state;
            return this.#save(record);
          },
          onEvent: (event) => this.#onEvent(record, event),
        });
      } catch (error) {
        const trawlError = toTrawlError(error);
        failure = `${trawlError.code}: ${trawlError.message}`;
      }
      // A shutdown leaves the run processing, with its state, for the next start.
      if (this.#closing && record.status === 'processing' && abort.signal.aborted) {
        this.#running.delete(record.id);
        return;
      }
      try {
        await this.#settle(record, result, failure, meter);
      } finally {
        // Only now: until the end is stored, a DELETE sees the live record and its final status.
        this.#running.delete(record.id);
      }
      await this.#ended(record, result);
    })().catch((error: unknown) =>
      this.#context.log(`agent ${record.id}: the end was not stored`, error),
    );
  }

  /** Charges a run that ended and stores how it ended. */
  async #settle(
    record: AgentRecord,
    result: AgentResult | undefined,
    failure: string | undefined,
    ticket: AdmissionTicket,
  ): Promise<void> {
    const { admission } = this.#context;
    const spend = record.state?.spend ?? { searches: 0, maps: 0, pages: 0 };
    const charges = {
      search: admission.cost('search', spend.searches),
      map: admission.cost('map', spend.maps),
      scrape: admission.cost('scrape', spend.pages),
    };
    record.creditsUsed = await ticket.settle(charges).catch((error: unknown) => {
      this.#context.log(`agent ${record.id}: credits not charged`, error);
      return 0;
    });
    if (record.status !== 'cancelled') {
      if (result?.status === 'completed') {
        record.status = 'completed';
        record.data = result.data;
        record.partial = result.partial;
        if (result.warnings.length) record.warning = result.warnings.join(' ');
      } else {
        record.status = 'failed';
        record.error = result?.error ?? failure ?? 'The agent run failed';
      }
    }
    await this.#save(record);
  }

  /** The record and webhook of a run that ended. */
  async #ended(record: AgentRecord, result: AgentResult | undefined): Promise<void> {
    await this.#context.records
      .finish(record.id, {
        status: record.status === 'processing' ? 'failed' : record.status,
        creditsUsed: record.creditsUsed ?? 0,
        ...(record.error ? { error: record.error } : {}),
      })
      .catch(() => undefined);
    if (record.status === 'completed')
      this.#send(record, 'completed', {
        success: true,
        data: [
          {
            status: 'completed',
            data: record.data,
            partial: result?.partial ?? false,
            creditsUsed: record.creditsUsed,
          },
        ],
      });
    else if (record.status === 'cancelled')
      this.#send(record, 'cancelled', {
        success: false,
        data: [],
        error: 'The agent run was cancelled',
      });
    else this.#send(record, 'failed', { success: false, data: [], error: record.error });
  }

  /** Each tool call that finished is an `agent.action`. */
  #onEvent(record: AgentRecord, event: AgentTraceEvent): void {
    if (event.type === 'tool_call.finished')
      this.#send(record, 'action', { success: event.result.ok, data: [event] });
  }

  #send(
    record: AgentRecord,
    event: 'started' | 'action' | 'completed' | 'failed' | 'cancelled',
    payload: { success: boolean; data: unknown[]; error?: string | undefined },
  ): void {
    if (!record.webhook) return;
    void this.#context.webhooks.send(record.webhook, `agent.${event}`, record.id, payload);
  }

  #save(record: AgentRecord): Promise<void> {
    const snapshot = structuredClone({
      ...record,
      expiresAt: new Date(Date.now() + agentRetentionMs).toISOString(),
    });
    record.expiresAt = snapshot.expiresAt;
    const previous = this.#writes.get(record.id) ?? Promise.resolve();
    const write = previous.then(() =>
      this.#context.store.set(namespace, keyOf(record.team, record.id), snapshot, {
        ttlMs: agentRetentionMs,
      }),
    );
    const settled = write.catch((error: unknown) =>
      this.#context.log(`agent ${record.id}: the run could not be stored`, error),
    );
    this.#writes.set(record.id, settled);
    void settled.then(() => {
      if (this.#writes.get(record.id) === settled) this.#writes.delete(record.id);
    });
    return write;
  }
}
