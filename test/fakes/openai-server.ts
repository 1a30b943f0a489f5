/**
 * A fake OpenAI-compatible chat-completions server on 127.0.0.1, for the LLM adapter and judging
 * tests (an LLM API is a paid remote service: STYLE.md allows a fake that speaks its wire
 * protocol). It answers `POST /v1/chat/completions` with the real response shape (`id`,
 * `object: chat.completion`, `choices[].message`, `usage`), checks the request as the real API
 * does (model, messages, response_format), records every request, and lets a test decide each
 * answer or make the next ones fail.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A chat-completions request as the fake received it. */
export interface ChatRequest {
  model: string;
  messages: { role: string; content: string }[];
  temperature?: number;
  max_tokens?: number;
  response_format?: {
    type: 'json_schema' | 'json_object' | 'text';
    json_schema?: { name: string; schema: Record<string, unknown>; strict?: boolean };
  };
}

/** What the fake answers: the assistant's text (after `delayMs`, for slow models), or an HTTP error. */
export type FakeAnswer =
  { content: string; delayMs?: number } | { status: number; message: string; retryAfter?: number };

/** A running fake. */
export interface FakeOpenAi {
  /** `http://127.0.0.1:PORT/v1`, the base URL clients take. */
  baseUrl: string;
  /** Every request received, in order, with its headers. */
  requests: { body: ChatRequest; headers: IncomingHttpHeaders }[];
  /** Decides the answer to each valid request. */
  respond: (request: ChatRequest) => FakeAnswer;
  /** The next `count` valid requests fail with `status` first. */
  failNext(count: number, status: number): void;
  /**
   * The model's context window in tokens (4 characters each, as the engine estimates): longer
   * requests are refused with 400 `context_length_exceeded`, as OpenAI and vLLM refuse them.
   */
  contextTokens: number | undefined;
  close(): Promise<void>;
}

/** Starts the fake; answers `{}` as JSON until `respond` is set. */
export async function startFakeOpenAi(): Promise<FakeOpenAi> {
  let failures: { count: number; status: number } = { count: 0, status: 500 };
  const fake: FakeOpenAi = {
    baseUrl: '',
    requests: [],
    respond: () => ({ content: '{}' }),
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
      // OpenAI's own rule for JSON mode, which catches prompts that never ask for JSON.
      if (
        format?.type === 'json_object' &&
        !body.messages.some((message) => /json/i.test(message.content))
      )
        return error(
          400,
          "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
        );
      fake.requests.push({ body, headers: req.headers });
      const promptTokens = Math.ceil(
        body.messages.reduce((sum, message) => sum + message.content.length, 0) / 4,
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
      const answer = fake.respond(body);
      if ('status' in answer)
        return error(
          answer.status,
          answer.message,
          answer.retryAfter ? { 'retry-after': String(answer.retryAfter) } : {},
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
                message: { role: 'assistant', content: answer.content, refusal: null },
                finish_reason: 'stop',
              },
            ],
            usage: {
              prompt_tokens: promptTokens,
              completion_tokens: Math.ceil(answer.content.length / 4),
              total_tokens: promptTokens + Math.ceil(answer.content.length / 4),
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
