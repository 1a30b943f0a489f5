/**
 * `{ type: 'highlights', query }` → `doc.highlights`: the passages of the page most
 * relevant to the query, best first, separated by blank lines. BM25 finds them with no model, so
 * a self-hoster without an LLM still gets the format; with one configured, the model re-ranks
 * BM25's candidates and drops those that do not bear on the query.
 */
import { z } from 'zod';
import type { FormatHandler } from './index.ts';
import { maxPromptChars, readSettings, warnOf } from './llm-settings.ts';
import { rankPassages } from './passages.ts';

const settingsSchema = z.object({ query: z.string().trim().min(1).max(maxPromptChars) });

/** Passages returned. */
const kept = 3;
/** BM25 candidates a model re-ranks. */
const candidates = 8;

const rerankSchema = {
  type: 'object',
  properties: { relevant: { type: 'array', items: { type: 'integer', minimum: 0 } } },
  required: ['relevant'],
};

export const highlightsFormat: FormatHandler = {
  ensureAvailable(format, services) {
    readSettings(settingsSchema, format, services.path);
  },
  apply(page, document, format) {
    const { query } = settingsSchema.parse(format);
    document.highlights = rankPassages(page.markdown, query)
      .slice(0, kept)
      .map((passage) => passage.text)
      .join('\n\n');
  },
  async enrich({ text, runner, warnings }, document, format) {
    if (!runner) return;
    const { query } = settingsSchema.parse(format);
    const ranked = rankPassages(text, query).slice(0, candidates);
    if (ranked.length < 2) return;
    try {
      const numbered = ranked.map((passage, index) => `[${index}] ${passage.text}`).join('\n\n');
      const answer = await runner.ask(
        {
          name: 'highlights',
          instruction: `The page is given as numbered passages. List the numbers of the passages relevant to the query "${query}", most relevant first; leave out passages that do not bear on it.`,
          schema: rerankSchema,
        },
        numbered,
      );
      warnings.push(...answer.warnings);
      const order = (answer.json as { relevant?: unknown } | undefined)?.relevant;
      if (!Array.isArray(order)) return;
      const picked = [...new Set(order)]
        .filter((index): index is number => typeof index === 'number')
        .map((index) => ranked[index]?.text)
        .filter((passage): passage is string => passage !== undefined);
      if (picked.length > 0) document.highlights = picked.slice(0, kept).join('\n\n');
    } catch (error) {
      warnings.push(warnOf('highlights', error));
    }
  },
};
