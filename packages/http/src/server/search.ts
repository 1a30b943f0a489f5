/**
 * POST /v2/search: validates the body (core's shape plus the wire fields), runs core's search()
 * with the configured providers, records the search as a job so feedback can find it, and
 * answers as the hosted service does: `{ success, data: { web?, news?, images? }, id,
 * creditsUsed, warning? }` (reference-behaviour (a)).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  search,
  type CreditLedger,
  type EngineConfig,
  type EngineContext,
  type MediaSink,
  type SearchProvider,
  type Store,
} from '@trawl/core';
import type { ErrorReply } from './errors.ts';
import type { RequestRecords } from './records.ts';
import { searchRequest } from './requests.ts';

/** What the search route needs from the server. */
export interface SearchRouteContext {
  store: Store;
  config: EngineConfig;
  records: RequestRecords;
  ledger: CreditLedger;
  /** Web search providers configured by the operator (SearXNG); none: the built-in index. */
  providers: readonly SearchProvider[];
  /** Runs work within the team's concurrency limit. */
  runLimited: <T>(team: string, work: () => Promise<T>) => Promise<{ result: T; waitedMs: number }>;
  /** The LLM formats' model for scraped results, and the meter that charges its tokens. */
  llmContext: (
    team: string,
    jobId: string,
  ) => { context: Partial<EngineContext>; meter: { settle(): Promise<number> } };
  /** Where screenshots of scraped results go. */
  media: (request: FastifyRequest) => MediaSink;
  outOfCredits: ErrorReply;
}

/** Registers POST /v2/search. */
export function searchRoutes(app: FastifyInstance, context: SearchRouteContext): void {
  const { store, config, records, ledger, providers } = context;
  app.post('/v2/search', async (request, reply: FastifyReply) => {
    const { options } = searchRequest.parse(request.body);
    const price = ledger.cost('search');
    if (!(await ledger.allows(request.team, price)))
      return reply.code(context.outOfCredits.status).send(context.outOfCredits.body);
    const record = await records.start(request.team, 'search', options.query);
    try {
      const llm = context.llmContext(request.team, record.id);
      const { result } = await context
        .runLimited(request.team, () =>
          search(options.query, options, {
            ...llm.context,
            store,
            config,
            team: request.team,
            media: context.media(request),
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
}
