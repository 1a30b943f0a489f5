/**
 * The agent's loop: ask the model for its next step with the tools on offer, run the
 * tool calls it makes, tell it the results, and go on until it calls `finish` with an acceptable
 * answer, or a budget runs out. Then the model is asked once more, offered only `finish`, to
 * answer with what it has (marked partial); a model that still does not answer fails the run with
 * an error naming the budget. Unknown tools and invalid arguments are told to the model, and
 * count as steps; so many in a row end the run. The state is checkpointed after every model
 * answer and every tool result, so a run resumes from where it stopped.
 */
import { resolveEngineConfig } from '../config.ts';
import { defaultPrices } from '../credits/prices.ts';
import {
  ContentTooLargeError,
  ConflictError,
  NotConfiguredError,
  TrawlError,
  toTrawlError,
} from '../errors.ts';
import type { LlmToolCall, LlmToolRequest, LlmToolResponse } from '../interfaces/llm-provider.ts';
import { charsPerToken } from '../llm/chunk.ts';
import { AgentBudget } from './budget.ts';
import { budgetOf, type ResolvedAgentOptions } from './options.ts';
import { budgetSpentMessage, systemPromptOf, wrapUpPrompt } from './prompt.ts';
import { initialState, type AgentContext, type AgentResult, type AgentState } from './state.ts';
import { answerOf, answerProblems } from './tools/finish.ts';
import { checkCall, toolDefinitions } from './tools/index.ts';
import { toolEnvOf } from './tools/env.ts';
import type { ToolEnv, ToolOutcome } from './tools/types.ts';
import { traceError, TraceRecorder, type AgentTraceError } from './trace.ts';
import { estimateConversationTokens, fitToContext } from './window.ts';

/** Steps in a row without a valid tool call before the run gives up on the model. */
export const maxInvalidInARow = 5;
/**
 * Tokens a model answer may take (the finish call's answer included): a quarter of the context,
 * at most 4,096, so a small local model keeps room for the conversation.
 */
const outputTokensOf = (contextTokens: number) => Math.min(4096, Math.floor(contextTokens / 4));

/** Runs an agent to its end. @throws as `agent()` documents */
export async function runAgent(
  options: ResolvedAgentOptions,
  context: AgentContext,
): Promise<AgentResult> {
  return new AgentRun(options, context).run();
}

class AgentRun {
  readonly #options: ResolvedAgentOptions;
  readonly #context: AgentContext;
  readonly #state: AgentState;
  readonly #budget: AgentBudget;
  readonly #trace: TraceRecorder;
  readonly #env: ToolEnv;
  readonly #contextTokens: number;
  readonly #outputTokens: number;
  /** The tools as sent, for estimates of a call's size. */
  readonly #toolText: string;
  readonly #complete: (request: LlmToolRequest) => Promise<LlmToolResponse>;
  readonly #warnings: string[] = [];

