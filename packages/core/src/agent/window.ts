/**
 * Keeping a run's conversation within the model's context. The run keeps every message
 * (its state is what a restart resumes from), but what is sent is cut to fit: the oldest tool
 * results are replaced by a line saying what they were, the newest stay whole. The model keeps
 * the facts it needs by noting them in its own messages and in later tool arguments.
 */
import { estimateConversationTokens } from '../llm/chunk.ts';
import type { LlmToolMessage } from '../interfaces/llm-provider.ts';

export { estimateConversationTokens };

/**
 * The messages to send: as they are when they fit `maxTokens`, else with the oldest tool results
 * shortened (never the last `keepLast` of them).
 */
export function fitToContext(
  messages: readonly LlmToolMessage[],
  maxTokens: number,
  extra = '',
  keepLast = 2,
): LlmToolMessage[] {
  const fitted = [...messages];
  if (estimateConversationTokens(fitted, extra) <= maxTokens) return fitted;
  const toolIndexes = fitted.flatMap((message, index) => (message.role === 'tool' ? [index] : []));
  for (const index of toolIndexes.slice(0, Math.max(0, toolIndexes.length - keepLast))) {
    const message = fitted[index];
    if (message?.role !== 'tool') continue;
    const firstLine = message.content.split('\n', 1)[0]?.slice(0, 200) ?? '';
    fitted[index] = {
      ...message,
      content: `[Earlier result of ${message.name}, ${message.content.length} characters, no longer shown to save room. It began: ${firstLine}]`,
    };
    if (estimateConversationTokens(fitted, extra) <= maxTokens) break;
  }
  return fitted;
}
