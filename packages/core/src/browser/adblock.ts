/**
 * `blockAds` in the browser: ad and tracker requests are refused before they leave Chromium, by
 * Ghostery's filter engine (@ghostery/adblocker, maintained, MPL-2.0) over filter lists in
 * EasyList syntax.
 *
 * The lists are read from files, never downloaded at run time (Trawl works offline): by default
 * EasyList and EasyPrivacy as Debian's `webext-ublock-origin-chromium` package installs them,
 * kept up to date by apt like Chromium itself; `adblockLists` names others. Without any list the
 * browser still runs, and ad elements are still dropped from the content by the HTML cleaner.
 */
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import type { FiltersEngine, Request } from '@ghostery/adblocker';
import { NotConfiguredError } from '../errors.ts';
import { engineOptions } from './adblock-options.ts';

/** Where Debian installs EasyList and EasyPrivacy (package webext-ublock-origin-chromium). */
export const debianFilterLists: readonly string[] = [
  '/usr/share/chromium/extensions/ublock-origin/assets/thirdparties/easylist/easylist.txt',
  '/usr/share/chromium/extensions/ublock-origin/assets/thirdparties/easylist/easyprivacy.txt',
];

/** Decides which requests of a page to refuse. */
export interface RequestBlocker {
  /** Whether a request of this Playwright resource type, made by a page at `sourceUrl`, is an ad or tracker. */
  blocks(url: string, resourceType: string, sourceUrl: string): boolean;
}

type RequestClass = typeof Request;

class FilterListBlocker implements RequestBlocker {
  readonly #engine: FiltersEngine;
  readonly #Request: RequestClass;

  constructor(engine: FiltersEngine, RequestOf: RequestClass) {
    this.#engine = engine;
    this.#Request = RequestOf;
  }

  blocks(url: string, resourceType: string, sourceUrl: string): boolean {
    // The page itself is never blocked: the caller asked for it.
    if (resourceType === 'document' && url === sourceUrl) return false;
    const request = this.#Request.fromRawDetails({
      url,
      sourceUrl,
      type: resourceType as Request['type'],
    });
    return this.#engine.match(request).match;
  }
}

// Parsing EasyList takes about a second: once per process and list set.
const loaded = new Map<string, Promise<RequestBlocker | undefined>>();
let warnedMissing = false;

/**
 * The blocker for these lists (configured ones, else Debian's), built once. Undefined when the
 * default lists are not installed (a process warning says so once).
 *
 * @throws NOT_CONFIGURED when a configured list cannot be read
 */
export function loadBlocker(
  configured: readonly string[] | undefined,
): Promise<RequestBlocker | undefined> {
  const paths = configured ?? debianFilterLists;
  const key = JSON.stringify(paths);
  let blocker = loaded.get(key);
  if (!blocker) {
    blocker = buildBlocker(paths, configured !== undefined);
    // A failure is not cached: the operator may fix the file without a restart.
    blocker.catch(() => loaded.delete(key));
    loaded.set(key, blocker);
  }
  return blocker;
}

async function buildBlocker(
  paths: readonly string[],
  isConfigured: boolean,
): Promise<RequestBlocker | undefined> {
  const texts: string[] = [];
  for (const path of paths) {
    try {
      texts.push(await readFile(path, 'utf8'));
    } catch (error) {
      if (isConfigured) {
        throw new NotConfiguredError(
          `The ad-block filter list ${path} (adblockLists) cannot be read: ${(error as Error).message}`,
          { cause: error, details: [{ path: ['adblockLists'], message: 'unreadable file' }] },
        );
      }
    }
  }
  if (texts.length === 0) {
    if (!warnedMissing) {
      warnedMissing = true;
      process.emitWarning(
        'blockAds: no filter list is installed, so the browser does not block ad and tracker requests (ad elements are still removed from the content). Install webext-ublock-origin-chromium (Debian) or set adblockLists.',
        { code: 'TRAWL_NO_FILTER_LISTS' },
      );
    }
    return undefined;
  }
  // The filter engine is loaded with the first list: a process that never blocks ads skips it.
  const { FiltersEngine, Request } = await import('@ghostery/adblocker');
  const text = texts.join('\n');
  const serialised = await parseOffThread(text);
  const engine = serialised
    ? FiltersEngine.deserialize(serialised)
    : FiltersEngine.parse(text, engineOptions);
  return new FilterListBlocker(engine, Request);
}

// Beside this module, as .ts in the sources and .js once built.
const workerModule = new URL(
  `./adblock-worker.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`,
  import.meta.url,
);

/** The lists parsed on a thread of its own, serialised; undefined where no worker can start. */
async function parseOffThread(text: string): Promise<Uint8Array | undefined> {
  let worker: Worker | undefined;
  try {
    worker = new Worker(workerModule, { workerData: text });
    // A thread that ends without its answer must not leave the first blockAds render waiting.
    const exited = once(worker, 'exit').then(([code]) => {
      throw new Error(`the filter-list thread exited (${String(code)}) without its engine`);
    });
    // Terminated once answered, the thread exits too: that late rejection is nobody's error.
    exited.catch(() => undefined);
    const [bytes] = (await Promise.race([once(worker, 'message'), exited])) as [Uint8Array];
    return bytes;
  } catch {
    return undefined;
  } finally {
    void worker?.terminate();
  }
}
