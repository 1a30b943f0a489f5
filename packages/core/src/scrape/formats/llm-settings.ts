/**
 * What the LLM formats share: reading a format's own settings with zod, and the
 * NOT_CONFIGURED refusal that names the settings to set, so a server without a model never
 * answers with a silently missing field.
 */
import type { z } from 'zod';
import { NotConfiguredError, ValidationError } from '../../errors.ts';
import { zodIssuesToFieldIssues } from '../../internal/zod.ts';
import type { LlmRunner, RunnerAnswer } from '../../llm/runner.ts';
import type { FormatSpec } from '../options.ts';
import type { FormatServices } from './index.ts';

/** Longest prompt, question or query a format takes, in characters. */
export const maxPromptChars = 10_000;

/**
 * Reads a format entry's settings. @throws BAD_REQUEST naming the field
 */
export function readSettings<S extends z.ZodType>(
  schema: S,
  format: FormatSpec,
  path: readonly (string | number)[],
): z.output<S> {
  const parsed = schema.safeParse(format);
  if (parsed.success) return parsed.data;
  const issues = zodIssuesToFieldIssues(parsed.error.issues).map((issue) => ({
    ...issue,
    path: [...path, ...issue.path],
  }));
  const first = issues[0];
  throw new ValidationError(
    `Invalid '${format.type}' format at '${first?.path.join('.') ?? path.join('.')}': ${first?.message ?? 'invalid'}`,
    { details: issues },
  );
}

/** @throws NOT_CONFIGURED when no model is configured */
export function requireLlm(format: string, services: FormatServices): void {
  if (services.hasLlm) return;
  throw new NotConfiguredError(
    `The '${format}' format needs an LLM provider, and none is configured: set llmBaseUrl and llmModel (any OpenAI-compatible endpoint, such as Ollama or vLLM), or pass an LlmProvider as context.llm; else remove it from formats.`,
    { details: [{ path: services.path, message: `format '${format}' needs an LLM` }] },
  );
}

/** Turns a model failure into a warning: the rest of the page is still returned. */
export function warnOf(format: string, error: unknown): string {
  return `The '${format}' format could not be produced: ${(error as Error).message}`;
}

/**
 * Asks the model for the page's data as JSON (the json format, and changeTracking's json mode):
 * the schema when one is given, else any object, steered by the prompt when there is one.
 */
export function askForJson(
  runner: LlmRunner,
  text: string,
  settings: { schema?: Record<string, unknown> | undefined; prompt?: string | undefined },
): Promise<RunnerAnswer> {
  return runner.ask(
    {
      name: 'extraction',
      instruction: settings.prompt
        ? `Extract data from the page as JSON. ${settings.prompt}`
        : 'Extract the main facts of the page as JSON matching the schema.',
      schema: settings.schema ?? { type: 'object' },
    },
    text,
  );
}
