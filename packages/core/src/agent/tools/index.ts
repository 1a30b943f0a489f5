/**
 * The agent's tools, by name. A new tool is one file and one line here; the model is
 * offered them in this order.
 */
import type { LlmTool, LlmToolCall } from '../../interfaces/llm-provider.ts';
import type { ResolvedAgentOptions } from '../options.ts';
import { extractTool } from './extract.ts';
import { finishTool } from './finish.ts';
import { mapTool } from './map.ts';
import { scrapeTool } from './scrape.ts';
import { searchTool } from './search.ts';
import type { AgentTool, ToolOutcome } from './types.ts';

/** Every tool of the agent. */
export const agentTools: Readonly<Record<string, AgentTool>> = {
  search: searchTool,
  map: mapTool,
  scrape: scrapeTool,
  extract: extractTool,
  finish: finishTool,
};

/** The tools as the model is offered them for a run. */
export function toolDefinitions(options: ResolvedAgentOptions, only?: string): LlmTool[] {
  return Object.values(agentTools)
    .filter((tool) => only === undefined || tool.name === only)
    .map((tool) => ({
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters(options),
    }));
}

/** An invalid call's outcome: told to the model, and no valid call of its step. */
function invalidCall(message: string): ToolOutcome {
  return { ok: false, content: message, summary: message.slice(0, 200) };
}

/**
 * A model's call checked against the tools: the tool and its parsed arguments, or what to tell
 * the model (an unknown tool, arguments that are not JSON or do not match).
 */
export function checkCall(
  call: LlmToolCall,
  options: ResolvedAgentOptions,
): { tool: AgentTool; args: unknown } | { outcome: ToolOutcome } {
  const tool = agentTools[call.name];
  if (!tool)
    return {
      outcome: invalidCall(
        `There is no tool '${call.name}'. The tools are: ${Object.keys(agentTools).join(', ')}.`,
      ),
    };
  if (call.arguments === undefined)
    return {
      outcome: invalidCall(
        `The arguments of ${call.name} are not JSON: ${call.argumentsText.slice(0, 200)}`,
      ),
    };
  const parsed = tool.args.safeParse(call.arguments);
  if (parsed.success) return { tool, args: parsed.data };
  const issues = parsed.error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.join('.') || '(arguments)'}: ${issue.message}`)
    .join('; ');
  return {
    outcome: invalidCall(
      `Invalid arguments for ${call.name}: ${issues}. They must match: ${JSON.stringify(tool.parameters(options))}`,
    ),
  };
}
