/**
 * Crawl `prompt`: a sentence ("only the blog posts from 2024, at most 50") turned
 * into crawl options by one LLM call with a JSON Schema of the options. Options the caller set
 * explicitly win; what the model proposes is checked by the crawl options schema, and anything
 * that does not pass is left out with a warning rather than failing the crawl.
 */
import { resolveEngineConfig, type EngineContext } from '../config.ts';
import { NotConfiguredError } from '../errors.ts';
import { LlmRunner } from '../llm/runner.ts';
import { crawlOptionsSchema, type CrawlOptions } from './options.ts';

/** The options a prompt may set. */
const promptSchema = {
  type: 'object',
  properties: {
    includePaths: { type: 'array', items: { type: 'string' } },
    excludePaths: { type: 'array', items: { type: 'string' } },
    limit: { type: ['integer', 'null'], minimum: 1 },
    maxDiscoveryDepth: { type: ['integer', 'null'], minimum: 0 },
    sitemap: { enum: ['skip', 'include', 'only', null] },
    crawlEntireDomain: { type: ['boolean', 'null'] },
    allowSubdomains: { type: ['boolean', 'null'] },
    allowExternalLinks: { type: ['boolean', 'null'] },
  },
  required: ['includePaths', 'excludePaths'],
};

const instruction =
  'The page is a request, in words, for how to crawl the web site at the start URL below. Turn it ' +
  'into crawl options: includePaths and excludePaths are regular expressions matched against URL ' +
  'paths (for example "^/blog/.*"); limit is the most pages; maxDiscoveryDepth how many links deep; ' +
  'sitemap skip, include or only; null (or an empty list) where the request says nothing.';

/** What a prompt turned into. */
export interface PromptOptions {
  /** The options the model proposed that were applied (explicit options left out). */
  options: Partial<CrawlOptions>;
  warnings: string[];
}

/**
 * Turns `prompt` into crawl options for `url`; keys in `explicit` are never overridden.
 * @throws NOT_CONFIGURED without a model; FETCH_FAILED when the model cannot be reached
 */
export async function crawlOptionsFromPrompt(
  prompt: string,
  url: string,
  explicit: Readonly<Record<string, unknown>>,
  context: EngineContext,
): Promise<PromptOptions> {
  if (!context.llm)
    throw new NotConfiguredError(
      'Turning a crawl prompt into options needs an LLM provider, and none is configured: set llmBaseUrl and llmModel.',
    );
  const config = context.config ?? resolveEngineConfig();
  const runner = new LlmRunner({
    llm: context.llm,
    store: context.store,
    contextTokens: config.llmContextTokens,
    maxChunks: 1,
    signal: context.signal,
    onUsage: context.onLlmUsage,
  });
  const answer = await runner.ask(
    {
      name: 'crawl_options',
      instruction: `${instruction} Start URL: ${url}`,
      schema: promptSchema,
    },
    prompt,
  );
  const warnings = [...answer.warnings];
  const options: Record<string, unknown> = {};
  for (const [key, value] of Object.entries((answer.json ?? {}) as Record<string, unknown>)) {
    if (key in explicit || value === null || value === undefined) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    if (!(key in promptSchema.properties)) continue;
    // Each proposal is checked on its own, so one bad regex does not lose the rest.
    const checked = crawlOptionsSchema.safeParse({ [key]: value });
    if (checked.success) options[key] = value;
    else
      warnings.push(
        `The prompt's ${key} was left out: ${checked.error.issues[0]?.message ?? 'invalid'}`,
      );
  }
  return { options: options, warnings };
}
