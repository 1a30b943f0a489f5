/**
 * OpenAiLlmProvider's tool calls on the wire, against the fake OpenAI-compatible server: the
 * native request (function tools, tool_choice, an assistant message with tool_calls and the role
 * `tool` answer naming its call), and when it falls back to a JSON-action prompt.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LlmTool } from '@trawl/core';
import { OpenAiLlmProvider } from '@trawl/adapters';
import { readJsonAction, readToolCalls } from '../../src/llm/openai-tools.js';
import { startFakeOpenAi, type FakeOpenAi } from '../../../../test/fakes/openai-server.ts';

let fake: FakeOpenAi;
beforeAll(async () => {
  fake = await startFakeOpenAi();
});
beforeEach(() => {
  fake.requests.length = 0;
  fake.refuseTools = false;
  fake.respond = () => ({ content: 'done' });
});
afterAll(() => fake.close());

const tools: LlmTool[] = [
  {
    name: 'scrape',
    description: 'Reads one page as markdown.',
    parameters: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] },
  },
];
const user = { role: 'user' as const, content: 'Read https://a.example/' };

describe('OpenAiLlmProvider tool calls', () => {
  it('sends function tools and tool_choice, and the tool result as a role tool message naming its call', async () => {
    fake.script({
      toolCalls: [{ id: 'call_1', name: 'scrape', arguments: { url: 'https://a.example/' } }],
    });
    const llm = new OpenAiLlmProvider({ baseUrl: fake.baseUrl, model: 'm' });
    const first = await llm.completeWithTools({
      messages: [user],
      tools,
      toolChoice: { name: 'scrape' },
    });
    expect(first.toolCalls).toEqual([
      {
        id: 'call_1',
        name: 'scrape',
        argumentsText: '{"url":"https://a.example/"}',
        arguments: { url: 'https://a.example/' },
      },
    ]);
    expect(fake.requests[0]?.body).toMatchObject({
      tools: [
        {
          type: 'function',
          function: {
            name: 'scrape',
            description: tools[0]?.description,
            parameters: tools[0]?.parameters,
          },
        },
      ],
      tool_choice: { type: 'function', function: { name: 'scrape' } },
    });
    await llm.completeWithTools({
      messages: [
        user,
        { role: 'assistant', content: '', toolCalls: first.toolCalls },
        { role: 'tool', toolCallId: 'call_1', name: 'scrape', content: '# Page A' },
      ],
      tools,
    });
    expect(fake.requests[1]?.body.tool_choice).toBe('auto');
    expect(fake.requests[1]?.body.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'scrape', arguments: '{"url":"https://a.example/"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '# Page A' },
    ]);
  });

  it('falls back to a JSON-action prompt once the endpoint refuses tools, and stays there', async () => {
    fake.refuseTools = true;
    fake.script({ content: '{"tool": "scrape", "arguments": {"url": "https://a.example/"}}' });
    const llm = new OpenAiLlmProvider({ baseUrl: fake.baseUrl, model: 'gemma' });
    const answer = await llm.completeWithTools({ messages: [user], tools });
    expect(answer).toMatchObject({
      mode: 'json-action',
      text: '',
      toolCalls: [{ name: 'scrape', arguments: { url: 'https://a.example/' } }],
    });
    const [sent] = fake.requests;
    expect(sent?.body.tools).toBeUndefined();
    expect(sent?.body.messages[0]?.role).toBe('system');
    expect(sent?.body.messages[0]?.content).toContain('"tool"');
    expect(sent?.body.messages[0]?.content).toContain('scrape: Reads one page as markdown.');

    // Remembered: the next call does not offer tools again, even to an endpoint that now would.
    fake.refuseTools = false;
    fake.script({ content: 'The page says hello.' });
    const next = await llm.completeWithTools({
      messages: [
        user,
        { role: 'assistant', content: '', toolCalls: answer.toolCalls },
        {
          role: 'tool',
          toolCallId: answer.toolCalls[0]?.id ?? '',
          name: 'scrape',
          content: 'hello',
        },
      ],
      tools,
    });
    expect(next).toMatchObject({
      mode: 'json-action',
      text: 'The page says hello.',
      toolCalls: [],
    });
    expect(fake.requests[1]?.body.tools).toBeUndefined();
    expect(fake.requests[1]?.body.messages.slice(2)).toEqual([
      {
        role: 'assistant',
        content: '{"tool": "scrape", "arguments": {"url":"https://a.example/"}}',
      },
      { role: 'user', content: 'Result of the tool "scrape":\nhello' },
    ]);
  });

  it('fails with FETCH_FAILED instead of falling back when configured for native tools only', async () => {
    fake.refuseTools = true;
    const llm = new OpenAiLlmProvider({
      baseUrl: fake.baseUrl,
      model: 'gemma',
      toolCalls: 'native',
    });
    await expect(llm.completeWithTools({ messages: [user], tools })).rejects.toMatchObject({
      code: 'FETCH_FAILED',
      message: expect.stringContaining('does not support tools') as unknown,
    });
    expect(fake.requests).toHaveLength(0);
  });

  it('does not fall back on an error that is not about tools', async () => {
    fake.script({ status: 400, message: "Invalid value for 'temperature'" });
    const llm = new OpenAiLlmProvider({ baseUrl: fake.baseUrl, model: 'm' });
    await expect(llm.completeWithTools({ messages: [user], tools })).rejects.toMatchObject({
      code: 'FETCH_FAILED',
    });
    expect((await llm.completeWithTools({ messages: [user], tools })).mode).toBe('native');
  });

  it('tells a JSON-action model it must call the named tool when toolChoice names one', async () => {
    const llm = new OpenAiLlmProvider({
      baseUrl: fake.baseUrl,
      model: 'm',
      toolCalls: 'json-action',
    });
    await llm.completeWithTools({
      messages: [{ role: 'system', content: 'You read pages.' }, user],
      tools,
      toolChoice: { name: 'scrape' },
    });
    const messages = fake.requests[0]?.body.messages ?? [];
    // One system message: the caller's, with the tools after it.
    expect(messages.filter((message) => message.role === 'system')).toHaveLength(1);
    expect(messages[0]?.content).toMatch(/^You read pages\.\n\n/);
    expect(messages[0]?.content).toContain('You must use the tool "scrape" now');
  });

  it('reads a JSON action that a small model wrapped in prose, and leaves plain prose as text', () => {
    expect(
      readJsonAction('Sure, I will read it.\n{"tool": "scrape", "arguments": {"url": "u"}}\nDone.'),
    ).toMatchObject([{ name: 'scrape', arguments: { url: 'u' } }]);
    expect(readJsonAction('The price is {12} EUR.')).toEqual([]);
    expect(readJsonAction('{"answer": 12}')).toEqual([]);
  });

  it('reads native arguments sent as an object or as empty text', () => {
    const [object, empty] = readToolCalls([
      { id: 'a', function: { name: 'scrape', arguments: { url: 'u' } } },
      { id: 'b', function: { name: 'finish', arguments: '' } },
    ]);
    expect(object).toMatchObject({ argumentsText: '{"url":"u"}', arguments: { url: 'u' } });
    expect(empty?.arguments).toEqual({});
  });
});
