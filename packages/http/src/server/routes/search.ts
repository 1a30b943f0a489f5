/**
 * POST /v2/search: validates the body (core's shape plus the wire fields), runs core's search()
 * with the configured providers, records the search as a job so feedback can find it, and
 * answers as the hosted service does: `{ success, data: { web?, news?, images? }, id,
 * creditsUsed, warning? }` (reference-behaviour (a)).
 */
import { search } from '@trawl/core';
import { admit, engineContextOf } from '../admission.ts';
import { searchRequest } from '../requests.ts';
import type { RoutePlugin } from './index.ts';

export const searchRoutes: RoutePlugin = (app, server) => {
  const { records, admission, searchProviders: providers } = server;
  app.post('/v2/search', async (request) => {
    const { options } = searchRequest.parse(request.body);
    const price = admission.cost('search');
    // The search, and a scrape of each result it may scrape: all of them, or it is refused.
    const scrapes = options.scrapeOptions ? options.limit * options.sources.length : 0;
    const ticket = await admit(server, request.team, {
      credits: price + admission.cost('scrape', scrapes),
      body: options.scrapeOptions ? { formats: options.scrapeOptions.formats } : undefined,
    });
    let charged = 0;
    const record = await records.start(request.team, 'search', options.query, ticket.id);
    try {
      const { result } = await server.concurrency.run(request.team, () =>
        search(options.query, options, {
          ...engineContextOf(server, request, ticket),
          providers,
        }),
      );
      const creditsUsed = price + admission.cost('scrape', result.counts.scraped);
      charged = creditsUsed;
      await records.finish(record.id, { status: 'completed', creditsUsed });
      const { web, news, images, warning } = result;
      return {
        success: true,
        data: {
          ...(web ? { web } : {}),
          ...(news ? { news } : {}),
          ...(images ? { images } : {}),
        },
        id: record.id,
        creditsUsed,
        ...(warning ? { warning } : {}),
      };
    } catch (error) {
      await records.finish(record.id, {
        status: 'failed',
        creditsUsed: 0,
        error: (error as Error).message,
      });
      throw error;
    } finally {
      await ticket.settle({ search: charged });
    }
  });
};
