/**
 * An LlmProvider over any OpenAI-compatible chat-completions endpoint: OpenAI itself, Ollama
 * (`http://127.0.0.1:11434/v1`), vLLM, llama.cpp's server, LiteLLM. One `POST
 * {baseUrl}/chat/completions` per call; JSON answers ask for `response_format: json_schema`
 * (strict), or `json_object` for servers that know only that, and are parsed here — a fenced
 * ```json block, which some local models still write, is read too. 429 and 5xx answers are
 * retried with exponential backoff, honouring Retry-After. Tool calls go natively, or as a
 * JSON-action prompt for endpoints that refuse `tools` (see `openai-tools.ts`).
 */
import {
  ContentTooLargeError,
  FetchError,
  ValidationError,
  type LlmProvider,
  type LlmRequest,
  type LlmResponse,
  type LlmToolRequest,
  type LlmToolResponse,
} from '@trawl/core';
import {
  isToolsRefusal,
  readJsonAction,
  readToolCalls,
  toJsonActionMessages,
  toWireMessages,
  toWireToolChoice,
  toWireTools,
  type WireToolCall,
} from './openai-tools.ts';

/** Options of `OpenAiLlmProvider`. */
export interface OpenAiLlmProviderOptions {
  /**
   * Base URL of the API, up to and including `/v1`.
   * @default 'https://api.openai.com/v1'
   */
  baseUrl?: string;
  /** The model name, e.g. `gpt-4o-mini` or `llama3.1:8b`. */
  model: string;
  /** Sent as `Authorization: Bearer <apiKey>`; local servers often need none. */
  apiKey?: string;
  /**
   * How JSON answers are asked for: `json_schema` (structured outputs) or `json_object`.
   * @default 'json_schema'
   */
  jsonMode?: 'json_schema' | 'json_object';
  /**
   * Per request, in ms.
   * @default 60000
   */
  timeoutMs?: number;
  /**
   * Retries of a 429 or 5xx answer or a network failure.
   * @default 2
   */
  retries?: number;
  /**
   * Wait before the first retry when the server gives no Retry-After, doubled each time, in ms.
   * @default 1000
   */
  retryBaseMs?: number;
  /**
   * How tools are offered: `native` (`tools` in the request), `json-action` (a prompt asking for
   * `{"tool", "arguments"}`, for models without tool calling), or `auto`: native until the
   * endpoint refuses `tools`, then JSON actions for the rest of this provider's life.
   * @default 'auto'
   */
  toolCalls?: 'auto' | 'native' | 'json-action';
}

/** What a chat-completions answer carries that we read. */
interface CompletionBody {
  choices?: { message?: { content?: string | null; tool_calls?: WireToolCall[] } }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number };
  error?: { message?: string; code?: string | null };
}

/** Reads a JSON answer: the whole text, or the first fenced block in it. */
export function parseJsonAnswer(text: string): unknown {
  const trimmed = text.trim();
  try {
    return JSON.parse(trimmed);
  } catch {
    const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(trimmed);
    if (fenced?.[1] !== undefined) return JSON.parse(fenced[1]);
    throw new ValidationError(`The model's answer is not JSON: ${trimmed.slice(0, 200)}`);
  }
}

