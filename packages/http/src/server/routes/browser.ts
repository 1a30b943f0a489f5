/**
 * Browser routes: interactive sessions as the official SDK calls them (`POST /v2/browser`, its
 * alias `/v2/interact`, `GET /v2/browser`, `POST /v2/browser/{id}/execute`,
 * `DELETE /v2/browser/{id}`), the CDP WebSocket each session's `cdpUrl` points at, and the
 * screenshots and PDFs that scrapes capture, served for a day by URL.
 *
 * The CDP socket and the media are outside `/v2/`, so the API-key hook does not run for them: a
 * session's `cdpUrl` carries a secret token instead (given only to the key holder that created
 * it), and media names are random UUIDs, as the hosted service's signed links are. The socket
 * leads to the session's relay, which checks every command, never to Chromium itself.
 */
import type { FastifyRequest } from 'fastify';
import type { WebSocket as ClientSocket } from 'ws';
import WebSocket from 'ws';
import {
  BrowserSessions,
  closeBrowsers,
  ValidationError,
  type BrowserSession,
  type CdpPeer,
} from '@trawl/core';
import { browserExecuteShape, browserSessionCreateShape } from '@trawl/core/server';
import { parseOrThrow } from '@trawl/core/server';
import { z } from 'zod';
import { Refusal, sendError } from '../errors.ts';
import { mediaLinks, mediaNamespace, type StoredMedia } from '../media.ts';
import { wireFields } from '../requests.ts';
import type { RoutePlugin } from './index.ts';
import { scrapeInteractRoutes } from './scrape-interact.ts';

/** `POST /v2/browser`: core's session settings plus the SDK's wire fields. */
export const browserCreateRequestSchema = z.strictObject({
  ...browserSessionCreateShape,
  ...wireFields,
});
/** `POST /v2/browser/{id}/execute`. */
export const browserExecuteRequestSchema = z
  .strictObject({ ...browserExecuteShape, ...wireFields })
  .refine((body) => (body.code === undefined) !== (body.actions === undefined), {
    message: 'give either code or actions',
    path: ['code'],
  });

