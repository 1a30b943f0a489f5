/**
 * `POST /v2/extract` and `GET`/`DELETE /v2/extract/{id}` (issue 18), as the SDK's `extract()`
 * calls them: the request is checked at once (bad options or schema: 400; no model: 501), then
 * the job runs in the background and is kept in the Store, so its status outlives the request.
 * A job found still `processing` with no worker in this process (the server restarted) is run
 * again; the LLM answer cache makes the pages it already read cost no tokens.
 */
import {
  extract,
  toTrawlError,
  type ExtractOptions,
  type ResolvedExtractOptions,
} from '@trawl/core';
import { dayMs, prepareExtract, type AdmissionTicket } from '@trawl/core/server';
import { admit, llmContextOf } from '../admission.ts';
import { Refusal } from '../errors.ts';
import type { RoutePlugin } from './index.ts';

const namespace = 'extract-jobs';
/** Results stay readable for a day, as the hosted service keeps them. */
const retentionMs = dayMs;
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Fields the SDK may send that this engine takes but does not act on. */
const wireOnly = ['origin', 'integration', 'agent', 'webhook', 'threatProtection'] as const;

/** One extract job as stored. */
interface ExtractRecord {
  id: string;
  team: string;
  status: 'processing' | 'completed' | 'failed' | 'cancelled';
  options: ExtractOptions | ResolvedExtractOptions;
  createdAt: string;
  expiresAt: string;
  data?: unknown;
  sources?: Record<string, string[]>;
  warning?: string;
  error?: string;
  creditsUsed?: number;
}

const notFound = () => new Refusal('NOT_FOUND', 'Extract job not found');
const key = (team: string, id: string) => `${encodeURIComponent(team)}/${id}`;

export const extractRoutes: RoutePlugin = (app, context) => {
  const { store } = context;
  const running = new Map<string, AbortController>();

  const save = (record: ExtractRecord) =>
    store.set(namespace, key(record.team, record.id), record, { ttlMs: retentionMs });

  /**
   * Runs a job to its end, settling its ticket (a job resumed after a restart settles by its
   * id); a cancelled job keeps its `cancelled` status.
   */
  const run = (
    record: ExtractRecord,
    ticket: AdmissionTicket = context.admission.ticket(record.team, record.id),
  ) => {
    const abort = new AbortController();
    running.set(record.id, abort);
    void (async () => {
      let finished: ExtractRecord;
      try {
        const result = await extract(record.options, {
          store,
          config: context.config,
          team: record.team,
          signal: abort.signal,
          ...llmContextOf(context, ticket),
        });
        const pageCredits = context.admission.cost('scrape', result.pages.length);
        const credits = await ticket.settle({ scrape: pageCredits });
        finished = {
          ...record,
          status: 'completed',
          data: result.data,
          ...(result.sources ? { sources: result.sources } : {}),
          ...(result.warnings.length ? { warning: result.warnings.join(' ') } : {}),
          creditsUsed: credits,
        };
      } catch (error) {
        await ticket.settle().catch(() => 0);
        finished = abort.signal.aborted
          ? { ...record, status: 'cancelled' }
          : { ...record, status: 'failed', error: toTrawlError(error).message };
      } finally {
        running.delete(record.id);
      }
      // A DELETE that came while the last page was read still wins.
      if (abort.signal.aborted) finished = { ...record, status: 'cancelled' };
      await save(finished).catch((error: unknown) =>
        app.log.error({ err: error }, `extract ${record.id}: the result could not be stored`),
      );
    })();
  };

  app.post('/v2/extract', async (request) => {
    const body = { ...(request.body as Record<string, unknown> | undefined) };
    for (const field of wireOnly) delete body[field];
    // Checked once, before the job exists: a bad schema is a 400, no model a 501. The job runs
    // with the resolved options (a job resumed after a restart reads them back and checks them).
    const options = prepareExtract(body as ExtractOptions, context.llm ? { llm: context.llm } : {});
    // Every page it may read (a wildcard, up to maxPagesPerWildcard) and one model call are
    // reserved: all of it, or the extract is refused. Each further call reserves its own.
    const pages = options.urls.reduce(
      (sum, url) => sum + (url.endsWith('/*') ? options.maxPagesPerWildcard : 1),
      0,
    );
    const ticket = await admit(context, request.team, {
      credits: context.admission.cost('scrape', pages),
      callsModel: true,
      leaseMs: retentionMs,
    });
    const now = Date.now();
    const record: ExtractRecord = {
      id: ticket.id,
      team: request.team,
      status: 'processing',
      options,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + retentionMs).toISOString(),
    };
    await save(record).catch(async (error: unknown) => {
      await ticket.settle();
      throw error;
    });
    run(record, ticket);
    return {
      success: true,
      id: record.id,
      url: `${request.protocol}://${request.host}/v2/extract/${record.id}`,
    };
  });

  const find = async (team: string, id: string) =>
    uuidPattern.test(id) ? store.get<ExtractRecord>(namespace, key(team, id)) : undefined;

  app.get<{ Params: { id: string } }>('/v2/extract/:id', async (request) => {
    const record = await find(request.team, request.params.id);
    if (!record) throw notFound();
    // Left processing by a stopped server: run it again (cached answers cost nothing).
    if (record.status === 'processing' && !running.has(record.id)) run(record);
    return {
      success: true,
      id: record.id,
      status: record.status,
      data: record.data ?? null,
      ...(record.sources ? { sources: record.sources } : {}),
      ...(record.warning ? { warning: record.warning } : {}),
      ...(record.error ? { error: record.error } : {}),
      expiresAt: record.expiresAt,
      ...(record.creditsUsed !== undefined ? { creditsUsed: record.creditsUsed } : {}),
    };
  });

  app.delete<{ Params: { id: string } }>('/v2/extract/:id', async (request) => {
    const record = await find(request.team, request.params.id);
    if (!record) throw notFound();
    if (record.status !== 'processing')
      throw new Refusal('CONFLICT', `The extract job is already ${record.status}`, {
        showCode: false,
      });
    running.get(record.id)?.abort();
    await save({ ...record, status: 'cancelled' });
    return { success: true, status: 'cancelled' };
  });

  app.addHook('onClose', () => {
    for (const abort of running.values()) abort.abort();
  });
};
