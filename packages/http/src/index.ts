/**
 * @trawl/http — the Trawl command line and the /v2 server, as a library for embedding.
 */
export { runCli } from './cli/index.ts';
export { pageFileName } from './cli/job-output.ts';
export type { CliIo, Command } from './cli/index.ts';
export { loadConfig, configRows, envNamesOf } from './config.ts';
export { openStore } from './cli/store.ts';
export { openQueue } from './cli/queue.ts';
export { buildServer } from './server/app.ts';
export { buildProcess } from './process/services.ts';
export type { ProcessOptions, ProcessServices, ProcessStarted } from './process/services.ts';
export type { ServerOptions } from './server/app.ts';
export { ApiKeys } from './server/auth.ts';
export type { TrawlConfig, ConfigSources, ProcessRole, StorageSettings } from './config.ts';
export { monitorSettingsFrom } from './server/monitor-settings.ts';
export type { MonitorConfig, MonitorServerSettings } from './server/monitor-settings.ts';