  constructor(options: ResolvedAgentOptions, context: AgentContext) {
    const llm = context.llm;
    if (!llm?.completeWithTools)
      throw new NotConfiguredError(
        'The agent needs a model that can call tools: set llmBaseUrl and llmModel (any OpenAI-compatible endpoint), or pass an LlmProvider with completeWithTools as context.llm.',
      );
    this.#complete = (request) => llm.completeWithTools!(request);
    const config = context.config ?? resolveEngineConfig();
    this.#contextTokens = config.llmContextTokens;
    this.#outputTokens = outputTokensOf(config.llmContextTokens);
    this.#toolText = JSON.stringify(toolDefinitions(options));
    const state = context.resume ?? initialState(llm.model, context.runId);
    if (context.resume && state.model !== llm.model)
      throw new ConflictError(
        `This agent run was started with the model '${state.model}' and the configured model is now '${llm.model}': a run does not resume on another model. Start it again.`,
      );
    this.#options = options;
    this.#context = context;
    this.#state = state;
    this.#budget = new AgentBudget(
      { ...budgetOf(options), maxCredits: options.maxCredits },
      context.prices ?? defaultPrices,
      state.spend,
      state.usage,
    );
    this.#trace = new TraceRecorder(state.trace, state.runId, context.onEvent);
    this.#env = toolEnvOf(options, { ...context, llm }, config, this.#budget, state);
  }

  async run(): Promise<AgentResult> {
    const state = this.#state;
    if (state.messages.length === 0) {
      state.messages.push(
        { role: 'system', content: systemPromptOf(this.#options, this.#env.scope) },
        { role: 'user', content: this.#options.prompt },
      );
      this.#trace.add({ type: 'run.started' });
    } else this.#trace.add({ type: 'run.resumed', step: state.step });
    try {
      for (;;) {
        this.#throwIfCancelled();
        const outcome = await this.#runPendingCalls();
        if (outcome) return outcome;
        const ended = await this.#step();
        if (ended) return ended;
      }
    } catch (error) {
      const cancelled = this.#context.signal?.aborted === true;
      const failure = toTrawlError(error);
      this.#trace.add({
        type: 'run.finished',
        outcome: cancelled ? 'cancelled' : 'failed',
        error: traceError(cancelled ? 'cancelled' : 'internal', failure.message, failure.retryable),
      });
      await this.#checkpoint();
      // However the abort surfaced (in a fetch, in a tool), the caller sees one cancellation.
      throw cancelled ? cancelledError() : error;
    }
  }

  /** One model call; resolves with the result when the run ends here. */
  async #step(): Promise<AgentResult | undefined> {
    const state = this.#state;
    const estimate = () => {
      const tools = toolDefinitions(this.#options, state.wrapUp ? 'finish' : undefined);
      const toolText = JSON.stringify(tools);
      const conversation = Math.min(
        this.#contextTokens,
        estimateConversationTokens(state.messages, toolText),
      );
      return { tools, toolText, conversation, stepTokens: conversation + this.#outputTokens };
    };
    let planned = estimate();
    this.#updateReserve();
    if (!state.wrapUp) {
      if (state.step >= this.#budget.limits.maxSteps - 1) state.wrapUp = 'steps';
      else if (!this.#budget.fits({ tokens: planned.stepTokens }, this.#env.reserveTokens))
        state.wrapUp = 'credits';
    }
    if (state.wrapUp && !state.wrapUpAsked) {
      // Asked here, after the last tool results, never between them (the protocol wants the
      // results of one answer's calls right after it).
      state.messages.push({ role: 'user', content: wrapUpPrompt(state.wrapUp) });
      state.wrapUpAsked = true;
      planned = estimate();
    }
    if (state.wrapUp && !this.#budget.fits({ tokens: planned.stepTokens }, 0))
      return this.#fail(
        `maxCredits (${this.#budget.limits.maxCredits}) cannot pay for ${state.step === 0 ? 'one model call' : 'the answer'} (about ${planned.stepTokens} tokens); raise maxCredits.`,
        'credit_limit_reached',
      );
    const response = await this.#ask(planned.tools, planned.toolText);
    state.step += 1;
    this.#budget.use(response.usage);
    if (response.usage) this.#context.onLlmUsage?.(response.usage);
    this.#trace.add({
      type: 'progress.reported',
      phase: state.wrapUp ? 'finalizing' : state.step === 1 ? 'planning' : 'working',
      message: `step ${state.step}: ${response.toolCalls.length ? response.toolCalls.map((call) => call.name).join(', ') : 'no tool call'}`,
      step: state.step,
      tokens: response.usage ?? { inputTokens: 0, outputTokens: 0 },
      creditsUsed: this.#budget.credits().total,
    });
    if (response.text.trim() && response.toolCalls.length > 0)
      this.#trace.add({
        type: 'reasoning.summary',
        text: response.text.slice(0, 2000),
        step: state.step,
      });
    if (response.toolCalls.length === 0) {
      state.messages.push(
        { role: 'assistant', content: response.text },
        {
          role: 'user',
          content:
            'Answer only by calling a tool. When you have the data, call finish with it as `answer`.',
        },
      );
      return this.#invalid('The model answered in text instead of calling a tool.');
    }
    state.messages.push({
      role: 'assistant',
      content: response.text,
      toolCalls: response.toolCalls,
    });
    await this.#checkpoint();
    return undefined;
  }

  /**
   * Tokens kept for the answer: the call that writes it sees the conversation as it is now and
   * about one more page (cut to the context), and may answer at full length.
   */
  #updateReserve(): void {
    const pageTokens = Math.ceil((this.#env.maxPageChars / charsPerToken) * 1.34);
    const conversation = estimateConversationTokens(this.#state.messages, this.#toolText);
    this.#env.reserveTokens =
      Math.min(this.#contextTokens, conversation + pageTokens) + this.#outputTokens;
  }

  /** The model call; a conversation the endpoint finds too long is cut harder and sent again. */
  async #ask(
    tools: ReturnType<typeof toolDefinitions>,
    toolText: string,
  ): Promise<LlmToolResponse> {
    const request = (budgetTokens: number, keepLast: number): LlmToolRequest => ({
      messages: fitToContext(this.#state.messages, budgetTokens, toolText, keepLast),
      tools,
      // `auto`, and `required` with only finish on offer, rather than `required` always and a
      // named tool: llama.cpp's and older vLLM's servers refuse a named tool_choice.
      toolChoice: this.#state.wrapUp ? 'required' : 'auto',
      maxTokens: this.#outputTokens,
      temperature: 0,
      ...(this.#context.signal ? { signal: this.#context.signal } : {}),
    });
    const room = this.#contextTokens - this.#outputTokens;
    try {
      return await this.#complete(request(room, 2));
    } catch (error) {
      if (!(error instanceof ContentTooLargeError)) throw error;
      return this.#complete(request(Math.floor(room / 2), 1));
    }
  }

  /** Runs the tool calls of the last model answer that have no result yet. */
  async #runPendingCalls(): Promise<AgentResult | undefined> {
    const messages = this.#state.messages;
    const lastCall = messages.findLastIndex((message) => 'toolCalls' in message);
    if (lastCall < 0) return undefined;
    const assistant = messages[lastCall] as { toolCalls: readonly LlmToolCall[] };
    const answered = new Set(
      messages
        .slice(lastCall + 1)
        .flatMap((message) => (message.role === 'tool' ? [message.toolCallId] : [])),
    );
    const pending = assistant.toolCalls.filter((call) => !answered.has(call.id));
    if (pending.length === 0) return undefined;
    // Calls made after the model was asked to finish: only finish runs, and it must come.
    const wasWrappingUp = this.#state.wrapUpAsked === true;
    let validCalls = 0;
    for (const call of pending) {
      this.#throwIfCancelled();
      const outcome = await this.#runCall(call);
      if (outcome.ok || outcome.refused) validCalls += 1;
      if (outcome.finish) return this.#succeed(outcome.finish.answer);
      if (outcome.exhausted && !this.#state.wrapUp) this.#state.wrapUp = outcome.exhausted;
    }
    if (wasWrappingUp) return this.#fail(this.#budgetMessage(), 'refused');
    if (validCalls > 0) this.#state.invalidInARow = 0;
    else return this.#invalid('None of the tool calls of this step was valid.');
    return undefined;
  }

  /** Checks and runs one call, records it in the trace and the conversation. */
  async #runCall(call: LlmToolCall): Promise<ToolOutcome> {
    const started = performance.now();
    const creditsBefore = this.#budget.credits();
    const tokensBefore = { ...this.#state.usage };
    this.#trace.add({
      type: 'tool_call.started',
      toolCallId: call.id,
      toolName: call.name,
      parameters: call.arguments ?? call.argumentsText,
      step: this.#state.step,
    });
    this.#updateReserve();
    const outcome = await this.#outcomeOf(call);
    if (outcome.spend) this.#budget.spend(outcome.spend);
    const creditsAfter = this.#budget.credits();
    this.#trace.add({
      type: 'tool_call.finished',
      toolCallId: call.id,
      toolName: call.name,
      step: this.#state.step,
      result: {
        ok: outcome.ok,
        summary: outcome.summary,
        pages: outcome.pages ?? [],
        // The tool's own: pages, searches, maps, and the tokens it used itself.
        credits: creditsAfter.total - creditsBefore.total,
        tokens: {
          inputTokens: this.#state.usage.inputTokens - tokensBefore.inputTokens,
          outputTokens: this.#state.usage.outputTokens - tokensBefore.outputTokens,
        },
        durationMs: Math.round(performance.now() - started),
        ...(outcome.refused ? { refused: outcome.refused } : {}),
      },
    });
    this.#state.messages.push({
      role: 'tool',
      toolCallId: call.id,
      name: call.name,
      content: outcome.content,
    });
    this.#state.citable = [...this.#env.citable];
    await this.#checkpoint();
    return outcome;
  }

  async #outcomeOf(call: LlmToolCall): Promise<ToolOutcome> {
    const checked = checkCall(call, this.#options);
    if ('outcome' in checked) return checked.outcome;
    const { tool, args } = checked;
    if (this.#state.wrapUp && tool.name !== 'finish')
      return {
        ok: false,
        content: `Refused: ${this.#budgetMessage()} Only finish runs now.`,
        summary: `refused: ${call.name} after the budget was spent`,
        refused: 'budget spent',
      };
    if (tool.name === 'finish' && this.#state.wrapUp) return this.#finalAnswer(args);
    return tool.run(args, this.#env);
  }

  /** The answer while wrapping up: kept even when imperfect, since no step is left to fix it. */
  #finalAnswer(args: unknown): ToolOutcome {
    const answer = answerOf(args as Record<string, unknown>);
    const problem = answerProblems(answer, this.#options.schema, this.#env.citable);
    if (problem) this.#warnings.push(`The answer was given as the budget ran out and ${problem}.`);
    return {
      ok: true,
      content: 'Answer accepted.',
      summary: 'answer accepted (partial)',
      finish: { answer },
    };
  }

  #budgetMessage(): string {
    return budgetSpentMessage(this.#state.wrapUp ?? 'steps', this.#budget.limits, this.#options);
  }

  async #invalid(reason: string): Promise<AgentResult | undefined> {
    this.#state.invalidInARow += 1;
    this.#trace.add({
      type: 'error.occurred',
      error: traceError('refused', reason, true),
      step: this.#state.step,
    });
    if (this.#state.wrapUpAsked) return this.#fail(this.#budgetMessage(), 'refused');
    if (this.#state.invalidInARow >= maxInvalidInARow)
      return this.#fail(
        `The model made ${maxInvalidInARow} steps in a row without a valid tool call; last: ${reason}`,
        'refused',
      );
    await this.#checkpoint();
    return undefined;
  }

  async #succeed(answer: unknown): Promise<AgentResult> {
    const partial = this.#state.wrapUp !== undefined;
    if (partial)
      this.#warnings.push(
        `The answer is partial: ${wrapUpPrompt(this.#state.wrapUp!).split('.')[0]?.toLowerCase()} before the run was done.`,
      );
    this.#trace.add({ type: 'run.finished', outcome: 'succeeded', error: null });
    await this.#checkpoint();
    return this.#result('completed', answer, partial);
  }

  async #fail(message: string, code: AgentTraceError['code']): Promise<AgentResult> {
    this.#trace.add({
      type: 'run.finished',
      outcome: code === 'credit_limit_reached' ? 'credit_limit_reached' : 'failed',
      error: traceError(code, message, false),
    });
    await this.#checkpoint();
    return { ...this.#result('failed', null, false), error: message };
  }

  #result(status: AgentResult['status'], data: unknown, partial: boolean): AgentResult {
    return {
      status,
      data,
      partial,
      warnings: this.#warnings,
      model: this.#state.model,
      steps: this.#state.step,
      sources: [...new Set(this.#state.pagesRead)],
      credits: this.#budget.credits(),
      usage: { ...this.#state.usage },
      trace: this.#state.trace,
    };
  }

  #throwIfCancelled(): void {
    if (this.#context.signal?.aborted) throw cancelledError();
  }

  async #checkpoint(): Promise<void> {
    await this.#context.checkpoint?.(this.#state);
  }
}

const cancelledError = () => new TrawlError('UNKNOWN_ERROR', 'The agent run was cancelled');
