/**
 * Reading an agent's conversation from the requests the fake OpenAI server receives, so a test
 * can script a model that acts on what the tools really returned (issue 20): the results of each
 * tool so far, the step number, and whether the engine is forcing `finish`.
 */
import type { ChatRequest, FakeAnswer, FakeToolCall } from './openai-server.ts';

/** One tool result in the conversation. */
export interface SeenResult {
  tool: string;
  arguments: Record<string, unknown>;
  content: string;
}

/** Arguments as the model wrote them, or {} when they are not JSON. */
function parsedOrEmpty(text: string): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** The tool results of a request's conversation, in order. */
export function resultsOf(request: ChatRequest): SeenResult[] {
  const calls = new Map<string, { name: string; arguments: string }>();
  const results: SeenResult[] = [];
  for (const message of request.messages) {
    for (const call of message.tool_calls ?? []) calls.set(call.id, call.function);
    if (message.role === 'tool' && message.tool_call_id) {
      const call = calls.get(message.tool_call_id);
      results.push({
        tool: call?.name ?? '?',
        arguments: parsedOrEmpty(call?.arguments ?? ''),
        content: message.content ?? '',
      });
    }
  }
  return results;
}

/** Model answers so far in the conversation (the step about to be taken is this plus one). */
export const stepsSoFar = (request: ChatRequest) =>
  request.messages.filter((message) => message.role === 'assistant').length;

/** Whether the engine offers only `finish` (a budget is spent). */
export const mustFinish = (request: ChatRequest) =>
  (request.tools ?? []).length === 1 && request.tools?.[0]?.function?.name === 'finish';

/** An answer calling tools. */
export const call = (...calls: FakeToolCall[]): FakeAnswer => ({ toolCalls: calls });

/** An answer calling one tool. */
export const use = (name: string, args: Record<string, unknown> | string): FakeAnswer => ({
  toolCalls: [{ name, arguments: args }],
});
