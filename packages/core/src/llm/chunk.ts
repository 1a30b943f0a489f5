/**
 * Page text → pieces that fit the model's context. Tokens are estimated at four
 * characters each, the rule of thumb of OpenAI's and Llama's tokenizers on English prose; a
 * too-small estimate is caught by the endpoint's `context_length_exceeded`, which makes the
 * caller cut again. Chunks break at blank lines (paragraphs, tables stay whole when they fit),
 * then at line ends, then anywhere.
 */
import type { LlmMessage, LlmToolMessage } from '../interfaces/llm-provider.ts';

/** Characters per token assumed when sizing text. */
export const charsPerToken = 4;

/** Estimated tokens of `text`. */
export const estimateTokens = (text: string): number => Math.ceil(text.length / charsPerToken);

/**
 * Estimated tokens of messages (and `extra` text sent with them: tool definitions, a schema); a
 * third more than the chunker's rule, to be safe where the estimate bounds a spend.
 */
export function estimateConversationTokens(
  messages: readonly (LlmMessage | LlmToolMessage)[],
  extra = '',
): number {
  let chars = extra.length;
  for (const message of messages) {
    chars += message.content.length + 16;
    if ('toolCalls' in message)
      for (const call of message.toolCalls)
        chars += call.name.length + call.argumentsText.length + 16;
  }
  return Math.ceil((chars / charsPerToken) * 1.34);
}

/** Splits `text` into pieces of at most `maxChars`, preferring paragraph and line boundaries. */
export function splitText(text: string, maxChars: number): string[] {
  const chunks: string[] = [];
  let current = '';
  const flush = () => {
    if (current.trim()) chunks.push(current.trim());
    current = '';
  };
  for (const paragraph of text.split(/\n{2,}/)) {
    if (current.length + paragraph.length + 2 <= maxChars) {
      current = current ? `${current}\n\n${paragraph}` : paragraph;
      continue;
    }
    flush();
    if (paragraph.length <= maxChars) {
      current = paragraph;
      continue;
    }
    // A paragraph longer than a chunk: by lines, then by hard cuts.
    for (const line of paragraph.split('\n')) {
      if (current.length + line.length + 1 <= maxChars) {
        current = current ? `${current}\n${line}` : line;
        continue;
      }
      flush();
      for (let start = 0; start < line.length; start += maxChars) {
        const piece = line.slice(start, start + maxChars);
        if (piece.length === maxChars) chunks.push(piece);
        else current = piece;
      }
    }
  }
  flush();
  return chunks.length > 0 ? chunks : [''];
}
