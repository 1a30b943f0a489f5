/**
 * JSON extraction from page markdown with an LlmProvider: what the `json` format and
 * `changeTracking`'s json mode ask of a page (a schema, a prompt, or both).
 */
import type { LlmProvider } from '../interfaces/llm-provider.ts';
import { FetchError } from '../errors.ts';

/** What to extract. */
export interface JsonExtraction {
  /** JSON Schema of the answer. */
  schema?: Record<string, unknown>;
  /** What to extract, in words. */
  prompt?: string;
}

/** Most characters of markdown a model is shown. */
const maxMarkdownChars = 60_000;

/**
 * Extracts JSON from `markdown`. @throws FETCH_FAILED when the model fails or its answer is not
 * a JSON object.
 */
export async function extractJson(
  llm: LlmProvider,
  markdown: string,
  extraction: JsonExtraction,
  signal?: AbortSignal,
): Promise<Record<string, unknown>> {
  const schema = extraction.schema ?? { type: 'object', additionalProperties: true };
  const response = await llm.complete({
    messages: [
      {
        role: 'system',
        content:
          'Extract structured data from the web page the user gives, as JSON matching the schema. ' +
          'Use only facts on the page; use null where the page says nothing.',
      },
      {
        role: 'user',
        content: `${extraction.prompt ? `Instructions: ${extraction.prompt}\n` : ''}Page (markdown):\n${markdown.slice(0, maxMarkdownChars)}`,
      },
    ],
    jsonSchema: { name: 'extraction', schema },
    temperature: 0,
    ...(signal ? { signal } : {}),
  });
  const json = response.json;
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new FetchError(`The model ${llm.model} did not answer with a JSON object`);
  return json as Record<string, unknown>;
}
