/**
 * `summary` → `doc.summary`: a short summary of the main content. A page longer than
 * the model's context is summarised chunk by chunk, and the chunk summaries once more.
 */
import type { FormatHandler } from './index.ts';
import { requireLlm, warnOf } from './llm-settings.ts';

const schema = {
  type: 'object',
  properties: { summary: { type: 'string' } },
  required: ['summary'],
};

const instruction =
  'Summarise the page in a few sentences (at most about 120 words), in the language of the page.';

const summaryOf = (json: unknown) => (json as { summary?: unknown } | undefined)?.summary;

export const summaryFormat: FormatHandler = {
  ensureAvailable(_format, services) {
    requireLlm('summary', services);
  },
  async enrich({ text, runner, warnings }, document) {
    if (!runner) return;
    try {
      const answer = await runner.ask({ name: 'summary', instruction, schema }, text);
      warnings.push(...answer.warnings);
      let summary = summaryOf(answer.json);
      const parts = answer.parts.map(summaryOf).filter((part) => typeof part === 'string');
      if (parts.length > 1) {
        // Merging keeps the first chunk's scalar: a long page needs its parts summarised again.
        const combined = await runner.ask(
          {
            name: 'summary',
            instruction: `${instruction} The page is given as the summaries of its consecutive parts.`,
            schema,
          },
          parts.join('\n\n'),
        );
        warnings.push(...combined.warnings);
        summary = summaryOf(combined.json) ?? summary;
      }
      if (typeof summary === 'string') document.summary = summary;
    } catch (error) {
      warnings.push(warnOf('summary', error));
    }
  },
};
