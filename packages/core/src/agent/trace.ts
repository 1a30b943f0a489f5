/**
 * The trace of an agent run (`GET /v2/agent/{id}/trace`): every step as events in the
 * shape of the SDK's `AgentTraceEvent` (schemaVersion 1), so `getAgentTrace()` reads them as it
 * reads the hosted service's. Beyond that shape, each event carries what a person auditing a run
 * needs: the step, the pages a tool read, its tokens, credits and time.
 */
import { randomUUID } from 'node:crypto';
import type { LlmUsage } from '../interfaces/llm-provider.ts';

/** Who produced an event: this engine has one agent, the orchestrator. */
const orchestrator = { id: 'agent', role: 'orchestrator', name: 'trawl-agent' } as const;

/** Why a run or a step went wrong, as the SDK's `AgentTraceError` says it. */
export interface AgentTraceError {
  code: 'cancelled' | 'credit_limit_reached' | 'parent_finished' | 'refused' | 'internal';
  source: 'agent' | 'tool' | 'billing' | 'system';
  retryable: boolean;
  message: string;
}

/** What a tool call gave, as the trace shows it. */
export interface ToolCallRecord {
  /** Whether the tool ran; false for unknown tools, invalid arguments and refusals. */
  ok: boolean;
  /** One line on what came back (or why nothing did). */
  summary: string;
  /** Pages the call fetched or read. */
  pages: string[];
  /** Credits the call cost (pages, searches, maps; its own LLM tokens). */
  credits: number;
  /** LLM tokens the tool itself used (scrape with json, extract). */
  tokens: LlmUsage;
  durationMs: number;
  /** Set when a rule refused the call (strictConstrainToURLs, the page budget). */
  refused?: string;
}

/** Fields every event has. */
interface EventBase {
  schemaVersion: 1;
  eventId: string;
  runId: string;
  occurredAt: string;
  producerSequence: number;
  agent: typeof orchestrator;
}

/** One event of the trace. */
export type AgentTraceEvent = EventBase &
  (
    | { type: 'run.started' }
    | { type: 'run.resumed'; step: number }
    | { type: 'run.cancel_requested'; reason: 'user' }
    | {
        type: 'run.finished';
        outcome: 'succeeded' | 'failed' | 'cancelled' | 'credit_limit_reached';
        error: AgentTraceError | null;
      }
    | {
        type: 'progress.reported';
        phase: 'planning' | 'working' | 'finalizing';
        message: string;
        step: number;
        /** The model call's tokens, and the run's credits after it. */
        tokens: LlmUsage;
        creditsUsed: number;
      }
    | { type: 'reasoning.summary'; text: string; step: number }
    | {
        type: 'tool_call.started';
        toolCallId: string;
        toolName: string;
        parameters: unknown;
        step: number;
      }
    | {
        type: 'tool_call.finished';
        toolCallId: string;
        toolName: string;
        result: ToolCallRecord;
        step: number;
      }
    | { type: 'error.occurred'; error: AgentTraceError; step: number }
  );

/** An event before the recorder stamps it. */
export type AgentTraceEventInput = AgentTraceEvent extends infer Event
  ? Event extends EventBase
    ? Omit<Event, keyof EventBase>
    : never
  : never;

/** Appends stamped events to a run's list and tells a listener of each. */
export class TraceRecorder {
  readonly #events: AgentTraceEvent[];
  readonly #runId: string;
  readonly #onEvent: ((event: AgentTraceEvent) => void) | undefined;

  /** `events`: the list kept in the run's state (a resumed run goes on with its own). */
  constructor(
    events: AgentTraceEvent[],
    runId: string,
    onEvent?: (event: AgentTraceEvent) => void,
  ) {
    this.#events = events;
    this.#runId = runId;
    this.#onEvent = onEvent;
  }

  /** Records one event. */
  add(input: AgentTraceEventInput): AgentTraceEvent {
    const event = {
      schemaVersion: 1,
      eventId: randomUUID(),
      runId: this.#runId,
      occurredAt: new Date().toISOString(),
      producerSequence: this.#events.length,
      agent: orchestrator,
      ...input,
    } as AgentTraceEvent;
    this.#events.push(event);
    this.#onEvent?.(event);
    return event;
  }
}

/** A trace error; its source follows from the code. */
export function traceError(
  code: AgentTraceError['code'],
  message: string,
  retryable: boolean,
): AgentTraceError {
  return {
    code,
    source: code === 'credit_limit_reached' ? 'billing' : code === 'cancelled' ? 'system' : 'agent',
    retryable,
    message,
  };
}
