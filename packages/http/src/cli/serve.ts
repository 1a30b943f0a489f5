/** `trawl serve`: the /v2 server on the embedded defaults (SQLite store in the data folder). */
import { ValidationError } from '@trawl/core';
import { loadConfig } from '../config.ts';
import { buildServer } from '../server/app.ts';
import { ApiKeys } from '../server/auth.ts';
import { parseFlags, UsageError } from './args.ts';
import type { Command } from './index.ts';
import { isLoopbackAddress, listeningLine } from './listening.ts';
import { quietable, quietFlagOption, toInteger } from './page-flags.ts';
import { openQueue } from './queue.ts';
import { serverOptionsFrom } from './server-options.ts';
import { openCounters, openStore } from './store.ts';

const usage = `Usage: trawl serve [options]

Runs the /v2 HTTP server (the interface the official Firecrawl SDK speaks) until Ctrl-C or
SIGTERM. Jobs live in the SQLite store of $TRAWL_DATA_DIR and continue after a restart.

Options:
  --port <n>               port (default $PORT or 3002)
  --host <address>         address to listen on (default $TRAWL_HOST or 127.0.0.1)
  --allow-keyless-remote   listen on a non-loopback address without API keys
  --role api               accept requests, queue their jobs and answer from the store, but
                           run no jobs: 'trawl worker' processes do (needs TRAWL_QUEUE=bullmq)
  -q, --quiet              no start-up or stop line on stderr (errors only)
  -h, --help               show this help

API keys: TRAWL_API_KEYS="key1,team-a:key2", and those of 'trawl keys create'. Without keys the server is keyless and listens on
loopback only. Fetching private and loopback addresses is refused unless
TRAWL_ALLOW_PRIVATE_ADDRESSES=true (or its alias TRAWL_ALLOW_PRIVATE_TARGETS). Request logs are JSON lines on stdout (TRAWL_LOG_LEVEL).

Examples:
  trawl serve --port 3002
  trawl serve --role api   # with TRAWL_QUEUE=bullmq and trawl worker beside it
`;

/** The serve command. */
export const serveCommand: Command = {
  usage,
  async run(args, io) {
    const { values, positionals } = parseFlags(args, {
      port: { type: 'string' },
      host: { type: 'string' },
      'allow-keyless-remote': { type: 'boolean' },
      role: { type: 'string' },
      ...quietFlagOption,
    });
    const say = quietable(io, values.quiet).stderr;
    if (positionals.length > 0)
      throw new UsageError(`serve takes no arguments (got '${positionals.join(' ')}')`);
    const flags: Record<string, unknown> = {};
    if (values.port !== undefined) flags['port'] = toInteger(values.port, '--port', 'port');
    if (values.host !== undefined) flags['host'] = values.host;
    const role = values.role ?? 'all';
    if (role !== 'all' && role !== 'api')
      throw new UsageError(`--role is 'api' or absent (got '${role}')`);
    const config = loadConfig({ role: role === 'api' ? 'api' : 'serve', env: io.env, flags });
    if (role === 'api' && config.storage.queue === 'in-process')
      throw new ValidationError(
        '--role api needs TRAWL_QUEUE=bullmq (and TRAWL_REDIS_URL): with the in-process queue nothing else would run the jobs it accepts',
      );
    // E-mail and LLM settings are checked before anything is opened.
    const optionsWith = serverOptionsFrom(config);
    const { port, host, apiKeys } = config.server;
    const store = await openStore(config);
    const counters = await openCounters(config);
    const keys = await ApiKeys.load(store, apiKeys).catch(async (error: unknown) => {
      await store.close();
      throw error;
    });
    if (keys.keyless && !isLoopbackAddress(host) && !values['allow-keyless-remote']) {
      await store.close();
      throw new ValidationError(
        `Refusing to serve ${host} without API keys: anyone who reaches it could use it. Set TRAWL_API_KEYS, listen on 127.0.0.1, or pass --allow-keyless-remote.`,
      );
    }
    const queue = openQueue(config);
    const app = buildServer({ ...optionsWith({ store, queue, keys, counters }), role });
    // The services start as the server gets ready: a shared queue that cannot start (Redis
    // down) stops it here, not later; jobs and webhooks a previous run left go on.
    await app.listen({ port, host }).catch((error: unknown) => {
      if ((error as { code?: unknown }).code !== 'EADDRINUSE') throw error;
      throw new ValidationError(
        `port ${port} on ${host} is in use: stop what listens there, or choose another port with --port or PORT`,
      );
    });
    const { resumedJobs: resumed, webhooksPending } = await app.services.start();
    // What the socket really is bound to, not what was asked: 0.0.0.0 or :: is every address.
    say(
      `${listeningLine(app.server.address(), keys.keyless)}` +
        `${resumed.length > 0 ? `; resumed ${resumed.length} job(s)` : ''}` +
        `${webhooksPending > 0 ? `; ${webhooksPending} pending webhook(s) queued again` : ''}\n`,
    );

    const stop = new AbortController();
    const onTerm = () => stop.abort();
    process.once('SIGTERM', onTerm);
    io.signal?.addEventListener('abort', onTerm, { once: true });
    await new Promise<void>((resolve) => {
      if (stop.signal.aborted) resolve();
      stop.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    process.off('SIGTERM', onTerm);
    // Stop taking requests and let the services go (webhooks first, process/services.ts);
    // running jobs keep their state in the store and resume at the next start, so they are left
    // as they are rather than cancelled.
    await app.close();
    await queue.close();
    await counters.close();
    say(
      'Trawl server stopped; running jobs and pending webhooks continue at the next start.\n',
    );
    return 0;
  },
};
