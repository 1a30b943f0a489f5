/**
 * `finish`: the answer. It is validated against the run's `schema`, and every URL in its source
 * fields must be a page the run read or a search result it saw; a wrong answer goes back to the
 * model with what is wrong, so it can fix it on the next step. While wrapping up (a budget is
 * spent) there is no next step: the answer is kept as it is, with warnings.
 */
import { z } from 'zod';
import { compileSchema, describeErrors } from '../../llm/schema.ts';
import { citationKey, uncitedSources } from '../sources.ts';
import type { AgentTool } from './types.ts';

// The answer may be anything the run's schema says; the schema itself checks it.
const args = z.record(z.string(), z.unknown());

/** The answer of a finish call: `answer`, or the arguments themselves when a model leaves out the wrapper. */
export function answerOf(callArgs: Record<string, unknown>): unknown {
  return 'answer' in callArgs ? callArgs['answer'] : callArgs;
}

/** Why an answer is not acceptable, or undefined when it is. */
export function answerProblems(
  answer: unknown,
  schema: Record<string, unknown> | undefined,
  citable: ReadonlySet<string>,
): string | undefined {
  const problems: string[] = [];
  if (schema) {
    const validate = compileSchema(schema, ['schema']);
    if (!validate(answer))
      problems.push(`it does not match the schema: ${describeErrors(validate.errors)}`);
  }
  const keys = new Set([...citable].map(citationKey));
  const uncited = uncitedSources(answer, keys);
  if (uncited.length > 0)
    problems.push(
      `its sources name pages this run never read or found: ${uncited.slice(0, 5).join(', ')}; cite only URLs you read (scrape/extract) or saw in search results`,
    );
  return problems.length ? problems.join('; ') : undefined;
}

export const finishTool: AgentTool<typeof args> = {
  name: 'finish',
  description:
    "Give the final answer and end the run. 'answer' must match the requested JSON Schema; fill every source field with the URL of the page the fact came from.",
  args,
  parameters: (options) => ({
    type: 'object',
    properties: {
      answer: options.schema ?? { type: 'object', description: 'The collected data.' },
    },
    required: ['answer'],
  }),
  run(callArgs, env) {
    const answer = answerOf(callArgs);
    const problem = answerProblems(answer, env.options.schema, env.citable);
    return Promise.resolve(
      problem
        ? {
            ok: false,
            content: `The answer was not accepted: ${problem}. Fix it and call finish again.`,
            summary: `answer refused: ${problem}`,
          }
        : { ok: true, content: 'Answer accepted.', summary: 'answer accepted', finish: { answer } },
    );
  },
};
