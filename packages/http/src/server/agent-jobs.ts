/**
 * The agent as a kind of job of the host: each run is a job kept in the Store as it
 * goes — its record, and the run's state after every step — so `GET /v2/agent/{id}` and the trace
 * outlive the request, and a run whose process died is taken over (by a worker, in a split
 * deployment) and goes on from its last step, or fails with a clear error when the configured
 * model cannot resume it. A run is admitted with its credit budget reserved by the route, and its
 * ticket settled when it ends, at admission's prices (searches, maps, pages, and the tokens the
 * ticket metered); webhooks `agent.started`, `agent.action`, `agent.completed`, `agent.failed`
 * and `agent.cancelled` go out with the envelope of the other jobs.
 */
import {
  agent,
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
import { dayMs, type Admission, type HostedRecord, type JobKindHandler } from '@trawl/core/server';
import type { RequestRecords } from './records.ts';
import type { WebhookConfig, WebhookSender } from './webhooks.ts';

/** The kind's name on the host and the queue. */
export const agentKind = 'agent';
/** Results stay readable for a day after the last step, as the hosted service keeps them. */
export const agentRetentionMs = dayMs;

/** One agent run as stored. */
export interface AgentRecord extends HostedRecord {
  /** The agent options as the request gave them (webhook and wire fields taken out). */
  options: AgentOptions;
  /** Where the request came from (`origin`), for the list. */
  origin: string;
  /** The model that runs (the configured one), whatever `options.model` asked for. */
  model: string;
  webhook?: WebhookConfig;
  data?: unknown;
  partial?: boolean;
  warning?: string;
  creditsUsed?: number;
  /** The run between steps: what a take-over resumes from, and the trace. */
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

type AgentEvent = 'started' | 'action' | 'completed' | 'failed' | 'cancelled';

/** The agent kind, for the job host. */
export function agentJobs(context: AgentJobsContext): JobKindHandler<AgentRecord> {
  const send = (
    record: AgentRecord,
    event: AgentEvent,
    payload: { success: boolean; data: unknown[]; error?: string | undefined },
  ) => {
    if (record.webhook)
      void context.webhooks.send(record.webhook, `agent.${event}`, record.id, payload);
  };
  const onEvent = (record: AgentRecord, event: AgentTraceEvent) => {
    // Each tool call that finished is an `agent.action`.
    if (event.type === 'tool_call.finished')
      send(record, 'action', { success: event.result.ok, data: [event] });
  };

  return {
    kind: agentKind,
    namespace: 'agent-jobs',
    retentionMs: agentRetentionMs,
    async started(record) {
      await context.records.start(
        record.team,
        'agent',
        record.options.prompt.slice(0, 200),
        record.id,
      );
      send(record, 'started', { success: true, data: [] });
    },

    async run(record, control) {
      const { store, config, llm, admission, providers } = context;
      // The run's reservation has its id, whichever process admitted it.
      const ticket = admission.ticket(record.team, record.id, {
        callsModel: true,
        budget: true,
        leaseMs: agentRetentionMs,
      });
      // Tokens of the steps before a take-over are charged with the rest, at the end.
      if (record.state && record.state.usage.inputTokens + record.state.usage.outputTokens > 0)
        ticket.onLlmUsage(record.state.usage);
      let result: AgentResult | undefined;
      let failure: string | undefined;
      try {
        result = await agent(record.options, {
          store,
          config,
          team: record.team,
          signal: control.signal,
          providers,
          prices: admission.prices,
          runId: record.id,
          ...(llm ? { llm: ticket.model(llm) } : {}),
          ...(record.state ? { resume: record.state } : {}),
          checkpoint: (state) => {
            // Handed over is not an end: the state of the last step stays as stored.
            if (control.handedOver) return Promise.resolve();
            record.state = state;
            return control.checkpoint(record);
          },
          onEvent: (event) => onEvent(record, event),
        });
      } catch (error) {
        const trawlError = toTrawlError(error);
        failure = `${trawlError.code}: ${trawlError.message}`;
      }
      if (control.handedOver) return record;
      const spend = record.state?.spend ?? { searches: 0, maps: 0, pages: 0 };
      record.creditsUsed = await ticket
        .settle({
          search: admission.cost('search', spend.searches),
          map: admission.cost('map', spend.maps),
          scrape: admission.cost('scrape', spend.pages),
        })
        .catch((error: unknown) => {
          context.log(`agent ${record.id}: credits not charged`, error);
          return 0;
        });
      if (control.cancelled) record.status = 'cancelled';
      else if (result?.status === 'completed') {
        record.status = 'completed';
        record.data = result.data;
        record.partial = result.partial;
        if (result.warnings.length) record.warning = result.warnings.join(' ');
      } else {
        record.status = 'failed';
        record.error = result?.error ?? failure ?? 'The agent run failed';
      }
      return record;
    },

    async ended(record) {
      await context.records
        .finish(record.id, {
          status: record.status === 'processing' ? 'failed' : record.status,
          creditsUsed: record.creditsUsed ?? 0,
          ...(record.error ? { error: record.error } : {}),
        })
        .catch(() => undefined);
      if (record.status === 'completed')
        send(record, 'completed', {
          success: true,
          data: [
            {
              status: 'completed',
              data: record.data,
              partial: record.partial ?? false,
              creditsUsed: record.creditsUsed,
            },
          ],
        });
      else if (record.status === 'cancelled')
        send(record, 'cancelled', {
          success: false,
          data: [],
          error: 'The agent run was cancelled',
        });
      else send(record, 'failed', { success: false, data: [], error: record.error });
    },
  };
}
