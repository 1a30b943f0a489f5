/**
 * `agent()`: autonomous collection of web data to a schema (`POST /v2/agent`). A model
 * that calls tools — search, map, scrape, extract, finish — finds the pages, reads them and fills
 * the schema, within a step, page and credit budget, leaving a trace of every step.
 */
import { parseOrThrow } from '../internal/zod.ts';
import { NotConfiguredError, ValidationError } from '../errors.ts';
import { compileSchema } from '../llm/schema.ts';
import { runAgent } from './loop.ts';
import { agentOptionsSchema, type AgentOptions, type ResolvedAgentOptions } from './options.ts';
import { UrlScope } from './scope.ts';
import type { AgentContext, AgentResult } from './state.ts';

/**
 * Checks an agent request before any work: options, schema, URLs, and that a model able to
 * call tools is configured.
 * @throws BAD_REQUEST, INVALID_URL, NOT_CONFIGURED
 */
export function prepareAgent(
  options: AgentOptions,
  context: Pick<AgentContext, 'llm'>,
): ResolvedAgentOptions {
  const resolved = parseOrThrow(agentOptionsSchema, options, 'agent request');
  if (resolved.schema) compileSchema(resolved.schema, ['schema']);
  for (const [index, url] of (resolved.urls ?? []).entries()) {
    try {
      new UrlScope([url]);
    } catch (error) {
      const message = (error as Error).message;
      throw new ValidationError(`Invalid agent request at 'urls.${index}': ${message}`, {
        code: 'INVALID_URL',
        details: [{ path: ['urls', index], message }],
      });
    }
  }
  if (!context.llm?.completeWithTools)
    throw new NotConfiguredError(
      context.llm
        ? `The agent needs a model that can call tools, and the configured LlmProvider ('${context.llm.model}') has no completeWithTools.`
        : 'The agent needs an LLM and none is configured: set llmBaseUrl and llmModel (any OpenAI-compatible endpoint: OpenAI, Ollama, llama.cpp server, vLLM), or pass an LlmProvider as context.llm.',
    );
  return resolved;
}

/**
 * Runs an agent: resolves with its answer (`partial` when a budget ran out first) or, when the
 * model never gave one, `status: 'failed'` with the reason; `trace` holds every step.
 * @throws BAD_REQUEST / INVALID_URL for bad options; NOT_CONFIGURED without a tool-calling
 * model; CONFLICT when `context.resume` was started on another model; FETCH_FAILED when the
 * model's endpoint fails; UNKNOWN_ERROR "cancelled" when `context.signal` aborts
 * @example
 * const result = await agent({ prompt: 'The price of every plan', urls: ['https://example.com/pricing'] }, { llm, store });
 * console.log(result.data);
 */
export async function agent(
  options: AgentOptions,
  context: AgentContext = {},
): Promise<AgentResult> {
  const resolved = prepareAgent(options, context);
  return runAgent(resolved, context);
}
