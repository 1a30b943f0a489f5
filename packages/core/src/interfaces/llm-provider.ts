/**
 * A language model behind a chat-completion call: what judging monitor changes (and later the
 * json and summary formats) needs. The OpenAI-compatible adapter in `@trawl/adapters` serves
 * OpenAI, Ollama, vLLM and llama.cpp's server alike.
 *
 * @remarks
 * Deliberately out of the contract: streaming, tool calls, images, and token accounting beyond
 * the counts an answer reports. Retries are the provider's business.
 */

/** One message of the conversation. */
export interface LlmMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** One completion request. */
export interface LlmRequest {
  messages: readonly LlmMessage[];
  /**
   * Ask for a JSON answer matching this JSON Schema; the provider parses it into `json`.
   * `name` is a short identifier of the schema (`a-z`, `_`).
   */
  jsonSchema?: { name: string; schema: Record<string, unknown> };
  /** Upper bound of the answer's tokens. */
  maxTokens?: number;
  /** Sampling temperature; 0 for repeatable answers. */
  temperature?: number;
  signal?: AbortSignal;
}

/** Tokens one call (or many, summed) used. */
export interface LlmUsage {
  inputTokens: number;
  outputTokens: number;
}

/** One completion. */
export interface LlmResponse {
  /** The answer's text. */
  text: string;
  /** The parsed answer, when `jsonSchema` was given. */
  json?: unknown;
  /** Tokens the call used, when the endpoint says. */
  usage?: LlmUsage;
}

/** A chat-completion model. */
export interface LlmProvider {
  /** The model's name, for logs and records. */
  readonly model: string;
  /**
   * Runs one completion. @throws FETCH_FAILED when the endpoint cannot be reached or answers
   * with an error; BAD_REQUEST when a JSON answer does not parse; CONTENT_TOO_LARGE when the
   * prompt does not fit the model's context (`context_length_exceeded`), so callers can cut it.
   */
  complete(request: LlmRequest): Promise<LlmResponse>;
}
