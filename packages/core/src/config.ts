/**
 * Engine configuration: every engine-wide default lives here, once. Per-request defaults live in
 * each capability's `options.ts`. Core reads no environment; packages/http maps env variables and
 * the config file onto this schema.
 */
import { z } from 'zod';
import { ValidationError } from './errors.ts';
import { zodIssuesToFieldIssues } from './internal/zod.ts';
import type { Fetcher } from './interfaces/fetcher.ts';
import type { LlmProvider, LlmUsage } from './interfaces/llm-provider.ts';
import type { MediaSink } from './interfaces/media-sink.ts';
import type { Store } from './interfaces/store.ts';
import { daysMs } from './internal/time.ts';
import { defaultConvertThreads } from './internal/cores.ts';

const desktopUserAgent =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Trawl/0.1';
const mobileUserAgent =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36 Trawl/0.1';

/** The serialisable part of the engine configuration. */
export const engineConfigSchema = z
  .strictObject({
    /**
     * User-Agent sent on desktop requests.
     * @default a current desktop Chrome string with a Trawl suffix
     */
    userAgent: z.string().min(1).default(desktopUserAgent),
    /**
     * User-Agent sent when `mobile: true`.
     * @default a current Android Chrome string with a Trawl suffix
     */
    mobileUserAgent: z.string().min(1).default(mobileUserAgent),
    /**
     * Largest response body read, in bytes; larger bodies fail with CONTENT_TOO_LARGE.
     * @default 20 MiB
     */
    maxBodyBytes: z
      .number()
      .int()
      .positive()
      .default(20 * 1024 * 1024),
    /**
     * Redirects followed before a fetch fails.
     * @default 10
     */
    maxRedirects: z.number().int().min(0).max(50).default(10),
    /**
     * Proxy URL used for `proxy: 'basic'` and as the first try of `proxy: 'auto'`
     * (http:// or https://). Unset: requests go direct.
     */
    proxyUrl: z.url({ protocol: /^https?$/ }).optional(),
    /**
     * Whether private, loopback and link-local targets may be fetched. The library allows them;
     * the server turns this off unless the operator allows them.
     * @default true
     */
    allowPrivateAddresses: z.boolean().default(true),
    /**
     * How long the page cache keeps a response, in ms. `maxAge` picks among what is kept.
     * @default 30 days
     */
    pageCacheTtlMs: z.number().int().positive().default(daysMs(30)),
    /**
     * Worker threads that convert fetched HTML pages (parse, clean, main content, markdown,
     * links), shared by scrape, batch scrape, crawl and the server. 0 converts on the calling
     * thread, which then does all the CPU work of every page. The default leaves one core to the
     * main thread, which fetches, writes the store and the output: a crawl keeps it about half
     * busy, and a thread more than the cores only adds switching and memory (bench/README.md).
     * @default the machine's cores less one, at least 1
     */
    convertThreads: z.number().int().min(0).max(256).default(defaultConvertThreads),
    /**
     * Pages a crawl or batch scrape fetches at once when the request sets no maxConcurrency.
     * @default 10
     */
    crawlConcurrency: z.number().int().positive().max(1000).default(10),
    /**
     * Pages fetched at once from one host, whatever the job's concurrency: politeness towards
     * each site when a crawl spans several.
     * @default 10
     */
    hostConcurrency: z.number().int().positive().max(1000).default(10),
    /**
     * How often a page answering 429 or 503 is tried again, waiting for its Retry-After (or
     * an exponential backoff) in between.
     * @default 3
     */
    crawlRetries: z.number().int().min(0).max(10).default(3),
    /**
     * Largest `limit` a crawl may ask for; above it the crawl is refused with a 400 naming this
     * maximum (a limit of 1e12 would otherwise be taken at its word).
     * @default 1000000
     */
    maxCrawlLimit: z.number().int().positive().default(1_000_000),
    /**
     * Shortest time between two runs of a monitor schedule, in minutes: a schedule that can run
     * more often is refused (the hosted service's floor is 5).
     * @default 5
     */
    monitorMinIntervalMinutes: z.number().int().min(1).max(1440).default(5),
    /**
     * Monitor checks running at once; more wait as `queued`.
     * @default 4
     */
    monitorConcurrency: z.number().int().positive().max(100).default(4),
    /**
     * Chromium (or Chrome) executable of the browser engine. Unset: /usr/bin/chromium and the
     * other usual install paths are tried. The server reads it from TRAWL_CHROMIUM_PATH.
     */
    chromiumPath: z.string().min(1).optional(),
    /**
     * LibreOffice's soffice, which converts legacy DOC, XLS and PPT files for parse. Unset:
     * /usr/bin/soffice and the other usual install paths. The server reads it from
     * TRAWL_SOFFICE_PATH.
     */
    sofficePath: z.string().min(1).optional(),
    /**
     * Browser pages open at once, per CPU of the machine; further browser jobs wait.
     * @default 2
     */
    browserPagesPerCpu: z.number().int().min(1).max(64).default(2),
    /**
     * How long Chromium stays up with nothing to do before it is closed, in ms (0: until the
     * engine closes it). A script that used the browser exits after this, or at closeBrowsers().
     * @default 10000
     */
    browserIdleMs: z.number().int().min(0).max(3_600_000).default(10_000),
    /**
     * Jobs one Chromium process serves before it is replaced by a fresh one.
     * @default 200
     */
    browserRetireAfterPages: z.number().int().positive().default(200),
    /**
     * Render a page in the browser when its HTTP answer looks rendered by JavaScript (an empty
     * app root, a noscript hint). Off: only actions, waitFor, screenshot, branding and profile
     * use the browser.
     * @default true
     */
    autoBrowser: z.boolean().default(true),
    /**
     * Filter lists (EasyList syntax) that `blockAds` blocks requests with in the browser.
     * @default EasyList and EasyPrivacy as Debian's webext-ublock-origin-chromium installs them
     */
    adblockLists: z.array(z.string().min(1)).max(20).optional(),
    /**
     * Interactive browser sessions (`/v2/browser`) a team may have open at once.
     * @default 3
     */
    browserSessionsPerTeam: z.number().int().min(0).max(100).default(3),
    /**
     * Whether browser sessions run callers' code (`execute` with `code`): `off` refuses it, `node`
     * runs it in a child Node process under the permission model.
     * @default 'off'
     */
    browserExecute: z.enum(['off', 'node']).default('off'),
    /**
     * Tokens of the LLM's context window: page text shown to the model is cut to fit it, and a
     * longer page is split in chunks whose answers are merged.
     * @default 8192
     */
    llmContextTokens: z.number().int().min(1024).max(2_000_000).default(8192),
    /**
     * Most chunks (LLM calls) one page is split in for one format; text past them is left out
     * with a warning.
     * @default 16
     */
    llmMaxChunksPerPage: z.number().int().min(1).max(256).default(16),
  })
  .describe('Engine-wide settings of Trawl.');

