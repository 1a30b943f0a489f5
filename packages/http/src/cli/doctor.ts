/**
 * `trawl doctor`: checks an installation the way an operator would by hand — each part the
 * configuration uses is looked up or asked once, and one line says whether it is there, and what
 * to do when it is not. A part nothing is configured to use is reported as such, not as a fault.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { findChromium, toTrawlError } from '@trawl/core';
import { debianFilterLists, findSoffice } from '@trawl/core/server';
import { loadConfig, type TrawlConfig } from '../config.ts';
import { ApiKeys } from '../server/auth.ts';
import { parseFlags } from './args.ts';
import type { Command } from './index.ts';
import { llmOf } from './llm-flags.ts';
import { quietFlagOption, quietHelp } from './page-flags.ts';
import { openCounters, openStore } from './store.ts';

const usage = `Usage: trawl doctor [options]

Checks this installation: Node.js, Chromium, the ad-block filter lists, LibreOffice, OCR, the
store, Redis, PostgreSQL, the LLM endpoint (a one-token call) and SearXNG when configured, the
private-address guard and the API keys. Each line says ok, missing or failed, and the fix.
Exits 1 when a configured part failed; a missing optional part is not a failure.

Options:
  --json                 one JSON object per check
${quietHelp}
  -h, --help             show this help

Examples:
  trawl doctor
  TRAWL_STORE=postgres TRAWL_DATABASE_URL=postgres://127.0.0.1/trawl trawl doctor
`;

/** What one check found. */
export interface Finding {
  part: string;
  state: 'ok' | 'missing' | 'failed' | 'off';
  detail: string;
  /** What to do about a `missing` or `failed` part. */
  fix?: string;
}

/** How long a service may take to answer a check. */
const serviceTimeoutMs = 5_000;

const ok = (part: string, detail: string): Finding => ({ part, state: 'ok', detail });
const off = (part: string, detail: string): Finding => ({ part, state: 'off', detail });