/** The session, CDP and media routes; they end sessions and browsers when the server closes. */
export const browserRoutes: RoutePlugin = (app, server) => {
  const { store, config } = server;
  const base = (request: FastifyRequest) => server.base(request);
  const sessions = new BrowserSessions({
    store,
    chromium: { configuredPath: config.chromiumPath },
    perTeam: config.browserSessionsPerTeam,
    execute: config.browserExecute,
    // Like scrapes: a session's browser may not reach private addresses unless the operator
    // allows them.
    addressGuard: config.allowPrivateAddresses ? undefined : { upstream: config.proxyUrl },
  });
  scrapeInteractRoutes(app, server, sessions);
  app.addHook('onClose', async () => {
    await sessions.close();
    // This server's browsers only: another server of the process keeps its own.
    await closeBrowsers(config);
  });

  const cdpUrlOf = (request: FastifyRequest, session: BrowserSession) =>
    `${base(request).replace(/^http/, 'ws')}/cdp/${session.id}?token=${session.token}`;
  const listed = (request: FastifyRequest, session: BrowserSession) => ({
    id: session.id,
    status: session.status,
    cdpUrl: cdpUrlOf(request, session),
    // No live view here: an empty string keeps the field the SDK's type has.
    liveViewUrl: '',
    streamWebView: session.streamWebView,
    createdAt: session.createdAt,
    lastActivity: session.lastActivity,
  });

  const create = async (request: FastifyRequest) => {
    const body = parseOrThrow(
      browserCreateRequestSchema,
      request.body ?? {},
      'browser session request',
    );
    const { origin: _origin, integration: _integration, ...settings } = body;
    const session = await sessions.create(request.team, settings);
    return {
      success: true,
      id: session.id,
      cdpUrl: cdpUrlOf(request, session),
      liveViewUrl: '',
      expiresAt: session.expiresAt,
    };
  };
  app.post('/v2/browser', create);
  app.post('/v2/interact', create);

  app.get<{ Querystring: { status?: string } }>('/v2/browser', (request, reply) => {
    const status = request.query.status ?? 'active';
    if (status !== 'active' && status !== 'destroyed') {
      throw new ValidationError(`status must be 'active' or 'destroyed' (got '${status}')`, {
        details: [{ path: ['status'], message: 'expected active or destroyed' }],
      });
    }
    if (status === 'destroyed') {
      return reply.send({
        success: true,
        sessions: sessions.list(request.team, 'destroyed').map((info) => ({
          ...info,
          cdpUrl: '',
          liveViewUrl: '',
        })),
      });
    }
    return reply.send({
      success: true,
      sessions: sessions
        .list(request.team)
        .map((info) => sessions.get(request.team, info.id))
        .filter((session): session is BrowserSession => session !== undefined)
        .map((session) => listed(request, session)),
    });
  });

  app.post<{ Params: { id: string } }>('/v2/browser/:id/execute', async (request) => {
    const body = parseOrThrow(
      browserExecuteRequestSchema,
      request.body ?? {},
      'browser execute request',
    );
    const { origin: _origin, integration: _integration, ...input } = body;
    const media = mediaLinks(store, base(request));
    return sessions.execute(request.team, request.params.id, input, (file) =>
      media.save(file.bytes, file.contentType),
    );
  });

  app.delete<{ Params: { id: string } }>('/v2/browser/:id', async (request) => {
    const { sessionDurationMs } = await sessions.destroy(request.team, request.params.id);
    return { success: true, status: 'destroyed', sessionDurationMs, creditsBilled: 0 };
  });

  // The session's CDP socket, joined to the session's relay (Chromium itself listens nowhere).
  app.get<{ Params: { id: string }; Querystring: { token?: string } }>(
    '/cdp/:id',
    {
      websocket: true,
      // Refused before the upgrade: a caller without the token never gets a socket to send to.
      preValidation: async (request, reply) => {
        if (!sessions.byToken(request.params.id, request.query.token ?? '')) {
          await sendError(
            reply,
            new Refusal('UNAUTHORIZED', 'Unknown browser session or wrong token', {
              showCode: false,
            }),
          );
        }
      },
    },
    (socket, request) => {
      const session = sessions.byToken(request.params.id, request.query.token ?? '');
      if (!session) {
        socket.close(1008, 'Unknown browser session or wrong token');
        return;
      }
      relay(socket, sessions, session);
    },
  );

  app.get<{ Params: { name: string } }>('/media/:name', async (request, reply) => {
    const media = /^[\w-]+\.\w+$/.test(request.params.name)
      ? await store.get<StoredMedia>(mediaNamespace, request.params.name)
      : undefined;
    if (!media)
      throw new Refusal('NOT_FOUND', 'Not found (links last 24 hours)', { showCode: false });
    return reply
      .header('content-type', media.contentType)
      .header('cache-control', 'private, max-age=86400')
      .send(Buffer.from(media.base64, 'base64'));
  });
};

/** Joins a client's WebSocket to the session's relay until either side closes. */
function relay(client: ClientSocket, sessions: BrowserSessions, session: BrowserSession): void {
  let peer: CdpPeer;
  try {
    peer = sessions.attach(
      session,
      (message) => {
        if (client.readyState === WebSocket.OPEN) client.send(message);
      },
      () => {
        if (client.readyState === WebSocket.OPEN) client.close(1000);
      },
    );
  } catch {
    client.close(1008, 'The browser session has ended');
    return;
  }
  client.on('message', (data: WebSocket.RawData) => {
    sessions.touch(session);
    const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
    peer.send(bytes.toString('utf8'));
  });
  client.on('close', () => peer.close());
  client.on('error', () => peer.close());
}
