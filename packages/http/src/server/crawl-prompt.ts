/**
 * Crawl `prompt` on the server (issue 18): `POST /v2/crawl/params-preview` answers the options
 * a prompt turns into without crawling, and a crawl with a prompt runs with them (options the
 * request set explicitly win). Without a model the crawl still runs on its explicit options and
 * says so in its warning, as before.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  crawlOptionsFromPrompt,
  crawlOptionsSchema,
  type CrawlOptions,
  type EngineContext,
  type ResolvedCrawlOptions,
} from '@trawl/core';
import { parseOrThrow, resolveOptions } from '@trawl/core/server';
import { wireFields } from './requests.ts';

const previewSchema = z.strictObject({
  url: z.string().min(1).max(8192),
  prompt: z.string().min(1).max(10_000),
  ...wireFields,
});

/** The engine context a route's LLM work runs with, and what settles its tokens. */
export type LlmContextOf = (
  team: string,
  id: string,
) => { context: Partial<EngineContext>; meter: { settle(): Promise<number> } };

/**
 * A crawl's options with its prompt applied: the generated options (for the status answer)
 * and the options to crawl with. Leaves the options as they are when no model is configured.
 */
export async function applyCrawlPrompt(
  url: string,
  options: ResolvedCrawlOptions,
  given: Readonly<Record<string, unknown>>,
  llm: ReturnType<LlmContextOf>,
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

/** Registers `POST /v2/crawl/params-preview`. */
export function crawlPromptRoutes(app: FastifyInstance, llmContext: LlmContextOf): void {
  app.post('/v2/crawl/params-preview', async (request) => {
    const body = parseOrThrow(previewSchema, request.body ?? {}, 'crawl params preview');
    const llm = llmContext(request.team, crypto.randomUUID());
    try {
      const generated = await crawlOptionsFromPrompt(body.prompt, body.url, {}, llm.context);
      return {
        success: true,
        data: { url: body.url, ...generated.options },
        ...(generated.warnings.length ? { warning: generated.warnings.join(' ') } : {}),
      };
    } finally {
      await llm.meter.settle();
    }
  });
}
