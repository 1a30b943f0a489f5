/**
 * `{ type: 'question', question }` → `doc.answer`, and the deprecated `{ type: 'query', prompt,
 * mode }` the SDK still sends: `mode: 'freeform'` answers in words, `'directQuote'`
 * with a passage quoted from the page. Chunks are asked in page order; the first that knows the
 * answer gives it.
 */
import { z } from 'zod';
import type { FormatHandler } from './index.ts';
import { maxPromptChars, readSettings, requireLlm, warnOf } from './llm-settings.ts';

const questionSchema = z.object({ question: z.string().trim().min(1).max(maxPromptChars) });
const querySchema = z.object({
  prompt: z.string().trim().min(1).max(maxPromptChars),
  mode: z.enum(['freeform', 'directQuote']).default('freeform'),
});

const answerSchema = {
  type: 'object',
  properties: { answer: { type: ['string', 'null'] } },
  required: ['answer'],
};

/** Asks and sets `doc.answer`; a page that does not say leaves a warning, not a made-up answer. */
function answerFormat(
  name: 'question' | 'query',
  read: (format: unknown) => { text: string; quote: boolean },
  check: (
    format: Parameters<NonNullable<FormatHandler['ensureAvailable']>>[0],
    path: (string | number)[],
  ) => void,
): FormatHandler {
  return {
    ensureAvailable(format, services) {
      check(format, services.path);
      requireLlm(name, services);
    },
    async enrich({ text, runner, warnings }, document, format) {
      if (!runner) return;
      const { text: question, quote } = read(format);
      try {
        const answer = await runner.ask(
          {
            name: 'answer',
            instruction: quote
              ? `Quote, word for word, the passage of the page that answers: ${question}. Answer null if the page does not answer it.`
              : `Answer this question from the page, briefly: ${question}. Answer null if the page does not answer it.`,
            schema: answerSchema,
          },
          text,
        );
        warnings.push(...answer.warnings);
        const value = (answer.json as { answer?: unknown } | undefined)?.answer;
        if (typeof value === 'string') document.answer = value;
        else warnings.push(`The page does not answer the ${name}.`);
      } catch (error) {
        warnings.push(warnOf(name, error));
      }
    },
  };
}

export const questionFormat = answerFormat(
  'question',
  (format) => ({ text: questionSchema.parse(format).question, quote: false }),
  (format, path) => readSettings(questionSchema, format, path),
);

export const queryFormat = answerFormat(
  'query',
  (format) => {
    const settings = querySchema.parse(format);
    return { text: settings.prompt, quote: settings.mode === 'directQuote' };
  },
  (format, path) => readSettings(querySchema, format, path),
);
