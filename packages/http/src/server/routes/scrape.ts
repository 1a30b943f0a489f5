/**
 * `POST /v2/scrape` and `POST /v2/map`: one request, one answer. Each body is parsed once; the
 * request is recorded (feedback finds it by id), run within the team's concurrency, and charged
 * when it succeeds.
 */
import { map, scrape, toTrawlError } from '@trawl/core';
import { outOfCredits } from '../errors.ts';
import { mediaLinks } from '../media.ts';
import type { RequestRecords } from '../records.ts';
import { mapRequest, scrapeRequest } from '../requests.ts';
import { refuseOverTokenCap } from '../token-cap.ts';
import type { RoutePlugin } from './index.ts';

export const scrapeRoutes: RoutePlugin = (app, server) => {
  const { store, config, ledger, records, concurrency } = server;

  app.post('/v2/scrape', async (request) => {
    const { fields, options } = scrapeRequest.parse(request.body);
    const cost = ledger.cost('scrape');
    if (!(await ledger.allows(request.team, cost))) throw outOfCredits();
    await refuseOverTokenCap(server, request);
    const record = await records.start(request.team, 'scrape', fields.url);
    const { meter, context: llmContext } = server.metered(request.team, record.id);
    const { result: data, waitedMs } = await recorded(records, record.id, cost, () =>
      concurrency.run(request.team, () =>
        scrape(fields.url, options, {
          ...llmContext,
          store,
          config,
          team: request.team,
          media: mediaLinks(store, server.base(request)),
        }),
      ),
    ).finally(() => meter.settle());
    data.metadata.scrapeId = record.id;
    if (waitedMs > 0) {
      data.metadata.concurrencyLimited = true;
      data.metadata.concurrencyQueueDurationMs = waitedMs;
    }
    await ledger.debit(request.team, cost, { endpoint: 'scrape', jobId: record.id });
    return { success: true, data };
  });

  app.post('/v2/map', async (request) => {
    const { fields, options } = mapRequest.parse(request.body);
    const cost = ledger.cost('map');
    if (!(await ledger.allows(request.team, cost))) throw outOfCredits();
    const record = await records.start(request.team, 'map', fields.url);
    const result = await recorded(records, record.id, cost, () =>
      map(fields.url, options, { config }),
    );
    await ledger.debit(request.team, cost, { endpoint: 'map', jobId: record.id });
    return { success: true, id: record.id, links: result.links };
  });
};

/** Runs a request's work, recording it completed (at `cost` credits) or failed with its code. */
async function recorded<T>(
  records: RequestRecords,
  id: string,
  cost: number,
  work: () => Promise<T>,
): Promise<T> {
  try {
    const result = await work();
    await records.finish(id, { status: 'completed', creditsUsed: cost });
    return result;
  } catch (error) {
    const failure = toTrawlError(error);
    await records.finish(id, {
      status: 'failed',
      creditsUsed: 0,
      error: `${failure.code}: ${failure.message}`,
    });
    throw error;
  }
}
