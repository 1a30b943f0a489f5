/**
 * What the tools of one run work with: the engine's services without the agent's own
 * hooks, the run's scope and budget, and the lists of pages read and URLs that may be cited,
 * which live in the run's state so that a resumed run has them.
 */
import type { EngineConfig } from '../../config.ts';
import { charsPerToken } from '../../llm/chunk.ts';
import type { LlmProvider } from '../../interfaces/llm-provider.ts';
import type { AgentBudget } from '../budget.ts';
import type { ResolvedAgentOptions } from '../options.ts';
import { UrlScope } from '../scope.ts';
import type { AgentContext, AgentState } from '../state.ts';
import type { ToolEnv } from './types.ts';

/** The tools' environment of a run. */
export function toolEnvOf(
  options: ResolvedAgentOptions,
  context: AgentContext & { llm: LlmProvider },
  config: EngineConfig,
  budget: AgentBudget,
  state: AgentState,
): ToolEnv {
  const {
    llm,
    onLlmUsage,
    checkpoint: _checkpoint,
    onEvent: _onEvent,
    resume: _resume,
    prices: _prices,
    runId: _runId,
    ...engine
  } = context;
  return {
    options,
    engine: { ...engine, config },
    llm,
    scope: new UrlScope(options.strictConstrainToURLs ? options.urls : undefined),
    budget,
    reserveTokens: 0,
    pagesRead: state.pagesRead,
    citable: new Set(state.citable),
    onToolUsage: (usage) => {
      budget.use(usage);
      onLlmUsage?.(usage);
    },
    // A page takes at most a third of the context, so a few stay in view together.
    maxPageChars: Math.floor((config.llmContextTokens * charsPerToken) / 3),
  };
}
