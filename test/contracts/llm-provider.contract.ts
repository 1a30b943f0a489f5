/**
 * The LlmProvider contract as a test suite: every provider, in every configuration that changes
 * how it talks to its model (JSON mode, native tool calls or JSON actions), runs it against a
 * backend whose answers the test scripts. It pins what the engine relies on: text, parsed JSON
 * and token counts come back; a model that ignores the JSON request is BAD_REQUEST; 429 and 5xx
 * are retried and then FETCH_FAILED; a cancelled or timed-out call ends as FETCH_FAILED; and tool
 * calls round-trip, whatever way the provider offers the tools.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LlmMessage, LlmProvider, LlmTool } from '@trawl/core';

/** An answer of the model, or of its endpoint, that a test scripts. */
export type ScriptedAnswer =
  | { text: string; delayMs?: number }
  | { toolCalls: { name: string; arguments: string | Record<string, unknown> }[] }
  | { status: number; message: string };

/** A provider under test and the backend behind it. */
export interface LlmProviderFixture {
  provider: LlmProvider;
  /** Queues the next answers, one per request the backend receives. */
  script(...answers: ScriptedAnswer[]): void;
  /** How many requests the backend has received. */
  requests(): number;
  /** The provider's retries of a 429 or 5xx (at least 2), and its per-request timeout. */
  retries: number;
  timeoutMs: number;
  /** How `completeWithTools` offers tools in this configuration; absent: no tool calling. */
  toolMode?: 'native' | 'json-action';
  close(): Promise<void>;
}

const schema = {
  type: 'object',
  properties: { price: { type: 'number' } },
  required: ['price'],
  additionalProperties: false,
};

const tools: LlmTool[] = [
  {
    name: 'search',
    description: 'Searches the web index; returns titles and URLs.',
    parameters: {
      type: 'object',
      properties: { query: { type: 'string' } },
      required: ['query'],
    },
  },
  {
    name: 'finish',
    description: 'Ends the task with the answer.',
    parameters: { type: 'object', properties: { answer: { type: 'string' } } },
  },
];

const ask = (content: string): LlmMessage[] => [
  { role: 'system', content: 'You find prices.' },
  { role: 'user', content },
];

