/**
 * `extract()`: one JSON answer over many pages (`/v2/extract`). Wildcard URLs are
 * mapped and the pages most relevant to the prompt picked; each page is scraped and asked the
 * same task through the LLM layer; the answers merge (arrays concatenated and de-duplicated,
 * scalars from the first page that has them), and `sources` says which pages gave each field.
 */
import { resolveEngineConfig, type EngineContext } from '../config.ts';
import { NotConfiguredError, TrawlError, ValidationError } from '../errors.ts';
import { parseTargetUrl } from '../internal/url.ts';
import { resolveOptions } from '../internal/resolved.ts';
import { mergeAnswers } from '../llm/merge.ts';
import { LlmRunner } from '../llm/runner.ts';
import { compileSchema, describeErrors } from '../llm/schema.ts';
import { map } from '../map/index.ts';
import { scrape } from '../scrape/index.ts';
import { scrapeOptionsSchema } from '../scrape/options.ts';
import {
  extractOptionsSchema,
  type ExtractOptions,
  type ResolvedExtractOptions,
} from './options.ts';

/** What `extract()` returns. */
export interface ExtractResult {
  /** The merged answer. */
  data: unknown;
  /** Top-level field → URLs of the pages that gave it, when `showSources` was set. */
  sources?: Record<string, string[]>;
  /** URLs skipped as invalid (`ignoreInvalidURLs`). */
  invalidURLs: string[];
  /** Pages read. */
  pages: string[];
  warnings: string[];
}

const anyObject = { type: 'object' };

/**
 * Checks an extract request before any work: options, schema, and that a model is configured.
 * @throws BAD_REQUEST, NOT_CONFIGURED
 */
export function prepareExtract(
  options: ExtractOptions | ResolvedExtractOptions,
  context: EngineContext,
): ResolvedExtractOptions {
  // Options this schema resolved already (a server checked the request) are not parsed again.
  const resolved = resolveOptions(extractOptionsSchema, options, 'extract request');
  if (resolved.schema) compileSchema(resolved.schema, ['schema']);
  if (!context.llm)
    throw new NotConfiguredError(
      'extract needs an LLM and none is configured: set llmBaseUrl and llmModel (any OpenAI-compatible endpoint), or pass an LlmProvider as context.llm.',
    );
  return resolved;
}

/** The pages to read: plain URLs as given, wildcards mapped and ranked by the prompt. */
async function pagesOf(options: ResolvedExtractOptions, context: EngineContext) {
  const pages: string[] = [];
  const invalidURLs: string[] = [];
  const warnings: string[] = [];
  for (const url of options.urls) {
    const wildcard = url.endsWith('/*');
    // `https://site/docs/*` maps from `https://site/docs/`.
    const base = wildcard ? url.slice(0, -1) : url;
    try {
      parseTargetUrl(base);
    } catch (error) {
      if (!options.ignoreInvalidURLs) throw error;
      invalidURLs.push(url);
      continue;
    }
    if (!wildcard) {
      pages.push(base);
      continue;
    }
    try {
      const { links } = await map(
        base,
        {
          limit: options.maxPagesPerWildcard,
          includeSubdomains: options.includeSubdomains,
          ...(options.prompt ? { search: options.prompt } : {}),
        },
        context,
      );
      pages.push(...links.map((link) => link.url));
    } catch (error) {
      warnings.push(`Could not map ${base}: ${(error as Error).message}`);
    }
  }
  return { pages: [...new Set(pages)], invalidURLs, warnings };
}

/**
 * Reads one JSON answer off many pages with the context's model.
 * @throws BAD_REQUEST for bad options or a bad schema; NOT_CONFIGURED without a model;
 * FETCH_FAILED when the model cannot be reached
 * @example
 * const result = await extract({ urls: ['https://example.com/*'], prompt: 'the pricing plans' }, { llm });
 */
export async function extract(
  options: ExtractOptions | ResolvedExtractOptions,
  context: EngineContext = {},
): Promise<ExtractResult> {
  const resolved = prepareExtract(options, context);
  const config = context.config ?? resolveEngineConfig();
  const { pages, invalidURLs, warnings } = await pagesOf(resolved, context);
  if (resolved.enableWebSearch)
    warnings.push('enableWebSearch is not offered by this engine; only the given URLs were read.');
  const runner = new LlmRunner({
    llm: context.llm!,
    store: context.store,
    contextTokens: config.llmContextTokens,
    maxChunks: config.llmMaxChunksPerPage,
    signal: context.signal,
    onUsage: context.onLlmUsage,
  });
  const schema = resolved.schema ?? anyObject;
  const instruction = [
    resolved.systemPrompt,
    resolved.prompt ?? 'Extract the data the schema describes.',
    'The page is one of several; answer with what this page says.',
  ]
    .filter(Boolean)
    .join(' ');
  let data: unknown;
  const sources: Record<string, string[]> = {};
  const read: string[] = [];
  // Pages are scraped as markdown only; the model is asked here, once per page.
  const { llm: _llm, onLlmUsage: _onUsage, ...scrapeContext } = context;
  // Resolved once for every page.
  const pageOptions = resolveOptions(
    scrapeOptionsSchema,
    { ...resolved.scrapeOptions, formats: ['markdown'] },
    'scrapeOptions',
  );
  for (const url of pages) {
    if (context.signal?.aborted) throw new TrawlError('UNKNOWN_ERROR', 'The extract was cancelled');
    let markdown: string;
    try {
      const doc = await scrape(url, pageOptions, scrapeContext);
      markdown = doc.markdown ?? '';
    } catch (error) {
      if (error instanceof ValidationError) throw error;
      warnings.push(`${url} could not be scraped: ${(error as Error).message}`);
      continue;
    }
    const answer = await runner.ask({ name: 'extraction', instruction, schema }, markdown);
    read.push(url);
    warnings.push(...answer.warnings.map((warning) => `${url}: ${warning}`));
    data = mergeAnswers(data, answer.json);
    if (resolved.showSources && answer.json && typeof answer.json === 'object')
      for (const [field, value] of Object.entries(answer.json))
        if (value !== null && value !== '' && !(Array.isArray(value) && value.length === 0))
          (sources[field] ??= []).push(url);
  }
  if (resolved.schema && data !== undefined) {
    const validate = compileSchema(resolved.schema, ['schema']);
    if (!validate(data))
      warnings.push(
        `The merged answer does not match the schema: ${describeErrors(validate.errors)}`,
      );
  }
  return {
    data: data ?? null,
    ...(resolved.showSources ? { sources } : {}),
    invalidURLs,
    pages: read,
    warnings,
  };
}
