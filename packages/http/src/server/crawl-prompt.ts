/**
 * Crawl `prompt` on the server: a crawl with a prompt runs with the options the
 * prompt turns into (options the request set explicitly win; routes/crawl-prompt.ts previews
 * them without crawling). Without a model the crawl still runs on its explicit options and
 * says so in its warning, as before.
 */
import { crawlOptionsSchema, type CrawlOptions, type ResolvedCrawlOptions } from '@trawl/core';
import { crawlOptionsFromPrompt } from '@trawl/core/server';
import { resolveOptions } from '@trawl/core/server';
import type { MeteredLlm } from '../process/services.ts';

/** The options a crawl's prompt turned into, by job id (the status answers them). */
export const promptOptionsNamespace = 'crawl-prompt-options';

/**
 * A crawl's options with its prompt applied: the generated options (for the status answer)
 * and the options to crawl with. Leaves the options as they are when no model is configured.
 */
export async function applyCrawlPrompt(
  url: string,
  options: ResolvedCrawlOptions,
  given: Readonly<Record<string, unknown>>,
  llm: MeteredLlm,
): Promise<{
  options: ResolvedCrawlOptions;
  promptOptions?: Partial<CrawlOptions>;
  warning?: string;
}> {
  if (!options.prompt || !llm.context.llm) return { options };
  try {
    const generated = await crawlOptionsFromPrompt(options.prompt, url, given, llm.context);
    const { prompt: _prompt, ...rest } = given;
    // New options, so the schema checks them together (the pattern caps span both lists).
    return {
      options: resolveOptions(
        crawlOptionsSchema,
        { ...rest, ...generated.options },
        'crawl options',
      ),
      promptOptions: generated.options,
      ...(generated.warnings.length ? { warning: generated.warnings.join(' ') } : {}),
    };
  } finally {
    await llm.meter.settle();
  }
}