/** A chat-completions client. */
export class OpenAiLlmProvider implements LlmProvider {
  readonly model: string;
  readonly #endpoint: string;
  readonly #options: Required<Omit<OpenAiLlmProviderOptions, 'apiKey' | 'baseUrl' | 'model'>> & {
    apiKey?: string;
  };
  /** Set once the endpoint refused `tools` (in `auto` mode). */
  #toolsRefused = false;

  constructor(options: OpenAiLlmProviderOptions) {
    if (!options.model) throw new ValidationError('OpenAiLlmProvider needs a model name');
    const base = (options.baseUrl ?? 'https://api.openai.com/v1').replace(/\/+$/, '');
    try {
      new URL(base);
    } catch {
      throw new ValidationError(`The LLM base URL '${base}' is not a URL`);
    }
    this.model = options.model;
    this.#endpoint = `${base}/chat/completions`;
    this.#options = {
      jsonMode: options.jsonMode ?? 'json_schema',
      timeoutMs: options.timeoutMs ?? 60_000,
      retries: options.retries ?? 2,
      retryBaseMs: options.retryBaseMs ?? 1000,
      toolCalls: options.toolCalls ?? 'auto',
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    };
  }

  async complete(request: LlmRequest): Promise<LlmResponse> {
    // json_object carries no schema, and OpenAI refuses it unless a message says "JSON": the
    // schema goes into the conversation instead.
    const messages =
      request.jsonSchema && this.#options.jsonMode === 'json_object'
        ? [
            ...request.messages,
            {
              role: 'system' as const,
              content: `Answer with one JSON object matching this JSON Schema: ${JSON.stringify(request.jsonSchema.schema)}`,
            },
          ]
        : request.messages;
    const body: Record<string, unknown> = {
      model: this.model,
      messages,
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
    };
    if (request.jsonSchema) {
      body['response_format'] =
        this.#options.jsonMode === 'json_schema'
          ? {
              type: 'json_schema',
              json_schema: {
                name: request.jsonSchema.name,
                schema: request.jsonSchema.schema,
                strict: true,
              },
            }
          : { type: 'json_object' };
    }
    const answer = await this.#post(body, request.signal);
    const text = answer.choices?.[0]?.message?.content ?? '';
    const usage = usageOf(answer);
    if (!request.jsonSchema) return { text, ...usage };
    return { text, json: parseJsonAnswer(text), ...usage };
  }

  async completeWithTools(request: LlmToolRequest): Promise<LlmToolResponse> {
    const sampling = {
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
    };
    if (!this.#jsonActionsOnly()) {
      try {
        const answer = await this.#post(
          {
            model: this.model,
            messages: toWireMessages(request.messages),
            tools: toWireTools(request.tools),
            tool_choice: toWireToolChoice(request.toolChoice),
            ...sampling,
          },
          request.signal,
        );
        const message = answer.choices?.[0]?.message;
        return {
          text: message?.content ?? '',
          toolCalls: readToolCalls(message?.tool_calls),
          mode: 'native',
          ...usageOf(answer),
        };
      } catch (error) {
        if (this.#options.toolCalls === 'native' || !(error instanceof FetchError)) throw error;
        const refusal = error.details as { status?: number; message?: string } | undefined;
        if (!isToolsRefusal(refusal?.status ?? 0, refusal?.message ?? '')) throw error;
        this.#toolsRefused = true;
      }
    }
    const answer = await this.#post(
      { model: this.model, messages: toJsonActionMessages(request), ...sampling },
      request.signal,
    );
    const text = answer.choices?.[0]?.message?.content ?? '';
    const toolCalls = readJsonAction(text);
    return {
      // A tool call's JSON is not an answer to show.
      text: toolCalls.length > 0 ? '' : text,
      toolCalls,
      mode: 'json-action',
      ...usageOf(answer),
    };
  }

  #jsonActionsOnly(): boolean {
    return this.#options.toolCalls === 'json-action' || this.#toolsRefused;
  }

  async #post(body: unknown, signal: AbortSignal | undefined): Promise<CompletionBody> {
    let lastError = '';
    let lastStatus: { status: number; message: string } | undefined;
    for (let attempt = 0; attempt <= this.#options.retries; attempt++) {
      let waitMs = this.#options.retryBaseMs * 2 ** attempt;
      try {
        const timeout = AbortSignal.timeout(this.#options.timeoutMs);
        const response = await fetch(this.#endpoint, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(this.#options.apiKey ? { authorization: `Bearer ${this.#options.apiKey}` } : {}),
          },
          body: JSON.stringify(body),
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        });
        const text = await response.text();
        let parsed: CompletionBody = {};
        try {
          parsed = JSON.parse(text) as CompletionBody;
        } catch {
          parsed = { error: { message: text.slice(0, 200) } };
        }
        if (response.ok) return parsed;
        // OpenAI, vLLM and llama.cpp name an over-long prompt so; the caller cuts and asks again.
        if (
          response.status === 400 &&
          (parsed.error?.code === 'context_length_exceeded' ||
            /context.length|context window|maximum context/i.test(parsed.error?.message ?? ''))
        )
          throw new ContentTooLargeError(
            `The prompt does not fit the context of ${this.model}: ${parsed.error?.message ?? ''}`,
          );
        lastStatus = {
          status: response.status,
          message: parsed.error?.message ?? text.slice(0, 200),
        };
        lastError = `${this.#endpoint} answered HTTP ${response.status}: ${lastStatus.message}`;
        if (response.status !== 429 && response.status < 500) break;
        const retryAfter = Number(response.headers.get('retry-after'));
        if (Number.isFinite(retryAfter) && retryAfter > 0) waitMs = retryAfter * 1000;
      } catch (error) {
        if (error instanceof ContentTooLargeError) throw error;
        if (signal?.aborted)
          throw new FetchError('The LLM request was cancelled', { cause: error });
        lastError = `${this.#endpoint} could not be reached: ${(error as Error).message}`;
        lastStatus = undefined;
      }
      if (attempt < this.#options.retries)
        await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
    // The status and the server's message, so a caller can tell a refusal of `tools` apart.
    throw new FetchError(lastError, lastStatus ? { details: lastStatus } : {});
  }
}

/** The token counts of an answer, when it gives them. */
function usageOf(answer: CompletionBody): {
  usage?: { inputTokens: number; outputTokens: number };
} {
  return answer.usage?.prompt_tokens !== undefined
    ? {
        usage: {
          inputTokens: answer.usage.prompt_tokens,
          outputTokens: answer.usage.completion_tokens ?? 0,
        },
      }
    : {};
}
