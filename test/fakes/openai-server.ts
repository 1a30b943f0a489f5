/**
 * A fake OpenAI-compatible chat-completions server on 127.0.0.1, for the LLM adapter and judging
 * tests (an LLM API is a paid remote service: STYLE.md allows a fake that speaks its wire
 * protocol). It answers `POST /v1/chat/completions` with the real response shape (`id`,
 * `object: chat.completion`, `choices[].message`, `usage`), checks the request as the real API
 * does (model, messages, response_format, tools and tool messages), records every request, and
 * lets a test decide each answer (or script a queue of them, tool calls included), make the next
 * ones fail, or refuse `tools` as servers without tool calling do.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A chat-completions request as the fake received it. */
export interface ChatRequest {
  model: string;
  messages: {
    role: string;
    content: string | null;
    tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
    tool_call_id?: string;
  }[];
  tools?: {
    type: string;
    function?: { name?: string; description?: string; parameters?: unknown };
  }[];
  tool_choice?: unknown;
  temperature?: number;
  max_tokens?: number;
  response_format?: {
    type: 'json_schema' | 'json_object' | 'text';
    json_schema?: { name: string; schema: Record<string, unknown>; strict?: boolean };
  };
}

/** A tool call the fake answers with; object arguments are sent as their JSON text. */
export interface FakeToolCall {
  name: string;
  arguments: string | Record<string, unknown>;
  id?: string;
}

/**
 * What the fake answers: the assistant's text (after `delayMs`, for slow models), tool calls
 * (with optional text), or an HTTP error.
 */
export type FakeAnswer =
  | { content: string; delayMs?: number }
  | { toolCalls: FakeToolCall[]; content?: string; delayMs?: number }
  | { status: number; message: string; retryAfter?: number };

/** A running fake. */
export interface FakeOpenAi {
  /** `http://127.0.0.1:PORT/v1`, the base URL clients take. */
  baseUrl: string;
  /** Every request received, in order, with its headers. */
  requests: { body: ChatRequest; headers: IncomingHttpHeaders }[];
  /** Decides the answer to each valid request that no scripted answer is left for. */
  respond: (request: ChatRequest) => FakeAnswer;
  /** Queues answers given to the next valid requests, in order, before `respond` is asked. */
  script(...answers: FakeAnswer[]): void;
  /** Answers 400 "does not support tools" to any request with `tools`, as Ollama does. */
  refuseTools: boolean;
  /** The next `count` valid requests fail with `status` first. */
  failNext(count: number, status: number): void;
  /**
   * The model's context window in tokens (4 characters each, as the engine estimates): longer
   * requests are refused with 400 `context_length_exceeded`, as OpenAI and vLLM refuse them.
   */
  contextTokens: number | undefined;
  close(): Promise<void>;
}

/** The request's tools and tool messages as OpenAI checks them; the error message, or undefined. */
function checkTools(body: ChatRequest): string | undefined {
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools) || body.tools.length === 0)
      return "Invalid 'tools': empty array. Expected an array with minimum length 1.";
    for (const [index, tool] of body.tools.entries()) {
      if (tool.type !== 'function')
        return `Invalid value for 'tools[${index}].type': '${String(tool.type)}'.`;
      if (!/^[a-zA-Z0-9_-]{1,64}$/.test(tool.function?.name ?? ''))
        return `Invalid 'tools[${index}].function.name': string does not match pattern.`;
    }
  }
  if (body.tool_choice !== undefined && body.tools === undefined)
    return "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.";
  // Every tool message answers a call of the assistant message before it.
  const open = new Set<string>();
  for (const message of body.messages) {
    if (message.role === 'assistant') {
      open.clear();
      for (const call of message.tool_calls ?? []) open.add(call.id);
    } else if (message.role === 'tool') {
      if (!message.tool_call_id || !open.has(message.tool_call_id))
        return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
    } else if (typeof message.content !== 'string')
      return `Invalid type for 'messages.content': expected a string, but got ${typeof message.content}.`;
  }
  return undefined;
}

