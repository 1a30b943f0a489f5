/**
 * The /v2 server on Fastify (chosen over Hono for its built-in pino request log, its mature
 * WebSocket plugin for the crawl watcher, and its speed on Node). This file only wires: the
 * services (context.ts), the one error path (errors.ts), the key and rate check at the door
 * (door.ts), and the route plugins (routes/), each a concern of its own.
 */
import websocket from '@fastify/websocket';
import Fastify, { type FastifyInstance } from 'fastify';
import { serverContext, type ServerContext, type ServerOptions } from './context.ts';
import { doorHook } from './door.ts';
import { answerErrors } from './errors.ts';
import { limitJsonDepth } from './json-body.ts';
import { routePlugins } from './routes/index.ts';

export type { ServerOptions } from './context.ts';

/** The server with the services tests and `trawl serve` reach into. */
export type TrawlServer = FastifyInstance &
  Pick<ServerContext, 'jobs' | 'host' | 'webhooks' | 'webhookDrain' | 'records' | 'ledger'> & {
    /** The process's services, which start when the server is ready and stop when it closes. */
    services: ServerContext;
  };

/** Builds the server; call `listen()` on it, or `inject()` in tests. */
export function buildServer(options: ServerOptions): TrawlServer {
  const server = serverContext(options);
  const app = Fastify({
    logger: { level: options.logLevel ?? 'info' },
    bodyLimit: 10 * 1024 * 1024,
    // Keep-alive clients (the SDK's axios) must not hold a shutdown open.
    forceCloseConnections: true,
  });
  app.decorateRequest('team', '');
  limitJsonDepth(app);
  answerErrors(app);
  // The process's services start with the server and stop with it (process/services.ts):
  // running jobs are let go, to resume wherever they are taken next.
  app.addHook('onReady', async () => {
    await server.start();
  });
  app.addHook('onClose', () => server.stop());

  // A browser session's CDP client sends big messages (Playwright's injected script is 256 KiB,
  // a file it uploads goes as base64); /cdp refuses a wrong token before the upgrade.
  void app.register(websocket, { options: { maxPayload: 64 * 1024 * 1024 } });
  void app.register((scope, _options, done) => {
    // Inside this scope, so it runs after the WebSocket plugin marks upgrade requests (which
    // lets the plugin drop the socket of a refused upgrade).
    scope.addHook('onRequest', doorHook(server));
    for (const plugin of routePlugins) plugin(scope, server);
    done();
  });
  const { jobs, host, webhooks, webhookDrain, records, ledger } = server;
  return Object.assign(app, {
    jobs,
    host,
    webhooks,
    webhookDrain,
    records,
    ledger,
    services: server,
  });
}
