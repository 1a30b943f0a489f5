/**
 * `POST /v2/extract` and `GET`/`DELETE /v2/extract/{id}`, as the SDK's `extract()`
 * calls them: the request is checked at once (bad options or schema: 400; no model: 501), then
 * the job goes to the job host (extract-jobs.ts), which runs it wherever the queue hands it.
 */
import type { ExtractOptions } from '@trawl/core';
import { prepareExtract } from '@trawl/core/server';
import { admit } from '../admission.ts';
import { Refusal } from '../errors.ts';
import { extractKind, extractRetentionMs, type ExtractRecord } from '../extract-jobs.ts';
import { isJobId } from '../requests.ts';
import type { RoutePlugin } from './index.ts';

/** Fields the SDK may send that this engine takes but does not act on. */
const wireOnly = ['origin', 'integration', 'agent', 'webhook', 'threatProtection'] as const;

const notFound = () => new Refusal('NOT_FOUND', 'Extract job not found');

export const extractRoutes: RoutePlugin = (app, context) => {
  const { host } = context;

  app.post('/v2/extract', async (request) => {
    const body = { ...(request.body as Record<string, unknown> | undefined) };
    for (const field of wireOnly) delete body[field];
    // Checked once, before the job exists: a bad schema is a 400, no model a 501. The job runs
    // with the resolved options (a job taken over reads them back).
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
      leaseMs: extractRetentionMs,
    });
    const now = Date.now();
    const record: ExtractRecord = {
      id: ticket.id,
      team: request.team,
      status: 'processing',
      options,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + extractRetentionMs).toISOString(),
    };
    await host.start(extractKind, record).catch(async (error: unknown) => {
      await ticket.settle();
      throw error;
    });
    return {
      success: true,
      id: record.id,
      url: `${request.protocol}://${request.host}/v2/extract/${record.id}`,
    };
  });

  const find = async (team: string, id: string) =>
    isJobId(id) ? host.get<ExtractRecord>(extractKind, team, id) : undefined;

  app.get<{ Params: { id: string } }>('/v2/extract/:id', async (request) => {
    const record = await find(request.team, request.params.id);
    if (!record) throw notFound();
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
    await host.cancel(record.id);
    return { success: true, status: 'cancelled' };
  });
};
