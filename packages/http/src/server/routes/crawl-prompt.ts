/**
 * `POST /v2/crawl/params-preview` (issue 18): the crawl options a prompt turns into, without
 * crawling.
 */
import { z } from 'zod';
import { crawlOptionsFromPrompt } from '@trawl/core/server';
import { parseOrThrow } from '@trawl/core/server';
import { wireFields } from '../requests.ts';
import type { RoutePlugin } from './index.ts';

const previewSchema = z.strictObject({
  url: z.string().min(1).max(8192),
  prompt: z.string().min(1).max(10_000),
  ...wireFields,
});

export const crawlPromptRoutes: RoutePlugin = (app, { llm, store, config, tokens }) => {
  app.post('/v2/crawl/params-preview', async (request) => {
    const body = parseOrThrow(previewSchema, request.body ?? {}, 'crawl params preview');
    const meter = tokens.meter(request.team, crypto.randomUUID());
    const context = llm ? { llm, store, config, onLlmUsage: meter.onLlmUsage } : {};
    try {
      const generated = await crawlOptionsFromPrompt(body.prompt, body.url, {}, context);
      return {
        success: true,
        data: { url: body.url, ...generated.options },
        ...(generated.warnings.length ? { warning: generated.warnings.join(' ') } : {}),
      };
    } finally {
      await meter.settle();
    }
  });
};
