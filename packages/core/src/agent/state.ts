/**
 * What an agent run is, as kept between its steps: the conversation, the counters of
 * its budget, the pages it read and its trace. It is plain JSON, so the server stores it after
 * every step and a restarted process resumes the run from it; and what `agent()` returns.
 */
import { randomUUID } from 'node:crypto';
import type { PriceTable } from '../credits/prices.ts';
import type { LlmToolMessage, LlmUsage } from '../interfaces/llm-provider.ts';
import type { SearchContext } from '../search/engine.ts';
import type { AgentCredits, AgentSpend } from './budget.ts';
import type { AgentTraceEvent } from './trace.ts';

/** Why a run is wrapping up: which budget is spent. */
export type WrapUpReason = 'steps' | 'pages' | 'credits';

/** A run between two steps. */
export interface AgentState {
  version: 1;
  runId: string;
  /** The model the run started with; another model does not resume it. */
  model: string;
  messages: LlmToolMessage[];
  /** Model calls made. */
  step: number;
  spend: AgentSpend;
  usage: LlmUsage;
  /** Pages read (scrape, extract), in order. */
  pagesRead: string[];
  /** URLs an answer may cite: pages read and search results seen. */
  citable: string[];
  trace: AgentTraceEvent[];
  /** Steps in a row that gave no valid tool call. */
  invalidInARow: number;
  /** Set once a budget is spent: the next step must finish. */
  wrapUp?: WrapUpReason;
  /** Whether the model was asked to finish (its next answer is the last). */
  wrapUpAsked?: boolean;
}

/** A new run's state. */
export function initialState(model: string, runId: string = randomUUID()): AgentState {
  return {
    version: 1,
    runId,
    model,
    messages: [],
    step: 0,
    spend: { searches: 0, maps: 0, pages: 0 },
    usage: { inputTokens: 0, outputTokens: 0 },
    pagesRead: [],
    citable: [],
    trace: [],
    invalidInARow: 0,
  };
}

/** Services and hooks of a run, besides the engine's (store, config, fetchers, providers, llm). */
export interface AgentContext extends SearchContext {
  /** The price table `maxCredits` is counted in (a server's admission's); the defaults unset. */
  prices?: PriceTable;
  /** The run's id in its trace (the server's job id). */
  runId?: string;
  /** A state a stopped run left: the run goes on from its last step. */
  resume?: AgentState;
  /** Called with the state after every step and tool call; the run waits for it (store it). */
  checkpoint?: (state: AgentState) => Promise<void>;
  /** Told each trace event as it happens (webhooks, the CLI's live view). */
  onEvent?: (event: AgentTraceEvent) => void;
}

/** How a run ended. */
export interface AgentResult {
  /** `completed` with an answer (maybe partial); `failed` when the model never gave one. */
  status: 'completed' | 'failed';
  /** The answer; null when the run failed. */
  data: unknown;
  /** True when a budget ran out and the answer holds only what was found by then. */
  partial: boolean;
  /** Why the run failed. */
  error?: string;
  warnings: string[];
  /** The model that ran. */
  model: string;
  steps: number;
  /** Pages read, without repeats. */
  sources: string[];
  credits: AgentCredits;
  usage: LlmUsage;
  trace: AgentTraceEvent[];
}
