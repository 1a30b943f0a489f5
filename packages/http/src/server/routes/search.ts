/**
 * POST /v2/search: validates the body (core's shape plus the wire fields), runs core's search()
 * with the configured providers, records the search as a job so feedback can find it, and
 * answers as the hosted service does: `{ success, data: { web?, news?, images? }, id,
 * creditsUsed, warning? }` (reference-behaviour (a)).
 */
import { search } from '@trawl/core';
import { outOfCredits } from '../errors.ts';
import { mediaLinks } from '../media.ts';
import { searchRequest } from '../requests.ts';
import type { RoutePlugin } from './index.ts';

export const searchRoutes: RoutePlugin = (app, server) => {
  const { store, config, records, ledger, searchProviders: providers } = server;
  app.post('/v2/search', async (request) => {
    const { options } = searchRequest.parse(request.body);
    const price = ledger.cost('search');
    if (!(await ledger.allows(request.team, price))) throw outOfCredits();
    const record = await records.start(request.team, 'search', options.query);
    try {
      const llm = server.metered(request.team, record.id);
      const { result } = await server.concurrency
        .run(request.team, () =>
          search(options.query, options, {
            ...llm.context,
            store,
            config,
            team: request.team,
            media: mediaLinks(store, server.base(request)),
            providers,
          }),
        )
        .finally(() => llm.meter.settle());
      const creditsUsed = price + ledger.cost('scrape', result.counts.scraped);
      await ledger.debit(request.team, creditsUsed, { endpoint: 'search', jobId: record.id });
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
    }
  });
};
