/** `trawl serve`: the /v2 server on the embedded defaults (SQLite store in the data folder). */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SearxngProvider, SqliteStore, ValidationError } from '@trawl/core';
import { configRows, envNamesOf, loadConfig } from '../config.ts';
import { buildServer } from '../server/app.ts';
import { monitorSettingsFrom } from '../server/monitors.ts';
import { ApiKeys } from '../server/auth.ts';
import type { Command } from './index.ts';
import { toInteger } from './page-flags.ts';

const usage = `Usage: trawl serve [options]

Runs the /v2 HTTP server (the interface the official Firecrawl SDK speaks) until Ctrl-C or
SIGTERM. Jobs live in the SQLite store of $TRAWL_DATA_DIR and continue after a restart.

Options:
  --port <n>               port (default $PORT or 3002)
  --host <address>         address to listen on (default $TRAWL_HOST or 127.0.0.1)
  --allow-keyless-remote   listen on a non-loopback address without API keys
  -h, --help               show this help

API keys: TRAWL_API_KEYS="key1,team-a:key2", and those of 'trawl keys create'. Without keys the server is keyless and listens on
loopback only. Fetching private and loopback addresses is refused unless
TRAWL_ALLOW_PRIVATE_ADDRESSES=true (or its alias TRAWL_ALLOW_PRIVATE_TARGETS). Request logs are JSON lines on stdout (TRAWL_LOG_LEVEL).
`;

const loopback = new Set(['127.0.0.1', '::1', 'localhost']);

/** The serve command. */
export const serveCommand: Command = {
  name: 'serve',
  summary: 'Run the /v2 server (default 127.0.0.1:3002)',
  usage,
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'allow-keyless-remote': { type: 'boolean' },
      },
    });
    if (positionals.length > 0)
      throw new ValidationError(`serve takes no arguments (got '${positionals.join(' ')}')`);
    const flags: Record<string, unknown> = {};
    if (values.port !== undefined) flags['port'] = toInteger(values.port, '--port', 'port');
    if (values.host !== undefined) flags['host'] = values.host;
    // Served, Trawl fetches what strangers ask for: private targets are refused unless allowed.
    const allowPrivate = configRows.find((row) => row.key === 'allowPrivateAddresses');
    if (allowPrivate && envNamesOf(allowPrivate).every((name) => io.env[name] === undefined))
      flags['allowPrivateAddresses'] = false;
    const config = loadConfig({ env: io.env, flags });
    // E-mail and LLM settings are checked before anything is opened.
    const monitors = monitorSettingsFrom(config.server);
    const {
      port,
      host,
      apiKeys,
      logLevel,
      rateLimitPerMinute,
      teamConcurrency,
      teamCredits,
      creditPrices,
      feedbackDailyRefundCap,
      searchFeedbackDailyRefundCap,
      feedbackWindowMs,
      feedbackOptedOutTeams,
      webhookSecret,
      webhookRetries,
    } = config.server;
    const store = new SqliteStore({ path: join(config.dataDir, 'trawl.db') });
    const keys = await ApiKeys.load(store, apiKeys).catch(async (error: unknown) => {
      await store.close();
      throw error;
    });
    if (keys.keyless && !loopback.has(host) && !values['allow-keyless-remote']) {
      await store.close();
      throw new ValidationError(
        `Refusing to serve ${host} without API keys: anyone who reaches it could use it. Set TRAWL_API_KEYS, listen on 127.0.0.1, or pass --allow-keyless-remote.`,
      );
    }

    const app = buildServer({
      store,
      config: config.engine,
      keys,
      monitors,
      logLevel,
      webhooks: { retries: webhookRetries, ...(webhookSecret ? { secret: webhookSecret } : {}) },
      limits: {
        ratePerMinute: rateLimitPerMinute,
        teamConcurrency,
        ...(teamCredits !== undefined ? { teamCredits } : {}),
      },
      ...(creditPrices ? { creditPrices } : {}),
      ...(config.server.searxngUrl
        ? { searchProviders: [new SearxngProvider({ url: config.server.searxngUrl })] }
        : {}),
      feedback: {
        ...(feedbackDailyRefundCap !== undefined ? { dailyRefundCap: feedbackDailyRefundCap } : {}),
        ...(searchFeedbackDailyRefundCap !== undefined
          ? { searchDailyRefundCap: searchFeedbackDailyRefundCap }
          : {}),
        ...(feedbackWindowMs !== undefined ? { windowMs: feedbackWindowMs } : {}),
        ...(feedbackOptedOutTeams ? { optedOutTeams: feedbackOptedOutTeams } : {}),
      },
    });
    const resumed = await app.jobs.restore();
    const address = await app.listen({ port, host });
    io.stderr(
      `Trawl /v2 server on ${address}${keys.keyless ? ' (keyless: no API key configured, loopback only)' : ''}` +
        `${resumed.length > 0 ? `; resumed ${resumed.length} job(s)` : ''}\n`,
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
    // Stop taking requests; running jobs keep their frontier in the store and resume at the next
    // start, so they are left as they are rather than cancelled.
    await app.close();
    io.stderr('Trawl server stopped; running jobs continue at the next start.\n');
    return 0;
  },
};
