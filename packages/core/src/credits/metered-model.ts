/**
 * A model whose every call is paid for before it is made: the call's upper bound in tokens (the
 * prompt's estimate and the most the answer may take) is reserved first, against the team's
 * credits and its daily token cap, and the call is refused when it does not fit. What the call
 * really used is metered after. So concurrent calls of one team together never pass its limit:
 * no call runs on credits another call may also be spending.
 */
import { estimateConversationTokens, estimateTokens } from '../llm/chunk.ts';
import type {
  LlmProvider,
  LlmRequest,
  LlmResponse,
  LlmToolRequest,
  LlmToolResponse,
  LlmUsage,
} from '../interfaces/llm-provider.ts';

/** Where a metered model holds the tokens of its calls (an admission ticket). */
export interface TokenHolder {
  /** Holds `tokens` more for a call about to be made. @throws the refusal when they do not fit */
  hold(tokens: number): Promise<void>;
  /** Lets go of `tokens` held for a call that ended, and meters what it used. */
  release(tokens: number, usage: LlmUsage | undefined): void;
}

/**
 * A call's answer may take at most this many tokens when the request sets no bound of its own
 * and the prompt leaves less room (the runner keeps as much for its answers).
 */
const minimumAnswerTokens = 1024;

/**
 * `llm` with every call held in `holder` for its upper bound first. `callTokens`: the model's
 * context; a request that sets no `maxTokens` gets what the context leaves the prompt's
 * estimate (at least {@link minimumAnswerTokens}), so the bound holds whatever the model writes:
 * one context's worth for a prompt that leaves room for an answer.
 */
export function meteredModel(
  llm: LlmProvider,
  holder: TokenHolder,
  callTokens: number,
): LlmProvider {
  const bounded = <R extends LlmRequest | LlmToolRequest>(request: R, extra: string) => {
    const prompt = estimateConversationTokens(request.messages, extra);
    const maxTokens = request.maxTokens ?? Math.max(minimumAnswerTokens, callTokens - prompt);
    return { request: { ...request, maxTokens }, bound: prompt + maxTokens, prompt };
  };
  const call = async <R extends LlmRequest | LlmToolRequest, A extends LlmResponse>(
    request: R,
    extra: string,
    run: (sent: R) => Promise<A>,
    answered: (answer: A) => string,
  ): Promise<A> => {
    const { request: sent, bound, prompt } = bounded(request, extra);
    await holder.hold(bound);
    let usage: LlmUsage | undefined;
    try {
      const answer = await run(sent);
      // An endpoint that reports no usage is charged the prompt's estimate and the answer's.
      usage = answer.usage ?? {
        inputTokens: prompt,
        outputTokens: estimateTokens(answered(answer)),
      };
      return answer;
    } finally {
      holder.release(bound, usage);
    }
  };
  const tools = llm.completeWithTools?.bind(llm);
  return {
    model: llm.model,
    complete: (request) =>
      call(
        request,
        request.jsonSchema ? JSON.stringify(request.jsonSchema) : '',
        (sent) => llm.complete(sent),
        (answer) => answer.text,
      ),
    ...(tools
      ? {
          completeWithTools: (request: LlmToolRequest) =>
            call<LlmToolRequest, LlmToolResponse>(
              request,
              JSON.stringify(request.tools),
              (sent) => tools(sent),
              (answer) => answer.text + answer.toolCalls.map((tool) => tool.argumentsText).join(''),
            ),
        }
      : {}),
  };
}
