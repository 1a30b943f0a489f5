/**
 * `trawl worker`: a process that runs the jobs of a deployment. It takes `job` units
 * (it drives a crawl or batch scrape: frontier, dedupe, limit, politeness), `page` units (it
 * scrapes one URL of any job), the job host's `agent` and `extract` units and `monitor-check`
 * units (one monitor check) from the shared queue, with the store, webhooks, limits and LLM
 * settings `trawl serve` would have. Start as many as the machines allow; `trawl serve --role api`
 * answers the requests.
 */
import { ValidationError } from '@trawl/core';
import { loadConfig } from '../config.ts';
import { buildProcess } from '../process/services.ts';
import { parseFlags, UsageError } from './args.ts';
import type { Command } from './index.ts';
import { quietable, quietFlagOption, toInteger } from './page-flags.ts';
import { openQueue } from './queue.ts';
import { processOptionsFrom } from './server-options.ts';
import { openCounters, openStore } from './store.ts';

const usage = `Usage: trawl worker [options]

Runs crawls, batch scrapes, extract jobs, agent runs and monitor checks queued by 'trawl serve --role api' (or any
'trawl serve') until Ctrl-C or SIGTERM. Needs the deployment's shared queue and store: TRAWL_QUEUE=bullmq with
TRAWL_REDIS_URL, and TRAWL_STORE=postgres (or redis). A job whose worker dies is taken over by
another once its lease (TRAWL_QUEUE_LEASE_MS) expires. As with 'trawl serve', fetching private and
loopback addresses is refused unless TRAWL_ALLOW_PRIVATE_ADDRESSES=true.

Options:
  --concurrency <n>   pages this worker scrapes at once (default $TRAWL_CRAWL_CONCURRENCY or 10)
  -q, --quiet         no start-up or stop line on stderr (failures still)
  -h, --help          show this help

Examples:
  trawl worker --concurrency 16   # with TRAWL_QUEUE=bullmq and TRAWL_REDIS_URL set
`;

/** The worker command. */
export const workerCommand: Command = {
  usage,
  async run(args, io) {
    const { values, positionals } = parseFlags(args, {
      concurrency: { type: 'string' },
      ...quietFlagOption,
    });
    // Only the start and stop lines go quiet: a failing monitor check is still reported.
    const say = quietable(io, values.quiet).stderr;
    if (positionals.length > 0)
      throw new UsageError(`worker takes no arguments (got '${positionals.join(' ')}')`);
    const config = loadConfig({ role: 'worker', env: io.env });
    const concurrency =
      values.concurrency === undefined
        ? config.engine.crawlConcurrency
        : toInteger(values.concurrency, '--concurrency', 'concurrency');
    if (concurrency < 1) throw new UsageError('--concurrency must be 1 or more');
    if (config.storage.queue !== 'bullmq')
      throw new ValidationError(
        'trawl worker needs TRAWL_QUEUE=bullmq and TRAWL_REDIS_URL: with the in-process queue, trawl serve runs its jobs itself',
      );
    if (config.storage.store === 'sqlite')
      throw new ValidationError(
        'trawl worker needs a store other processes share: TRAWL_STORE=postgres (TRAWL_DATABASE_URL) or redis',
      );
    const optionsWith = processOptionsFrom(config);
    const store = await openStore(config);
    const queue = openQueue(config);
    const counters = await openCounters(config);
    try {
      // The services of `trawl serve` as the worker role has them: no HTTP server, no keys.
      const services = buildProcess({
        ...optionsWith({ store, queue, counters }),
        role: 'worker',
        pageConcurrency: concurrency,
        log: (message, error) =>
          io.stderr(`${message}${error instanceof Error ? `: ${error.message}` : ''}\n`),
      });
      // Crawls, batch scrapes, their pages, agent runs, extract jobs and monitor checks from the
      // queue; webhook deliveries in the shared store's outbox that no live process holds (a
      // killed process's) are taken over and retried here too, as by `trawl serve`.
      const { webhooksPending } = await services.start();
      say(
        `Trawl worker ${process.pid}: ${concurrency} page(s) at a time from queue '${config.storage.queuePrefix}'` +
          `${webhooksPending > 0 ? `; ${webhooksPending} pending webhook(s) queued again` : ''}\n`,
      );
      await untilStopped(io.signal);
      // Units this worker held run elsewhere once their lease expires; nothing is cancelled.
      await services.stop();
      say('Trawl worker stopped; its jobs continue on other workers.\n');
      return 0;
    } finally {
      await queue.close();
      await counters.close();
      await store.close();
    }
  },
};

/** Resolves on SIGTERM or when `signal` aborts (Ctrl-C). */
async function untilStopped(signal: AbortSignal | undefined): Promise<void> {
  const stop = new AbortController();
  const onTerm = () => stop.abort();
  process.once('SIGTERM', onTerm);
  signal?.addEventListener('abort', onTerm, { once: true });
  if (signal?.aborted) stop.abort();
  await new Promise<void>((resolve) => {
    if (stop.signal.aborted) resolve();
    stop.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  process.off('SIGTERM', onTerm);
}