async function within<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer in ${serviceTimeoutMs} ms`)),
      serviceTimeoutMs,
    );
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

const messageOf = (error: unknown) => toTrawlError(error).message;

function nodeCheck(): Finding {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 15)
    ? ok('node', `Node.js ${process.versions.node}`)
    : {
        part: 'node',
        state: 'failed',
        detail: `Node.js ${process.versions.node}`,
        fix: 'install Node.js 22.15 or newer',
      };
}

function executableCheck(part: string, find: () => string, fix: string): Finding {
  try {
    return ok(part, find());
  } catch (error) {
    const message = messageOf(error);
    // A configured path that is wrong is a fault; nothing installed is only a missing option.
    const configured = /is .*, which is not an executable file/.test(message);
    return { part, state: configured ? 'failed' : 'missing', detail: message, fix };
  }
}

function filterListsCheck(config: TrawlConfig): Finding {
  const configured = config.engine.adblockLists;
  const paths = configured ?? debianFilterLists;
  const absent = paths.filter((path) => !existsSync(path));
  if (absent.length === 0) return ok('filter lists', paths.join(', '));
  return {
    part: 'filter lists',
    state: configured ? 'failed' : 'missing',
    detail: `not found: ${absent.join(', ')}`,
    fix: configured
      ? 'point TRAWL_ADBLOCK_LISTS at readable files'
      : 'apt-get install webext-ublock-origin-chromium (blockAds then blocks browser requests)',
  };
}

function ocrCheck(): Finding {
  try {
    // Resolved from the engine's package, where scanned PDF pages are read.
    const fromCore = createRequire(import.meta.resolve('@trawl/core'));
    fromCore.resolve('tesseract.js');
    return ok('ocr', `tesseract.js with ${fromCore.resolve('@tesseract.js-data/eng')}`);
  } catch (error) {
    return {
      part: 'ocr',
      state: 'missing',
      detail: messageOf(error),
      fix: 'reinstall @trawl/core with its dependencies (npm ci): scanned PDF pages stay empty',
    };
  }
}

async function storeCheck(config: TrawlConfig): Promise<Finding[]> {
  const where =
    config.storage.store === 'sqlite' ? `${config.dataDir}/trawl.db` : config.storage.store;
  let store;
  try {
    store = await within(openStore(config));
    const probe = `doctor-${process.pid}`;
    await within(store.set('doctor', probe, { at: Date.now() }));
    await within(store.delete('doctor', probe));
  } catch (error) {
    await store?.close().catch(() => undefined);
    const part = config.storage.store === 'postgres' ? 'postgresql' : 'store';
    return [
      {
        part,
        state: 'failed',
        detail: `${where}: ${messageOf(error)}`,
        fix:
          config.storage.store === 'sqlite'
            ? 'make TRAWL_DATA_DIR a writable folder'
            : `check ${config.storage.store === 'postgres' ? 'TRAWL_DATABASE_URL' : 'TRAWL_REDIS_URL'} and that the service runs`,
      },
    ];
  }
  try {
    const keys = await ApiKeys.load(store, config.server.apiKeys);
    const findings = [
      ok(
        config.storage.store === 'postgres' ? 'postgresql' : 'store',
        `${where} (read and written)`,
      ),
    ];
    findings.push(
      keys.keyless
        ? off(
            'keys',
            'none: the server is keyless and listens on loopback only (trawl keys create --team <name>)',
          )
        : ok('keys', 'the server requires an API key on every /v2 call'),
    );
    return findings;
  } finally {
    await store.close();
  }
}

async function redisCheck(config: TrawlConfig): Promise<Finding> {
  if (config.storage.redisUrl === undefined)
    return off('redis', 'not configured (TRAWL_REDIS_URL): limits are counted per process');
  const counters = await openCounters(config);
  try {
    await within(counters.held('doctor'));
    return ok('redis', config.storage.redisUrl.replace(/\/\/[^@/]*@/, '//…@'));
  } catch (error) {
    return {
      part: 'redis',
      state: 'failed',
      detail: messageOf(error),
      fix: 'check TRAWL_REDIS_URL and that Redis runs',
    };
  } finally {
    await counters.close().catch(() => undefined);
  }
}

async function llmCheck(config: TrawlConfig): Promise<Finding> {
  const llm = llmOf(config);
  if (!llm)
    return off(
      'llm',
      'not configured (TRAWL_LLM_BASE_URL, TRAWL_LLM_MODEL): LLM formats answer NOT_CONFIGURED',
    );
  try {
    await within(llm.complete({ messages: [{ role: 'user', content: 'Say OK.' }], maxTokens: 1 }));
    return ok('llm', `${config.server.llmModel ?? ''} at ${config.server.llmBaseUrl ?? ''}`);
  } catch (error) {
    return {
      part: 'llm',
      state: 'failed',
      detail: messageOf(error),
      fix: 'check TRAWL_LLM_BASE_URL, TRAWL_LLM_MODEL and TRAWL_LLM_API_KEY',
    };
  }
}

async function searxngCheck(config: TrawlConfig): Promise<Finding> {
  const base = config.server.searxngUrl;
  if (base === undefined)
    return off('searxng', 'not configured (TRAWL_SEARXNG_URL): search uses the built-in index');
  try {
    const url = new URL('search', base.endsWith('/') ? base : `${base}/`);
    url.search = 'q=trawl&format=json';
    const answer = await within(fetch(url, { signal: AbortSignal.timeout(serviceTimeoutMs) }));
    if (!answer.ok) throw new Error(`HTTP ${answer.status} from ${url.origin}`);
    await answer.json();
    return ok('searxng', base);
  } catch (error) {
    return {
      part: 'searxng',
      state: 'failed',
      detail: messageOf(error),
      fix: 'check TRAWL_SEARXNG_URL, and that its settings.yml enables the json format',
    };
  }
}

function guardCheck(config: TrawlConfig): Finding {
  return config.engine.allowPrivateAddresses
    ? {
        part: 'guard',
        state: 'ok',
        detail:
          'private addresses allowed for the CLI; trawl serve and trawl worker refuse them unless TRAWL_ALLOW_PRIVATE_ADDRESSES=true',
      }
    : ok('guard', 'private, loopback and link-local addresses are refused');
}

/** Every check, in the order an operator would look. */
export async function examine(config: TrawlConfig): Promise<Finding[]> {
  const [store, redis, llm, searxng] = await Promise.all([
    storeCheck(config),
    redisCheck(config),
    llmCheck(config),
    searxngCheck(config),
  ]);
  return [
    nodeCheck(),
    executableCheck(
      'chromium',
      () => findChromium({ configuredPath: config.engine.chromiumPath }),
      'apt-get install chromium, or set TRAWL_CHROMIUM_PATH (JS rendering, screenshots and actions need it)',
    ),
    filterListsCheck(config),
    executableCheck(
      'libreoffice',
      () => findSoffice(config.engine.sofficePath),
      'apt-get install libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui, or set TRAWL_SOFFICE_PATH (legacy DOC, XLS, PPT)',
    ),
    ocrCheck(),
    ...store,
    redis,
    llm,
    searxng,
    guardCheck(config),
  ];
}

/** The doctor command. */
export const doctorCommand: Command = {
  usage,
  async run(args, io) {
    const { values } = parseFlags(args, { json: { type: 'boolean' }, ...quietFlagOption });
    const findings = await examine(loadConfig({ role: 'cli', env: io.env }));
    if (values.json) io.stdout(findings.map((finding) => `${JSON.stringify(finding)}\n`).join(''));
    else {
      const width = Math.max(...findings.map((finding) => finding.part.length));
      for (const { part, state, detail, fix } of findings)
        io.stdout(
          `${state.padEnd(7)} ${part.padEnd(width)}  ${detail}${fix ? `\n${' '.repeat(width + 10)}fix: ${fix}` : ''}\n`,
        );
    }
    return findings.some((finding) => finding.state === 'failed') ? 1 : 0;
  },
};
