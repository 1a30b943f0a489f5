/**
 * `POST /v2/scrape` and `POST /v2/map`: one request, one answer. Each body is parsed once; the
 * request is admitted (its credit reserved), recorded (feedback finds it by id), run within the
 * team's concurrency, and charged when it succeeds (a failure gives the credit back).
 */
import { map, scrape, toTrawlError } from '@trawl/core';
import { admit, engineContextOf } from '../admission.ts';
import type { RequestRecords } from '../records.ts';
import { mapRequest, scrapeRequest } from '../requests.ts';
import type { RoutePlugin } from './index.ts';

export const scrapeRoutes: RoutePlugin = (app, server) => {
  const { config, admission, records, concurrency } = server;

  app.post('/v2/scrape', async (request) => {
    const { fields, options } = scrapeRequest.parse(request.body);
    const cost = admission.cost('scrape');
    const ticket = await admit(server, request.team, { credits: cost, body: request.body });
    let charged = 0;
    try {
      const record = await records.start(request.team, 'scrape', fields.url, ticket.id);
      const { result: data, waitedMs } = await recorded(records, record.id, cost, () =>
        concurrency.run(request.team, () =>
          scrape(fields.url, options, engineContextOf(server, request, ticket)),
        ),
      );
      data.metadata.scrapeId = record.id;
      if (waitedMs > 0) {
        data.metadata.concurrencyLimited = true;
        data.metadata.concurrencyQueueDurationMs = waitedMs;
      }
      charged = cost;
      return { success: true, data };
    } finally {
      await ticket.settle({ scrape: charged });
    }
  });

  app.post('/v2/map', async (request) => {
    const { fields, options } = mapRequest.parse(request.body);
    const cost = admission.cost('map');
    const ticket = await admit(server, request.team, { credits: cost });
    let charged = 0;
    try {
      const record = await records.start(request.team, 'map', fields.url, ticket.id);
      const result = await recorded(records, record.id, cost, () =>
        map(fields.url, options, { config }),
      );
      charged = cost;
      return { success: true, id: record.id, links: result.links };
    } finally {
      await ticket.settle({ map: charged });
    }
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
