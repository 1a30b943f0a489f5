/**
 * A prompt turned into browser actions: the model reads the page as it is now and answers with
 * the actions that carry out the prompt (from the one action vocabulary scrapes and sessions
 * already run) and what it can already say. Running them is the session's job.
 */
import { z } from 'zod';
import type { EngineContext } from '../config.ts';
import { FetchError, NotConfiguredError } from '../errors.ts';
import { actionsSchema, type BrowserAction } from './actions.ts';

/** Most characters of the page's text a model is shown. */
const maxPageChars = 30_000;

/** What the model is asked to answer. */
const planSchema = {
  type: 'object',
  properties: {
    actions: {
      type: 'array',
      description:
        'Browser actions in order. Each is one of: {type:"click",selector}, {type:"write",text} (after clicking the field), {type:"press",key}, {type:"scroll",direction:"down"|"up"}, {type:"wait",milliseconds} or {type:"wait",selector}, {type:"executeJavascript",script} (its return value is reported), {type:"scrape"} (the page HTML after the other actions).',
      items: { type: 'object', additionalProperties: true },
    },
    answer: { type: 'string', description: 'What you can tell the user now, or empty.' },
  },
  required: ['actions', 'answer'],
  additionalProperties: false,
};

/** The model's plan: validated actions and its answer. */
export interface PromptPlan {
  actions: BrowserAction[];
  answer: string;
}

/**
 * Asks the model for the actions that carry out `prompt` on the page at `url` whose visible text
 * is `pageText`. @throws NOT_CONFIGURED without a model; FETCH_FAILED when its answer is not
 * a list of valid actions.
 */
export async function planPromptActions(
  prompt: string,
  page: { url: string; text: string },
  context: Partial<Pick<EngineContext, 'llm' | 'onLlmUsage'>>,
  signal?: AbortSignal,
): Promise<PromptPlan> {
  const { llm } = context;
  if (!llm) {
    throw new NotConfiguredError(
      'Prompt mode needs a model: set llmBaseUrl and llmModel, or send code instead of a prompt',
    );
  }
  const response = await llm.complete({
    messages: [
      {
        role: 'system',
        content:
          'You operate a web browser that has a page open. Carry out the user request with browser actions on that page. ' +
          'Use CSS selectors that exist in the page. When the request only asks about what the page shows, answer it and return no actions.',
      },
      {
        role: 'user',
        content: `Request: ${prompt}\nPage URL: ${page.url}\nPage text:\n${page.text.slice(0, maxPageChars)}`,
      },
    ],
    jsonSchema: { name: 'browser_plan', schema: planSchema },
    temperature: 0,
    ...(signal ? { signal } : {}),
  });
  if (response.usage) context.onLlmUsage?.(response.usage);
  const parsed = z
    .object({ actions: actionsSchema, answer: z.string().default('') })
    .safeParse(response.json);
  if (!parsed.success) {
    throw new FetchError(
      `The model ${llm.model} did not answer with valid browser actions: ${parsed.error.issues[0]?.message ?? 'bad shape'}`,
    );
  }
  return parsed.data;
}