/** What callers pass to configure the engine. */
export type EngineConfigInput = z.input<typeof engineConfigSchema>;
/** The engine configuration with every default applied. */
export type EngineConfig = Readonly<z.output<typeof engineConfigSchema>>;

/** Validates engine settings and applies defaults; the result is frozen. @throws BAD_REQUEST */
export function resolveEngineConfig(input: EngineConfigInput = {}): EngineConfig {
  const parsed = engineConfigSchema.safeParse(input);
  if (!parsed.success) {
    throw new ValidationError(`Invalid engine configuration: ${parsed.error.issues[0]?.message}`, {
      details: zodIssuesToFieldIssues(parsed.error.issues),
    });
  }
  return Object.freeze(parsed.data);
}

/**
 * The team of work that names none: the library, the CLI, a keyless server and a bare API key.
 * What it scrapes is cached and indexed for this team only, like any other team's.
 */
export const defaultTeam = 'default';

/** Services a call may run with; each falls back to the embedded default when left out. */
export interface EngineContext {
  /** Engine settings; defaults when omitted. */
  config?: EngineConfig;
  /** Where the page cache lives; without a store, nothing is cached. */
  store?: Store;
  /** Fetchers to use instead of the built-in ones (tests, custom transports). */
  fetchers?: readonly Fetcher[];
  /** Cancels the work. */
  signal?: AbortSignal;
  /**
   * Who the work is for: browser profiles (`profile`), the page cache and the search index are
   * kept per team; a team reads back only what was written for it.
   * @default 'default' (`defaultTeam`)
   */
  team?: string;
  /**
   * Where screenshots and PDFs go: the server stores them and answers with their URL. Without
   * it they are returned inline as data URIs.
   */
  media?: MediaSink;
  /** The model of the json, summary, question and other LLM formats; without it they are refused. */
  llm?: LlmProvider;
  /** Told the tokens of every LLM call the work makes (the server charges them to the job). */
  onLlmUsage?: (usage: LlmUsage) => void;
  /**
   * Refuses a page by the URL it ends at after redirects, before anything reads its content
   * (the agent's `strictConstrainToURLs`): why, or undefined to read it. A refused page fails
   * with CRAWL_URL_DENIED.
   */
  refusePage?: (finalUrl: string) => string | undefined;
}