/** Starts the fake; answers `{}` as JSON until `respond` is set. */
export async function startFakeOpenAi(): Promise<FakeOpenAi> {
  let failures: { count: number; status: number } = { count: 0, status: 500 };
  const scripted: FakeAnswer[] = [];
  const fake: FakeOpenAi = {
    baseUrl: '',
    requests: [],
    respond: () => ({ content: '{}' }),
    script(...answers) {
      scripted.push(...answers);
    },
    refuseTools: false,
    failNext(count, status) {
      failures = { count, status };
    },
    contextTokens: undefined,
    close: () => Promise.resolve(),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const error = (
        status: number,
        message: string,
        headers: Record<string, string> = {},
        code: string | null = null,
      ) =>
        res
          .writeHead(status, { 'content-type': 'application/json', ...headers })
          .end(JSON.stringify({ error: { message, type: 'invalid_request_error', code } }));
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions')
        return error(404, `Unknown request URL: ${req.method} ${req.url}`);
      let body: ChatRequest;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
      } catch {
        return error(400, 'We could not parse the JSON body of your request.');
      }
      if (typeof body.model !== 'string' || body.model === '')
        return error(400, 'you must provide a model parameter');
      if (!Array.isArray(body.messages) || body.messages.length === 0)
        return error(400, "Invalid 'messages': empty array.");
      const format = body.response_format;
      if (
        format?.type === 'json_schema' &&
        (!format.json_schema?.name || !format.json_schema.schema)
      )
        return error(400, "Missing required parameter: 'response_format.json_schema'.");
      if (format !== undefined && !['json_schema', 'json_object', 'text'].includes(format.type))
        return error(400, `Invalid value for 'response_format.type': '${String(format.type)}'.`);
      const toolsError = checkTools(body);
      if (toolsError) return error(400, toolsError);
      if (body.tools && fake.refuseTools)
        return error(400, `registry.ollama.ai/library/${body.model} does not support tools`);
      // OpenAI's own rule for JSON mode, which catches prompts that never ask for JSON.
      if (
        format?.type === 'json_object' &&
        !body.messages.some((message) => /json/i.test(message.content ?? ''))
      )
        return error(
          400,
          "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
        );
      fake.requests.push({ body, headers: req.headers });
      const promptTokens = Math.ceil(
        body.messages.reduce((sum, message) => sum + (message.content ?? '').length, 0) / 4,
      );
      if (fake.contextTokens !== undefined && promptTokens > fake.contextTokens)
        return error(
          400,
          `This model's maximum context length is ${fake.contextTokens} tokens. However, your messages resulted in ${promptTokens} tokens. Please reduce the length of the messages.`,
          {},
          'context_length_exceeded',
        );
      if (failures.count > 0) {
        failures.count -= 1;
        return error(failures.status, 'The server had an error while processing your request.');
      }
      const answer = scripted.shift() ?? fake.respond(body);
      if ('status' in answer)
        return error(
          answer.status,
          answer.message,
          answer.retryAfter ? { 'retry-after': String(answer.retryAfter) } : {},
        );
      const content = answer.content ?? null;
      const toolCalls =
        'toolCalls' in answer
          ? answer.toolCalls.map((call) => ({
              id: call.id ?? `call_${crypto.randomUUID().slice(0, 8)}`,
              type: 'function',
              function: {
                name: call.name,
                arguments:
                  typeof call.arguments === 'string'
                    ? call.arguments
                    : JSON.stringify(call.arguments),
              },
            }))
          : undefined;
      const completionTokens = Math.ceil(
        ((content ?? '').length + (toolCalls ? JSON.stringify(toolCalls).length : 0)) / 4,
      );
      const send = () =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id: `chatcmpl-${crypto.randomUUID()}`,
            object: 'chat.completion',
            created: Math.floor(Date.now() / 1000),
            model: body.model,
            choices: [
              {
                index: 0,
                message: {
                  role: 'assistant',
                  content,
                  refusal: null,
                  ...(toolCalls ? { tool_calls: toolCalls } : {}),
                },
                finish_reason: toolCalls ? 'tool_calls' : 'stop',
              },
            ],
            usage: {
              prompt_tokens: promptTokens,
              completion_tokens: completionTokens,
              total_tokens: promptTokens + completionTokens,
            },
          }),
        );
      // A slow model: the answer comes late, bounded by the test's delay (closing ends it).
      if (answer.delayMs) {
        const timer = setTimeout(send, answer.delayMs);
        res.on('close', () => clearTimeout(timer));
      } else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  fake.close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return fake;
}
