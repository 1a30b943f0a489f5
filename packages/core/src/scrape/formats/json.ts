/**
 * `{ type: 'json', schema?, prompt? }` → `doc.json`: what the model reads off the
 * page's main content, matching the schema when one is given. The schema is checked before the
 * page is fetched; `checkPromptInjection` adds a check that flags pages which try to instruct
 * the model.
 */
import { z } from 'zod';
import { checkSchema, compileSchema } from '../../llm/schema.ts';
import type { FormatHandler } from './index.ts';
import { askForJson, maxPromptChars, readSettings, requireLlm, warnOf } from './llm-settings.ts';
import { checkInjection } from './prompt-injection.ts';

const settingsSchema = z.object({
  schema: z.record(z.string(), z.unknown()).optional(),
  prompt: z.string().max(maxPromptChars).optional(),
  checkPromptInjection: z.boolean().optional(),
});

export const jsonFormat: FormatHandler = {
  ensureAvailable(format, services) {
    const settings = readSettings(settingsSchema, format, services.path);
    // A bad schema is a 400 first; without a model nothing is compiled: then the 501.
    if (settings.schema) checkSchema(settings.schema, [...services.path, 'schema']);
    requireLlm('json', services);
    if (settings.schema) compileSchema(settings.schema, [...services.path, 'schema']);
  },
  async enrich({ text, runner, warnings }, document, format) {
    if (!runner) return;
    const settings = settingsSchema.parse(format);
    try {
      const answer = await askForJson(runner, text, settings);
      document.json = answer.json ?? null;
      warnings.push(...answer.warnings);
      if (settings.checkPromptInjection) {
        const flagged = await checkInjection(runner, text);
        if (flagged) warnings.push(flagged);
      }
    } catch (error) {
      warnings.push(warnOf('json', error));
    }
  },
};
