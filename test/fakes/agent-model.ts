/**
 * Reading an agent's conversation from the requests the fake OpenAI server receives, so a test
 * can script a model that acts on what the tools really returned: the results of each
 * tool so far, the step number, and whether the engine is forcing `finish`.
 */
import type { ChatRequest, FakeAnswer, FakeToolCall } from './openai-server.ts';

/** One tool result in the conversation. */
export interface SeenResult {
  tool: string;
  arguments: Record<string, unknown>;
  content: string;
}

/** Arguments as the model wrote them, or {} when they are not JSON. */
function parsedOrEmpty(text: string): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** The tool results of a request's conversation, in order. */
export function resultsOf(request: ChatRequest): SeenResult[] {
  const calls = new Map<string, { name: string; arguments: string }>();
  const results: SeenResult[] = [];
  let lastAction: Record<string, unknown> = {};
  for (const message of request.messages) {
    for (const call of message.tool_calls ?? []) calls.set(call.id, call.function);
    // Without native tool calling: the call is the assistant's JSON, its result a user message.
    if (message.role === 'assistant' && !message.tool_calls)
      lastAction = (parsedOrEmpty(message.content ?? '')['arguments'] ?? {}) as Record<
        string,
        unknown
      >;
    const asText = /^Result of the tool "([\w-]+)":\n([\s\S]*)$/.exec(
      message.role === 'user' ? (message.content ?? '') : '',
    );
    if (asText) results.push({ tool: asText[1]!, arguments: lastAction, content: asText[2]! });
    if (message.role === 'tool' && message.tool_call_id) {
      const call = calls.get(message.tool_call_id);
      results.push({
        tool: call?.name ?? '?',
        arguments: parsedOrEmpty(call?.arguments ?? ''),
        content: message.content ?? '',
      });
    }
  }
  return results;
}

/** Model answers so far in the conversation (the step about to be taken is this plus one). */
export const stepsSoFar = (request: ChatRequest) =>
  request.messages.filter((message) => message.role === 'assistant').length;

/** Whether the engine offers only `finish` (a budget is spent). */
export const mustFinish = (request: ChatRequest) =>
  (request.tools ?? []).length === 1 && request.tools?.[0]?.function?.name === 'finish';

/** An answer calling tools. */
export const call = (...calls: FakeToolCall[]): FakeAnswer => ({ toolCalls: calls });

/** An answer calling one tool. */
export const use = (name: string, args: Record<string, unknown> | string): FakeAnswer => ({
  toolCalls: [{ name, arguments: args }],
});

/** A schema of products with a source per product. */
export const productsSchema = {
  type: 'object',
  properties: {
    products: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          price: { type: 'number' },
          source: { type: 'string' },
        },
        required: ['name', 'price', 'source'],
      },
    },
  },
  required: ['products'],
};

/** What a page's scrape result says: its URL, its heading and its first price with pence. */
export function factsOf(content: string) {
  const url = /^URL: (.+)$/m.exec(content)?.[1] ?? '';
  const name = /^# (.+)$/m.exec(content)?.[1] ?? '';
  const price = Number(/[$£€]\s?(\d+\.\d{2})/.exec(content)?.[1] ?? NaN);
  return { name, price, source: url };
}

/** The fixture shop's pages a shopper reads. */
export const shopPages = ['trail-runner', 'cast-iron-skillet', 'linen-shirt'];

/**
 * A model that searches for a trail shoe, maps the shop the result is in, reads three of its
 * pages (in one step) and answers with the name, price and URL of each, as read.
 */
export function shopper(request: ChatRequest): FakeAnswer {
  const results = resultsOf(request);
  const last = results.at(-1);
  if (!last) return use('search', { query: 'trail running shoe' });
  if (last.tool === 'search') {
    const hit = /(http:\/\/[^\s]+\/shop\/[^\s]+\.html)/.exec(last.content)?.[1];
    // Nothing found (an empty index): the honest answer is an empty list.
    if (!hit) return use('finish', { answer: { products: [] } });
    return use('map', { url: new URL('/shop/', hit).href, limit: 20 });
  }
  if (last.tool === 'map') {
    const urls = last.content.match(/http:\/\/\S+\/shop\/[a-z-]+\.html/g) ?? [];
    return call(
      ...urls
        .filter((url) => shopPages.some((name) => url.includes(name)))
        .map((url) => ({ name: 'scrape', arguments: { url } })),
    );
  }
  const pages = results.filter(
    (result) => result.tool === 'scrape' && result.content.startsWith('URL:'),
  );
  return use('finish', { answer: { products: pages.map((page) => factsOf(page.content)) } });
}

/**
 * The same model for an endpoint without tool calling: its first call written as the JSON
 * action the engine's prompt asks for.
 */
export function asJsonAction(answer: FakeAnswer): FakeAnswer {
  if (!('toolCalls' in answer)) return answer;
  const [first] = answer.toolCalls;
  return { content: JSON.stringify({ tool: first?.name, arguments: first?.arguments }) };
}
