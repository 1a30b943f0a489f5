/**
 * The fetchers a call uses when its context names none: one HTTP fetcher for the process (its
 * connections are reused across scrapes), and one browser fetcher per engine configuration, whose
 * pool launches Chromium on first use and closes it when idle.
 */
import { availableParallelism } from 'node:os';
import { guardedChromiumArgs } from '../browser/guard-proxy.ts';
import { BrowserPool } from '../browser/pool.ts';
import type { EngineConfig } from '../config.ts';
import type { Fetcher } from '../interfaces/fetcher.ts';
import { BrowserFetcher } from './fetch-browser.ts';
import { HttpFetcher } from './fetch-http.ts';

const sharedHttp = new HttpFetcher();
let fetchersByConfig = new WeakMap<EngineConfig, readonly Fetcher[]>();
const poolsByConfig = new Map<EngineConfig, BrowserPool>();

/** The browser pool settings of an engine configuration. */
export function browserPoolOptionsOf(config: EngineConfig) {
  return {
    chromium: { configuredPath: config.chromiumPath },
    maxPages: availableParallelism() * config.browserPagesPerCpu,
    retireAfterPages: config.browserRetireAfterPages,
    idleCloseMs: config.browserIdleMs,
    ...(config.allowPrivateAddresses ? {} : { extraArgs: guardedChromiumArgs }),
  };
}

/** The default fetchers for a configuration: HTTP, and the browser (launched lazily). */
export function defaultFetchers(config: EngineConfig): readonly Fetcher[] {
  let fetchers = fetchersByConfig.get(config);
  if (!fetchers) {
    const pool = new BrowserPool(browserPoolOptionsOf(config));
    poolsByConfig.set(config, pool);
    fetchers = [sharedHttp, new BrowserFetcher(pool, { adblockLists: config.adblockLists })];
    fetchersByConfig.set(config, fetchers);
  }
  return fetchers;
}

/**
 * Closes the browsers the default fetchers launched (of one configuration, or all), so that a
 * process that used the browser can exit at once (otherwise Chromium stays up for
 * `browserIdleMs` after the last job). Later calls launch new ones.
 *
 * @example
 * const doc = await scrape('https://example.com', { formats: ['screenshot'] });
 * await closeBrowsers();
 */
export async function closeBrowsers(config?: EngineConfig): Promise<void> {
  const closing: BrowserPool[] = [];
  for (const [owner, pool] of poolsByConfig) {
    if (config && owner !== config) continue;
    closing.push(pool);
    poolsByConfig.delete(owner);
    fetchersByConfig.delete(owner);
  }
  if (!config) fetchersByConfig = new WeakMap();
  await Promise.all(closing.map((pool) => pool.close()));
}
