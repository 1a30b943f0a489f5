/**
 * `POST /v2/crawl/params-preview`: the crawl options a prompt turns into, without
 * crawling.
 */
import { z } from 'zod';
import { crawlOptionsFromPrompt } from '@trawl/core/server';
import { parseOrThrow } from '@trawl/core/server';
import { admit, llmContextOf } from '../admission.ts';
import { wireFields } from '../requests.ts';
import type { RoutePlugin } from './index.ts';

/** The body of `POST /v2/crawl/params-preview`. */
export const crawlPreviewSchema = z.strictObject({
  url: z.string().min(1).max(8192),
  prompt: z.string().min(1).max(10_000),
  ...wireFields,
});

export const crawlPromptRoutes: RoutePlugin = (app, server) => {
  const { llm, store, config, admission } = server;
  app.post('/v2/crawl/params-preview', async (request) => {
    const body = parseOrThrow(crawlPreviewSchema, request.body ?? {}, 'crawl params preview');
    // Without a model the preview answers 501 below; with one, it is model work like any other:
    // its call is reserved before it is made.
    const ticket = llm
      ? await admit(server, request.team, { credits: 0, callsModel: true })
      : admission.ticket(request.team, crypto.randomUUID());
    const context = llm ? { ...llmContextOf(server, ticket), store, config } : {};
    try {
      const generated = await crawlOptionsFromPrompt(body.prompt, body.url, {}, context);
      return {
        success: true,
        data: { url: body.url, ...generated.options },
        ...(generated.warnings.length ? { warning: generated.warnings.join(' ') } : {}),
      };
    } finally {
      await ticket.settle();
    }
  });
};
