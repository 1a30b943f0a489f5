/**
 * OpenAiLlmProvider against a fake OpenAI-compatible server that speaks the real wire protocol:
 * the request it sends (model, messages, strict json_schema or json_object, bearer key), the
 * answer it reads (text, JSON, fenced JSON, usage), and its retries.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OpenAiLlmProvider } from '@trawl/adapters';
import { startFakeOpenAi, type FakeOpenAi } from '../../../../test/fakes/openai-server.ts';

let fake: FakeOpenAi;
beforeAll(async () => {
  fake = await startFakeOpenAi();
});
beforeEach(() => {
  fake.requests.length = 0;
  fake.failNext(0, 500);
});
afterAll(() => fake.close());

const schema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };

describe('OpenAiLlmProvider', () => {
  it('sends a chat completion with a strict JSON schema and the key, and parses the JSON answer', async () => {
    fake.respond = () => ({ content: '{"ok":true}' });
    const llm = new OpenAiLlmProvider({
      baseUrl: fake.baseUrl,
      model: 'judge-1',
      apiKey: 'sk-test',
    });
    const answer = await llm.complete({
      messages: [{ role: 'user', content: 'Is it ok?' }],
      jsonSchema: { name: 'verdict', schema },
      temperature: 0,
      maxTokens: 50,
    });
    expect(answer.json).toEqual({ ok: true });
    expect(answer.usage?.inputTokens).toBeGreaterThan(0);
    const [sent] = fake.requests;
    expect(sent?.headers.authorization).toBe('Bearer sk-test');
    expect(sent?.body).toEqual({
      model: 'judge-1',
      messages: [{ role: 'user', content: 'Is it ok?' }],
      temperature: 0,
      max_tokens: 50,
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'verdict', schema, strict: true },
      },
    });
  });

  it('asks for json_object when configured so, sends no key when it has none, and reads fenced JSON', async () => {
    fake.respond = () => ({ content: 'Sure!\n```json\n{"ok": false}\n```' });
    const llm = new OpenAiLlmProvider({
      baseUrl: `${fake.baseUrl}/`,
      model: 'local',
      jsonMode: 'json_object',
    });
    const answer = await llm.complete({
      messages: [{ role: 'user', content: 'x' }],
      jsonSchema: { name: 'v', schema },
    });
    expect(answer.json).toEqual({ ok: false });
    expect(fake.requests[0]?.body.response_format).toEqual({ type: 'json_object' });
    expect(fake.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('returns plain text without a schema', async () => {
    fake.respond = (request) => ({ content: `echo: ${request.messages[0]?.content}` });
    const llm = new OpenAiLlmProvider({ baseUrl: fake.baseUrl, model: 'm' });
    expect(await llm.complete({ messages: [{ role: 'user', content: 'hi' }] })).toMatchObject({
      text: 'echo: hi',
    });
    expect(fake.requests[0]?.body.response_format).toBeUndefined();
  });

  it('retries 500 and 429 answers with backoff, then succeeds', async () => {
    fake.respond = () => ({ content: '{"ok":true}' });
    fake.failNext(2, 500);
    const llm = new OpenAiLlmProvider({
      baseUrl: fake.baseUrl,
      model: 'm',
      retries: 2,
      retryBaseMs: 10,
    });
    const answer = await llm.complete({
      messages: [{ role: 'user', content: 'x' }],
      jsonSchema: { name: 'v', schema },
    });
    expect(answer.json).toEqual({ ok: true });
    expect(fake.requests).toHaveLength(3);
  });

  it('gives up after its retries with FETCH_FAILED naming the status and the server message', async () => {
    fake.failNext(5, 503);
    const llm = new OpenAiLlmProvider({
      baseUrl: fake.baseUrl,
      model: 'm',
      retries: 1,
      retryBaseMs: 10,
    });
    await expect(
      llm.complete({ messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toMatchObject({
      code: 'FETCH_FAILED',
      message: expect.stringMatching(/HTTP 503: The server had an error/) as unknown,
    });
    expect(fake.requests).toHaveLength(2);
  });

  it('does not retry a 400, and fails a non-JSON answer to a JSON request', async () => {
    fake.respond = () => ({ status: 400, message: 'Invalid schema for response_format' });
    const llm = new OpenAiLlmProvider({ baseUrl: fake.baseUrl, model: 'm', retryBaseMs: 10 });
    await expect(
      llm.complete({
        messages: [{ role: 'user', content: 'x' }],
        jsonSchema: { name: 'v', schema },
      }),
    ).rejects.toMatchObject({
      code: 'FETCH_FAILED',
      message: expect.stringContaining('Invalid schema') as unknown,
    });
    expect(fake.requests).toHaveLength(1);
    fake.respond = () => ({ content: 'I cannot answer in JSON.' });
    await expect(
      llm.complete({
        messages: [{ role: 'user', content: 'x' }],
        jsonSchema: { name: 'v', schema },
      }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('fails fast when nothing listens, and refuses a bad base URL or no model', async () => {
    const llm = new OpenAiLlmProvider({ baseUrl: 'http://127.0.0.1:1/v1', model: 'm', retries: 0 });
    await expect(
      llm.complete({ messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toMatchObject({
      code: 'FETCH_FAILED',
      message: expect.stringContaining('could not be reached') as unknown,
    });
    expect(() => new OpenAiLlmProvider({ baseUrl: 'not a url', model: 'm' })).toThrow(/not a URL/);
    expect(() => new OpenAiLlmProvider({ model: '' })).toThrow(/model/);
  });
});
