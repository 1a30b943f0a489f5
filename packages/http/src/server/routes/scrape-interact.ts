/**
 * `POST /v2/scrape/{scrapeId}/interact` and `DELETE` of it: the page of a finished scrape,
 * continued in a browser session of the caller's team (opened at the scrape's URL on the first
 * call, kept for the next ones). Code mode runs Playwright code against that page as
 * `/v2/browser/{id}/execute` does; prompt mode has the model pick browser actions, which the
 * session runs. The answer is the SDKs' `BrowserExecuteResponse`.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type BrowserSession, type BrowserSessions } from '@trawl/core';
import { parseOrThrow, planPromptActions } from '@trawl/core/server';
import { z } from 'zod';
import type { ServerContext } from '../context.ts';
import { Refusal } from '../errors.ts';
import { mediaLinks } from '../media.ts';
import { wireFields } from '../requests.ts';

/** The body the SDKs, firecrawl-cli and firecrawl-mcp send: code or a prompt. */
export const interactRequestSchema = z
  .strictObject({
    code: z.string().trim().min(1).max(100_000).optional(),
    prompt: z.string().trim().min(1).max(10_000).optional(),
    language: z.enum(['node', 'python', 'bash']).default('node'),
    timeout: z.number().int().min(1).max(300).optional(),
    ...wireFields,
  })
  .refine((body) => body.code !== undefined || body.prompt !== undefined, {
    message: "give either 'code' or 'prompt'",
    path: ['code'],
  });

const notFound = () => new Refusal('NOT_FOUND', 'Scrape job not found');

/** Registers the interact routes on the sessions the browser routes keep. */
export function scrapeInteractRoutes(
  app: FastifyInstance,
  server: ServerContext,
  sessions: BrowserSessions,
): void {
  /** The session continuing each scrape, by team and scrape id. */
  const continued = new Map<string, string>();
  const keyOf = (team: string, scrapeId: string) => `${team}\u0000${scrapeId}`;
  const cdpUrlOf = (request: FastifyRequest, session: BrowserSession) =>
    `${server.base(request).replace(/^http/, 'ws')}/cdp/${session.id}?token=${session.token}`;

  /** The scrape's session, opened at the scrape's URL when there is none yet. */
  const sessionOf = async (team: string, scrapeId: string, timeoutMs: number) => {
    const known = continued.get(keyOf(team, scrapeId));
    const alive = known ? sessions.get(team, known) : undefined;
    if (alive) return alive;
    const record = await server.records.get(team, scrapeId);
    if (!record || record.endpoint !== 'scrape') throw notFound();
    const session = await sessions.create(team, {});
    continued.set(keyOf(team, scrapeId), session.id);
    const page = await pageOf(session);
    await page.goto(record.url, { timeout: timeoutMs, waitUntil: 'load' });
    return session;
  };

  app.post<{ Params: { scrapeId: string } }>('/v2/scrape/:scrapeId/interact', async (request) => {
    const body = parseOrThrow(interactRequestSchema, request.body ?? {}, 'interact request');
    const { team } = request;
    const timeoutMs = (body.timeout ?? 30) * 1000;
    const session = await sessionOf(team, request.params.scrapeId, timeoutMs);
    const media = mediaLinks(server.store, server.base(request));
    const link = (file: { bytes: Uint8Array; contentType: string }) =>
      media.save(file.bytes, file.contentType);
    const answer = { success: true, cdpUrl: cdpUrlOf(request, session), liveViewUrl: '' };
    if (body.code !== undefined) {
      const run = await sessions.execute(
        team,
        session.id,
        {
          code: body.code,
          language: body.language,
          ...(body.timeout ? { timeout: body.timeout } : {}),
        },
        link,
      );
      return { ...answer, ...run, output: run.result };
    }
    const page = await pageOf(session);
    const metered = server.metered(team, request.params.scrapeId);
    const plan = await planPromptActions(
      body.prompt ?? '',
      { url: page.url(), text: await page.innerText('body').catch(() => '') },
      metered.context,
      AbortSignal.timeout(timeoutMs),
    ).finally(() => metered.meter.settle());
    const ran =
      plan.actions.length > 0
        ? await sessions.execute(
            team,
            session.id,
            { actions: plan.actions, timeout: body.timeout },
            link,
          )
        : undefined;
    const output = [plan.answer, ran?.result].filter((part) => part).join('\n');
    return {
      ...answer,
      output,
      result: output,
      stdout: ran?.stdout ?? '',
      stderr: ran?.stderr ?? '',
      exitCode: ran?.exitCode ?? 0,
      killed: false,
    };
  });

  app.delete<{ Params: { scrapeId: string } }>('/v2/scrape/:scrapeId/interact', async (request) => {
    const key = keyOf(request.team, request.params.scrapeId);
    const id = continued.get(key);
    if (!id || !sessions.get(request.team, id))
      throw new Refusal('NOT_FOUND', 'No interactive session for this scrape');
    continued.delete(key);
    const { sessionDurationMs } = await sessions.destroy(request.team, id);
    return { success: true, status: 'destroyed', sessionDurationMs, creditsBilled: 0 };
  });
}

/** The session's page (its first tab). */
async function pageOf(session: BrowserSession) {
  const context = session.context;
  if (!context) throw new Refusal('CONFLICT', 'The browser session has ended');
  return context.pages()[0] ?? (await context.newPage());
}
