/**
 * A language model behind a chat-completion call: what judging monitor changes (and later the
 * json and summary formats) needs. The OpenAI-compatible adapter in `@trawl/adapters` serves
 * OpenAI, Ollama, vLLM and llama.cpp's server alike.
 *
 * @remarks
 * Deliberately out of the contract: streaming, images, parallel-tool-call settings, and token
 * accounting beyond the counts an answer reports. Retries are the provider's business. Tool calls
 * (`completeWithTools`) are optional: a provider for a model without native tool calling may
 * still offer them through a JSON-action prompt.
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

/** A tool the model may call: a function with JSON-Schema parameters. */
export interface LlmTool {
  /** `a-z`, `A-Z`, `0-9`, `_` and `-`, at most 64 characters (OpenAI's rule). */
  name: string;
  /** What the tool does and when to use it, for the model. */
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

/** One call of a tool the model asked for. */
export interface LlmToolCall {
  /** The call's id, which the tool's result message names in `toolCallId`. */
  id: string;
  name: string;
  /** The arguments as the model wrote them (JSON text), for the record and for error messages. */
  argumentsText: string;
  /**
   * The arguments parsed; undefined when `argumentsText` is not JSON. Neither the name nor the
   * arguments are checked against the tools: telling the model what was wrong is the caller's.
   */
  arguments: unknown;
}

/** One message of a conversation with tools. */
export type LlmToolMessage =
  | LlmMessage
  | { role: 'assistant'; content: string; toolCalls: readonly LlmToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string };

/** One completion request that offers tools. */
export interface LlmToolRequest {
  messages: readonly LlmToolMessage[];
  tools: readonly LlmTool[];
  /**
   * `auto`: the model calls tools or answers; `required`: it must call one; `{ name }`: it must
   * call that one.
   * @default 'auto'
   */
  toolChoice?: 'auto' | 'required' | { name: string };
  maxTokens?: number;
  temperature?: number;
  signal?: AbortSignal;
}

/** One completion of a request with tools: text, tool calls, or both. */
export interface LlmToolResponse {
  /** The answer's text; empty when the model only called tools. */
  text: string;
  /** The calls to run, in order; empty when the model answered in text. */
  toolCalls: LlmToolCall[];
  /**
   * How the tools were offered: the endpoint's native tool calling, or a prompt asking for a
   * `{"tool": name, "arguments": {...}}` answer.
   */
  mode: 'native' | 'json-action';
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
  /**
   * Runs one completion with tools on offer. Absent on providers that cannot call tools at all.
   * @throws FETCH_FAILED as `complete`; CONTENT_TOO_LARGE as `complete`.
   */
  completeWithTools?(request: LlmToolRequest): Promise<LlmToolResponse>;
}
