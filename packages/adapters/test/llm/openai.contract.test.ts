/**
 * OpenAiLlmProvider runs the LlmProvider contract against the fake OpenAI-compatible server in
 * each configuration that changes the wire: strict json_schema with native tools, json_object
 * with tools configured off (JSON actions), and an endpoint that refuses `tools` (the provider
 * falls back to JSON actions by itself).
 */
import { OpenAiLlmProvider, type OpenAiLlmProviderOptions } from '@trawl/adapters';
import {
  describeLlmProviderContract,
  type LlmProviderFixture,
  type ScriptedAnswer,
} from '../../../../test/contracts/llm-provider.contract.ts';
import { startFakeOpenAi, type FakeAnswer } from '../../../../test/fakes/openai-server.ts';

const retries = 2;
const timeoutMs = 1_500;

/** The fake's answer for a scripted one; a model without tools writes its call as JSON text. */
function toFake(answer: ScriptedAnswer, jsonActions: boolean): FakeAnswer {
  if ('status' in answer) return answer;
  if ('text' in answer)
    return { content: answer.text, ...(answer.delayMs ? { delayMs: answer.delayMs } : {}) };
  if (!jsonActions) return { toolCalls: answer.toolCalls };
  return {
    content: answer.toolCalls
      .map(
        (call) =>
          `{"tool": ${JSON.stringify(call.name)}, "arguments": ${typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments)}}`,
      )
      .join('\n'),
  };
}

async function fixtureOf(
  options: Partial<OpenAiLlmProviderOptions>,
  toolMode: 'native' | 'json-action',
  refuseTools = false,
): Promise<LlmProviderFixture> {
  const fake = await startFakeOpenAi();
  fake.refuseTools = refuseTools;
  return {
    provider: new OpenAiLlmProvider({
      baseUrl: fake.baseUrl,
      model: 'contract-model',
      retries,
      retryBaseMs: 10,
      timeoutMs,
      ...options,
    }),
    script: (...answers) =>
      fake.script(...answers.map((answer) => toFake(answer, toolMode === 'json-action'))),
    requests: () => fake.requests.length,
    retries,
    timeoutMs,
    toolMode,
    close: () => fake.close(),
  };
}

describeLlmProviderContract('OpenAiLlmProvider (json_schema, native tools)', () =>
  fixtureOf({ jsonMode: 'json_schema', toolCalls: 'native' }, 'native'),
);
describeLlmProviderContract('OpenAiLlmProvider (json_object, JSON actions)', () =>
  fixtureOf({ jsonMode: 'json_object', toolCalls: 'json-action' }, 'json-action'),
);
describeLlmProviderContract('OpenAiLlmProvider (endpoint refuses tools)', () =>
  fixtureOf({ toolCalls: 'auto' }, 'json-action', true),
);
