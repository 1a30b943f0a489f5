/**
 * What an agent tool is: a name and description for the model, its arguments as one
 * zod schema (the JSON Schema the model sees is generated from it, so the two cannot disagree),
 * and a `run` that does the work within the run's scope and budget. A new tool is one file and
 * one line in `tools/index.ts`, as formats are.
 */
import type { z } from 'zod';
import type { EngineConfig } from '../../config.ts';
import type { LlmProvider, LlmUsage } from '../../interfaces/llm-provider.ts';
import type { SearchContext } from '../../search/engine.ts';
import type { AgentBudget, AgentSpend } from '../budget.ts';
import type { ResolvedAgentOptions } from '../options.ts';
import type { UrlScope } from '../scope.ts';

/** What a tool runs with. */
export interface ToolEnv {
  options: ResolvedAgentOptions;
  /** Store, fetchers, providers, team, signal: the same pipeline, cache and address rules as scrape. */
  engine: SearchContext & { config: EngineConfig };
  /** The model tools that read with an LLM (scrape with a schema, extract) ask. */
  llm: LlmProvider;
  scope: UrlScope;
  budget: AgentBudget;
  /** Tokens kept for the final answer: a tool that would eat into them is refused. */
  reserveTokens: number;
  /** Pages read so far (scrape, extract), in order; tools add to it. */
  pagesRead: string[];
  /** URLs an answer may cite: pages read and search results; tools add to it. */
  citable: Set<string>;
  /** Counts the LLM tokens a tool uses itself (scrape with a schema, extract). */
  onToolUsage: (usage: LlmUsage) => void;
  /** Longest page text shown to the model, in characters. */
  maxPageChars: number;
}

/** What a tool gave. */
export interface ToolOutcome {
  /** What the model reads as the tool's result. */
  content: string;
  /** Whether the tool did its work. */
  ok: boolean;
  /** One line for the trace and the live view. */
  summary: string;
  /** Pages fetched or read. */
  pages?: string[];
  /** Why a rule refused the call. */
  refused?: string;
  /** Work to count against the budget. */
  spend?: Partial<AgentSpend>;
  /** The answer, when `finish` accepted it. */
  finish?: { answer: unknown };
  /** A budget ran out: the run must wrap up. */
  exhausted?: 'pages' | 'credits';
}

/** One tool. */
export interface AgentTool<Schema extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  /** The arguments; a call whose arguments fail it is sent back to the model with the issues. */
  args: Schema;
  /** JSON Schema of the arguments for this run (finish embeds the run's schema). */
  parameters(options: ResolvedAgentOptions): Record<string, unknown>;
  run(args: z.output<Schema>, env: ToolEnv): Promise<ToolOutcome>;
}

/** A refusal outcome. */
export function refused(reason: string, exhausted?: ToolOutcome['exhausted']): ToolOutcome {
  return {
    ok: false,
    content: `Refused: ${reason}`,
    summary: `refused: ${reason}`,
    refused: reason,
    ...(exhausted ? { exhausted } : {}),
  };
}

/** A failure outcome: the tool ran and the work failed (a page that cannot be fetched …). */
export function failed(summary: string): ToolOutcome {
  return { ok: false, content: `Failed: ${summary}`, summary: `failed: ${summary}` };
}

/** The refusal when the credits left (beyond the answer's reserve) cannot pay for a call. */
export const creditsRefusal = (what: string) =>
  refused(
    `${what} would pass this run's maxCredits; the budget is kept for the answer. Call finish with what you have.`,
    'credits',
  );
