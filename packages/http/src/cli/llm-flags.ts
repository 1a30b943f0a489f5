/**
 * The LLM flags of `trawl scrape`: `--json-schema <file>` / `--prompt <text>` (the
 * json format), `--summary`, `--question <text>`; and the model of the CLI, read from the same
 * TRAWL_LLM_* settings the server uses.
 */
import { readFileSync } from 'node:fs';
import { ValidationError, type Document, type LlmProvider, type ScrapeOptions } from '@trawl/core';
import type { TrawlConfig } from '../config.ts';
import { monitorSettingsFrom } from '../server/monitor-settings.ts';

/** parseArgs options of the LLM flags. */
export const llmFlagOptions = {
  'json-schema': { type: 'string' },
  prompt: { type: 'string' },
  summary: { type: 'boolean' },
  question: { type: 'string' },
} as const;

/** Help lines of the LLM flags. */
export const llmFlagsHelp = `  --json-schema <file>   extract JSON matching this JSON Schema file (needs an LLM)
  --prompt <text>        what to extract as JSON, in words (with or without a schema)
  --summary              summarise the page
  --question <text>      answer a question from the page
                         (LLM: TRAWL_LLM_BASE_URL and TRAWL_LLM_MODEL)`;

/** The flags' values as parseArgs gives them. */
export interface LlmFlagValues {
  'json-schema'?: string | undefined;
  prompt?: string | undefined;
  summary?: boolean | undefined;
  question?: string | undefined;
}

/** Reads a JSON file. @throws BAD_REQUEST naming the file */
export function readJsonFile(path: string, flag: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ValidationError(`${flag}: cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new ValidationError(`${flag}: ${path} is not JSON`);
  }
}

/** The formats the flags ask for (none when no LLM flag is given). */
export function llmFormatsFrom(values: LlmFlagValues): NonNullable<ScrapeOptions['formats']> {
  const formats: NonNullable<ScrapeOptions['formats']> = [];
  if (values['json-schema'] !== undefined || values.prompt !== undefined)
    formats.push({
      type: 'json',
      ...(values['json-schema'] !== undefined
        ? { schema: readJsonFile(values['json-schema'], '--json-schema') }
        : {}),
      ...(values.prompt !== undefined ? { prompt: values.prompt } : {}),
    });
  if (values.summary) formats.push('summary');
  if (values.question !== undefined) formats.push({ type: 'question', question: values.question });
  return formats;
}

/** The configured model, if any. @throws BAD_REQUEST for a base URL without a model */
export function llmOf(config: Readonly<TrawlConfig>): LlmProvider | undefined {
  return monitorSettingsFrom(config.server).llm;
}

/** What the LLM formats answered, as printed: the json, then summary, then answer. */
export function llmOutput(document: Document): string {
  const parts: string[] = [];
  if (document.json !== undefined) parts.push(JSON.stringify(document.json, null, 2));
  if (document.summary !== undefined) parts.push(document.summary);
  if (document.answer !== undefined) parts.push(document.answer);
  return `${parts.join('\n\n')}\n`;
}
