/**
 * What a process is for, and what that changes in its settings' defaults. Every command names
 * its role when it loads its settings (config.ts), so a new kind of process cannot start on the
 * library's defaults by forgetting to copy what another command does: `trawl worker` once did,
 * and fetched the private addresses `trawl serve` refused.
 */
import { servedConvertThreads } from './cli/warm-threads.ts';

/**
 * - `serve`: `trawl serve`, answering requests and running their jobs;
 * - `api`: `trawl serve --role api`, answering requests and queueing their jobs;
 * - `worker`: `trawl worker`, running jobs that `api` processes queued;
 * - `cli`: every other command, run by the machine's own user.
 */
export type ProcessRole = 'serve' | 'api' | 'worker' | 'cli';

/** Roles whose work comes from requests over a network, i.e. from strangers. */
const networkRoles: ReadonlySet<ProcessRole> = new Set(['serve', 'api', 'worker']);

/** Whether a process of `role` fetches what callers over a network ask for. */
export function servesNetwork(role: ProcessRole): boolean {
  return networkRoles.has(role);
}

/**
 * The defaults of a role, by setting key: used where no flag, variable or config file sets the
 * key. A process serving a network refuses private addresses unless told otherwise (its callers
 * would otherwise reach the machine's own network); the CLI fetches what its user asks, a site
 * on their LAN included.
 */
export function roleDefaults(role: ProcessRole): Record<string, unknown> {
  return {
    allowPrivateAddresses: !servesNetwork(role),
    // Answering requests, a server's main thread mostly waits on sockets: a thread per core
    // converts (warm-threads.ts). A worker's main thread drives crawls and keeps the default.
    ...(role === 'serve' || role === 'api' ? { convertThreads: servedConvertThreads() } : {}),
  };
}
