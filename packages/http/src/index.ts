/**
 * @trawl/http — the Trawl command line (and, later, the /v2 server), as a library for embedding.
 */
export { runCli } from './cli/index.ts';
export { pageFileName } from './cli/crawl.ts';
export type { CliIo, Command } from './cli/index.ts';
export { loadConfig, configRows } from './config.ts';
export type { TrawlConfig, ConfigSources } from './config.ts';