/** Polls until `check` holds, for at most `ms`. */
async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  for (const end = Date.now() + ms; !check();) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Registers the contract tests for one LlmProvider configuration. */
export function describeLlmProviderContract(
  name: string,
  make: () => Promise<LlmProviderFixture>,
): void {
  describe(`${name} LLM provider contract`, () => {
    let fixture: LlmProviderFixture;
    let llm: LlmProvider;
    beforeAll(async () => {
      fixture = await make();
      llm = fixture.provider;
    });
    afterAll(() => fixture.close());

    it('names its model', () => {
      expect(llm.model).not.toBe('');
    });

    it('returns the text of a plain completion and the tokens it used', async () => {
      fixture.script({ text: 'Twelve euros.' });
      const answer = await llm.complete({ messages: ask('What does it cost?') });
      expect(answer.text).toBe('Twelve euros.');
      expect(answer.json).toBeUndefined();
      expect(answer.usage?.inputTokens).toBeGreaterThan(0);
      expect(answer.usage?.outputTokens).toBeGreaterThan(0);
    });

    it('parses the answer to a JSON-schema request, fenced or not', async () => {
      fixture.script({ text: '{"price": 12}' }, { text: 'Here:\n```json\n{"price": 13}\n```' });
      const request = {
        messages: ask('What does it cost? Answer in JSON.'),
        jsonSchema: { name: 'price', schema },
      };
      expect((await llm.complete(request)).json).toEqual({ price: 12 });
      expect((await llm.complete(request)).json).toEqual({ price: 13 });
    });

    it('fails an answer that is not JSON with BAD_REQUEST', async () => {
      fixture.script({ text: 'I would rather not say.' });
      await expect(
        llm.complete({ messages: ask('Cost? JSON.'), jsonSchema: { name: 'price', schema } }),
      ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    });

    it('retries a 429 and a 500, then answers', async () => {
      const before = fixture.requests();
      fixture.script(
        { status: 429, message: 'Rate limit reached' },
        { status: 500, message: 'The server had an error' },
        { text: 'ok' },
      );
      expect((await llm.complete({ messages: ask('x') })).text).toBe('ok');
      expect(fixture.requests() - before).toBe(3);
    });

    it('gives up after its retries with FETCH_FAILED naming the status', async () => {
      const before = fixture.requests();
      fixture.script(
        ...Array.from({ length: fixture.retries + 1 }, () => ({
          status: 503,
          message: 'Overloaded',
        })),
      );
      await expect(llm.complete({ messages: ask('x') })).rejects.toMatchObject({
        code: 'FETCH_FAILED',
        message: expect.stringContaining('503') as unknown,
      });
      expect(fixture.requests() - before).toBe(fixture.retries + 1);
    });

    it('does not retry a 400', async () => {
      const before = fixture.requests();
      fixture.script({ status: 400, message: 'Invalid value for temperature' });
      await expect(llm.complete({ messages: ask('x') })).rejects.toMatchObject({
        code: 'FETCH_FAILED',
      });
      expect(fixture.requests() - before).toBe(1);
    });

    it('ends a call the caller aborts with FETCH_FAILED, without waiting for the model', async () => {
      const before = fixture.requests();
      // Far longer than the test's own bound: only the abort can end it in time.
      fixture.script({ text: 'late', delayMs: 60_000 });
      const controller = new AbortController();
      const call = llm.complete({ messages: ask('x'), signal: controller.signal });
      await until(() => fixture.requests() > before, 5_000, 'the request');
      controller.abort();
      await expect(call).rejects.toMatchObject({ code: 'FETCH_FAILED' });
    });

    it('ends a call the model does not answer in time with FETCH_FAILED', async () => {
      fixture.script(
        ...Array.from({ length: fixture.retries + 1 }, () => ({
          text: 'late',
          delayMs: 60_000,
        })),
      );
      await expect(llm.complete({ messages: ask('x') })).rejects.toMatchObject({
        code: 'FETCH_FAILED',
      });
    });

    describe('with tools', () => {
      const withTools = () => {
        if (!llm.completeWithTools) throw new Error(`${name} offers no completeWithTools`);
        return llm.completeWithTools.bind(llm);
      };

      it('offers tool calls exactly when the fixture says it does', () => {
        expect(typeof llm.completeWithTools).toBe(fixture.toolMode ? 'function' : 'undefined');
      });

      it('returns the tool call the model asks for, with an id and parsed arguments', async (context) => {
        if (!fixture.toolMode) return context.skip();
        fixture.script({ toolCalls: [{ name: 'search', arguments: { query: 'tent prices' } }] });
        const answer = await withTools()({ messages: ask('Find tent prices.'), tools });
        expect(answer.mode).toBe(fixture.toolMode);
        expect(answer.text).toBe('');
        expect(answer.toolCalls).toHaveLength(1);
        const [call] = answer.toolCalls;
        expect(call).toMatchObject({ name: 'search', arguments: { query: 'tent prices' } });
        expect(call?.id).not.toBe('');
        expect(JSON.parse(call?.argumentsText ?? '')).toEqual({ query: 'tent prices' });
        expect(answer.usage?.inputTokens).toBeGreaterThan(0);
      });

      it('carries a tool result back to the model and returns its final text', async (context) => {
        if (!fixture.toolMode) return context.skip();
        fixture.script(
          { toolCalls: [{ name: 'search', arguments: { query: 'tents' } }] },
          { text: 'The cheapest tent costs 80 EUR.' },
        );
        const messages = ask('Find the cheapest tent.');
        const first = await withTools()({ messages, tools, toolChoice: 'required' });
        const [call] = first.toolCalls;
        if (!call) throw new Error('no tool call');
        const second = await withTools()({
          messages: [
            ...messages,
            { role: 'assistant', content: first.text, toolCalls: first.toolCalls },
            {
              role: 'tool',
              toolCallId: call.id,
              name: call.name,
              content: 'Tent A: 80 EUR; Tent B: 120 EUR',
            },
          ],
          tools,
        });
        expect(second).toMatchObject({
          text: 'The cheapest tent costs 80 EUR.',
          toolCalls: [],
          mode: fixture.toolMode,
        });
      });

      it('hands a malformed tool call back instead of throwing', async (context) => {
        if (!fixture.toolMode) return context.skip();
        fixture.script({ toolCalls: [{ name: 'search', arguments: '{"query": "tents' }] });
        const answer = await withTools()({ messages: ask('Find tents.'), tools });
        // Natively: a call whose arguments did not parse; as JSON actions: the text as written.
        const [call] = answer.toolCalls;
        if (call) {
          expect(call.arguments).toBeUndefined();
          expect(call.argumentsText).toBe('{"query": "tents');
        } else expect(answer.text).toContain('"query": "tents');
      });

      it('fails with FETCH_FAILED when the endpoint keeps failing', async (context) => {
        if (!fixture.toolMode) return context.skip();
        fixture.script(
          ...Array.from({ length: fixture.retries + 1 }, () => ({
            status: 502,
            message: 'Bad gateway',
          })),
        );
        await expect(withTools()({ messages: ask('x'), tools })).rejects.toMatchObject({
          code: 'FETCH_FAILED',
        });
      });
    });
  });
}
