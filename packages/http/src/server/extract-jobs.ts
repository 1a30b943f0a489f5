/**
 * Extract as a kind of job of the host: the job is kept in the Store, so its status
 * outlives the request, and runs wherever the queue hands it (a worker, in a split deployment). A
 * job whose process died is run again by whoever takes it over; the LLM answer cache makes the
 * pages it already read cost no tokens. Its ticket, reserved by the route under the job's id, is
 * settled by the process that ends it.
 */
import {
  extract,
  toTrawlError,
  type EngineConfig,
  type ExtractOptions,
  type LlmProvider,
  type ResolvedExtractOptions,
  type Store,
} from '@trawl/core';
import { dayMs, type Admission, type HostedRecord, type JobKindHandler } from '@trawl/core/server';

/** The kind's name on the host and the queue. */
export const extractKind = 'extract';
/** Results stay readable for a day, as the hosted service keeps them. */
export const extractRetentionMs = dayMs;

/** One extract job as stored. */
export interface ExtractRecord extends HostedRecord {
  options: ExtractOptions | ResolvedExtractOptions;
  data?: unknown;
  sources?: Record<string, string[]>;
  warning?: string;
  creditsUsed?: number;
}

/** What the jobs are built from. */
export interface ExtractJobsContext {
  store: Store;
  config: EngineConfig;
  llm: LlmProvider | undefined;
  admission: Admission;
}

/** The extract kind, for the job host. */
export function extractJobs(context: ExtractJobsContext): JobKindHandler<ExtractRecord> {
  return {
    kind: extractKind,
    namespace: 'extract-jobs',
    retentionMs: extractRetentionMs,
    async run(record, control) {
      const { admission, llm } = context;
      const ticket = admission.ticket(record.team, record.id, {
        callsModel: true,
        leaseMs: extractRetentionMs,
      });
      try {
        const result = await extract(record.options, {
          store: context.store,
          config: context.config,
          team: record.team,
          signal: control.signal,
          ...(llm ? { llm: ticket.model(llm) } : {}),
        });
        if (control.handedOver) return record;
        const credits = await ticket.settle({
          scrape: admission.cost('scrape', result.pages.length),
        });
        // A DELETE that came while the last page was read still wins.
        if (control.cancelled) return { ...record, status: 'cancelled' };
        return {
          ...record,
          status: 'completed',
          data: result.data,
          ...(result.sources ? { sources: result.sources } : {}),
          ...(result.warnings.length ? { warning: result.warnings.join(' ') } : {}),
          creditsUsed: credits,
        };
      } catch (error) {
        if (control.handedOver) return record;
        await ticket.settle().catch(() => 0);
        return control.cancelled
          ? { ...record, status: 'cancelled' }
          : { ...record, status: 'failed', error: toTrawlError(error).message };
      }
    },
  };
}
