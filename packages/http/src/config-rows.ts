/**
 * The table of every setting of the server and the CLI: key, environment variable, zod schema
 * (with its default) and the README's description. config.ts reads and resolves them; the
 * README's configuration table mirrors these rows (a test compares them).
 */
import { z } from 'zod';
import {
  booleanFromEnv,
  integerFromEnv,
  listFromEnv,
  pricesFromEnv,
  type ConfigRow,
} from './config-values.ts';
import { storageRows } from './config-storage.ts';

/** Every setting, in the order the README lists them. */
export const configRows = [
  {
    key: 'dataDir',
    env: 'TRAWL_DATA_DIR',
    schema: z.string().min(1).default('./.trawl'),
    description: 'Folder of the embedded SQLite store (page cache, jobs).',
  },
  ...storageRows,
  {
    key: 'proxyUrl',
    env: 'TRAWL_PROXY_URL',
    schema: z.url({ protocol: /^https?$/ }).optional(),
    description: "Proxy for `proxy: 'basic'`, and the fallback of `proxy: 'auto'`.",
  },
  {
    key: 'userAgent',
    env: 'TRAWL_USER_AGENT',
    schema: z.string().min(1).optional(),
    description: 'User-Agent of desktop requests.',
  },
  {
    key: 'mobileUserAgent',
    env: 'TRAWL_MOBILE_USER_AGENT',
    schema: z.string().min(1).optional(),
    description: 'User-Agent of `mobile: true` requests.',
  },
  {
    key: 'maxBodyBytes',
    env: 'TRAWL_MAX_BODY_BYTES',
    schema: integerFromEnv.positive().optional(),
    description: 'Largest response body read (bytes; default 20 MiB).',
  },
  {
    key: 'maxRedirects',
    env: 'TRAWL_MAX_REDIRECTS',
    schema: integerFromEnv.min(0).max(50).optional(),
    description: 'Redirects followed per fetch (default 10).',
  },
  {
    key: 'pageCacheTtlMs',
    env: 'TRAWL_PAGE_CACHE_TTL_MS',
    schema: integerFromEnv.positive().optional(),
    description: 'How long the page cache keeps a page (ms; default 30 days).',
  },
  {
    key: 'crawlConcurrency',
    env: 'TRAWL_CRAWL_CONCURRENCY',
    schema: integerFromEnv.positive().max(1000).optional(),
    description:
      'Pages a crawl or batch scrape fetches at once without maxConcurrency (default 10).',
  },
  {
    key: 'convertThreads',
    env: 'TRAWL_CONVERT_THREADS',
    schema: integerFromEnv.min(0).max(256).optional(),
    description:
      'Worker threads converting fetched pages, shared by every scrape, batch and crawl (0: on the main thread; default the cores less one, at least 1, and for `trawl serve` one per core).',
  },
  {
    key: 'hostConcurrency',
    env: 'TRAWL_HOST_CONCURRENCY',
    schema: integerFromEnv.positive().max(1000).optional(),
    description: 'Pages fetched at once from one host, across a job (default 10).',
  },
  {
    key: 'crawlRetries',
    env: 'TRAWL_CRAWL_RETRIES',
    schema: integerFromEnv.min(0).max(10).optional(),
    description: 'Retries of a page answering 429 or 503, honouring Retry-After (default 3).',
  },
  {
    key: 'maxCrawlLimit',
    env: 'TRAWL_MAX_CRAWL_LIMIT',
    schema: integerFromEnv.positive().optional(),
    description: 'Largest `limit` a crawl may ask for; above it: 400 (default 1000000).',
  },
  {
    key: 'chromiumPath',
    env: 'TRAWL_CHROMIUM_PATH',
    schema: z.string().min(1).optional(),
    description:
      'Chromium or Chrome executable of the browser engine. Unset: /usr/bin/chromium and the usual install paths.',
  },
  {
    key: 'sofficePath',
    env: 'TRAWL_SOFFICE_PATH',
    schema: z.string().min(1).optional(),
    description:
      'LibreOffice soffice executable that converts DOC, XLS and PPT for parse. Unset: /usr/bin/soffice and the usual install paths.',
  },
  {
    key: 'browserPagesPerCpu',
    env: 'TRAWL_BROWSER_PAGES_PER_CPU',
    schema: integerFromEnv.min(1).max(64).optional(),
    description: 'Browser pages open at once per CPU; more browser jobs wait (default 2).',
  },
  {
    key: 'browserIdleMs',
    env: 'TRAWL_BROWSER_IDLE_MS',
    schema: integerFromEnv.min(0).max(3_600_000).optional(),
    description: 'Chromium closes after this long without a job (ms; default 10000; 0: stays up).',
  },
  {
    key: 'autoBrowser',
    env: 'TRAWL_AUTO_BROWSER',
    schema: booleanFromEnv.optional(),
    description: 'Render pages whose HTML looks built by JavaScript in the browser (default true).',
  },
  {
    key: 'adblockLists',
    env: 'TRAWL_ADBLOCK_LISTS',
    schema: listFromEnv.optional(),
    description:
      "Filter lists (EasyList syntax) for `blockAds`, comma-separated paths. Default: EasyList and EasyPrivacy of Debian's webext-ublock-origin-chromium.",
  },
  {
    key: 'browserSessionsPerTeam',
    env: 'TRAWL_BROWSER_SESSIONS_PER_TEAM',
    schema: integerFromEnv.min(0).max(100).optional(),
    description: 'Interactive browser sessions (`/v2/browser`) a team may have open (default 3).',
  },
  {
    key: 'browserExecute',
    env: 'TRAWL_BROWSER_EXECUTE',
    schema: z.enum(['off', 'node']).optional(),
    description:
      'Whether browser sessions run code sent to `/v2/browser/{id}/execute`: `off` (default; 501 `NOT_CONFIGURED`) or `node`.',
  },
  {
    key: 'allowPrivateAddresses',
    env: 'TRAWL_ALLOW_PRIVATE_ADDRESSES',
    aliases: ['TRAWL_ALLOW_PRIVATE_TARGETS'],
    // No default here: the process's role gives it (config-roles.ts).
    schema: booleanFromEnv,
    description:
      'Allow fetching loopback and private addresses (default false for `trawl serve` and `trawl worker`, true for the other commands).',
  },
  {
    key: 'port',
    env: 'PORT',
    schema: integerFromEnv.min(0).max(65535).default(3002),
    description: 'Port of `trawl serve`.',
  },
  {
    key: 'host',
    env: 'TRAWL_HOST',
    schema: z.string().min(1).default('127.0.0.1'),
    description:
      'Address `trawl serve` listens on. Another address than loopback needs API keys (or `--allow-keyless-remote`).',
  },
  {
    key: 'apiKeys',
    env: 'TRAWL_API_KEYS',
    schema: z.string().optional(),
    description:
      'API keys of the server, comma-separated: `key` (team `default`) or `team:key`. None: keyless, loopback only.',
  },
  {
    key: 'logLevel',
    env: 'TRAWL_LOG_LEVEL',
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    description: 'Level of the server request log (JSON lines on stdout, pino).',
  },
  {
    key: 'rateLimitPerMinute',
    env: 'TRAWL_RATE_LIMIT_PER_MINUTE',
    schema: integerFromEnv.min(0).default(0),
    description:
      'Requests per minute a team may make per kind of call (scrape, crawl, status, map, account); 0: no limit. Over it: 429 with Retry-After.',
  },
  {
    key: 'teamConcurrency',
    env: 'TRAWL_TEAM_CONCURRENCY',
    schema: integerFromEnv.min(0).default(0),
    description:
      'Scrapes a team runs at once; more wait their turn (`metadata.concurrencyLimited`). 0: no limit.',
  },
  {
    key: 'teamCredits',
    env: 'TRAWL_TEAM_CREDITS',
    schema: integerFromEnv.min(0).optional(),
    description:
      'Credits of each team, charged at creditPrices; spent: 402. Unset: unlimited (the ledger is still kept).',
  },
  {
    key: 'creditPrices',
    env: 'TRAWL_CREDIT_PRICES',
    schema: pricesFromEnv.optional(),
    description:
      'Credits per kind of work, `name=credits` comma-separated: scrape, map, parse, search (per request), crawl, batch_scrape, monitor (per page, search query or judgment of a monitor check), monitor_json (per monitor page with a JSON extraction; 5 unset), llm_tokens (per 1,000 LLM tokens). Each other unset price is 1.',
  },
  {
    key: 'feedbackDailyRefundCap',
    env: 'TRAWL_FEEDBACK_DAILY_REFUND_CAP',
    schema: integerFromEnv.min(0).optional(),
    description: 'Most credits feedback gives a team back per UTC day (default 50).',
  },
  {
    key: 'searchFeedbackDailyRefundCap',
    env: 'TRAWL_SEARCH_FEEDBACK_DAILY_REFUND_CAP',
    schema: integerFromEnv.min(0).optional(),
    description: 'The same cap for feedback on searches (default 100).',
  },
  {
    key: 'feedbackWindowMs',
    env: 'TRAWL_FEEDBACK_WINDOW_MS',
    schema: integerFromEnv.min(1).optional(),
    description: 'How long after a job starts it takes feedback (ms; default 120000); later: 409.',
  },
  {
    key: 'feedbackOptedOutTeams',
    env: 'TRAWL_FEEDBACK_OPTED_OUT_TEAMS',
    schema: listFromEnv.optional(),
    description: 'Teams whose feedback is refused (403 `TEAM_OPTED_OUT`), comma-separated.',
  },
  {
    key: 'webhookSecret',
    env: 'TRAWL_WEBHOOK_SECRET',
    schema: z.string().min(1).optional(),
    description:
      "Secret each team's webhook signing key is derived from: `X-Firecrawl-Signature: sha256=<HMAC-SHA256 of the raw body under the team's key>`; `trawl keys webhook-secret --team <name>` prints a team's key.",
  },
  {
    key: 'webhookRetries',
    env: 'TRAWL_WEBHOOK_RETRIES',
    schema: integerFromEnv.min(0).max(10).default(3),
    description: 'Retries of a failed webhook delivery, after 1 s, 2 s, 4 s …',
  },
  {
    key: 'webhookLeaseMs',
    env: 'TRAWL_WEBHOOK_LEASE_MS',
    schema: integerFromEnv.min(1000).max(3_600_000).default(30_000),
    description:
      'How long a pending webhook delivery stays with the process trying it (renewed while it tries); another process on the same store takes over a delivery whose process died once this has passed.',
  },
  {
    key: 'monitorMinIntervalMinutes',
    env: 'TRAWL_MONITOR_MIN_INTERVAL_MINUTES',
    schema: integerFromEnv.min(1).max(1440).optional(),
    description:
      'Shortest gap between two runs of a monitor schedule, in minutes (default 5); a more frequent schedule is a 400.',
  },
  {
    key: 'monitorConcurrency',
    env: 'TRAWL_MONITOR_CONCURRENCY',
    schema: integerFromEnv.min(1).max(100).optional(),
    description: 'Monitor checks running at once; more wait as `queued` (default 4).',
  },
  {
    key: 'smtpUrl',
    env: 'TRAWL_SMTP_URL',
    schema: z
      .string()
      .regex(/^smtps?:\/\//, 'expected smtp://user:pass@host:port or smtps://…')
      .optional(),
    description:
      'SMTP server of monitor e-mail digests, `smtp://user:pass@host:port` (`smtps://` for TLS); unset: no e-mail.',
  },
  {
    key: 'smtpFrom',
    env: 'TRAWL_SMTP_FROM',
    schema: z.string().min(3).optional(),
    description: 'Sender of monitor e-mails (default `Trawl monitors <trawl@localhost>`).',
  },
  {
    key: 'llmBaseUrl',
    env: 'TRAWL_LLM_BASE_URL',
    schema: z.url({ protocol: /^https?$/ }).optional(),
    description:
      'OpenAI-compatible API (up to `/v1`) that judges monitor changes and extracts JSON; default `https://api.openai.com/v1` when a model is set.',
  },
  {
    key: 'llmModel',
    env: 'TRAWL_LLM_MODEL',
    schema: z.string().min(1).optional(),
    description:
      'Model of that API (e.g. `gpt-4o-mini`, `llama3.1:8b`); unset: no LLM, monitors judge by keywords (BM25).',
  },
  {
    key: 'llmApiKey',
    env: 'TRAWL_LLM_API_KEY',
    schema: z.string().min(1).optional(),
    description: 'Bearer key of the LLM API; local servers need none.',
  },
  {
    key: 'llmContextTokens',
    env: 'TRAWL_LLM_CONTEXT_TOKENS',
    schema: integerFromEnv.min(1024).optional(),
    description:
      'Context window of the LLM in tokens: page text is cut to it, longer pages are chunked and merged (default 8192).',
  },
  {
    key: 'llmToolCalls',
    env: 'TRAWL_LLM_TOOL_CALLS',
    schema: z.enum(['auto', 'native', 'json-action']).optional(),
    description:
      'How the agent offers tools to the model: `native` (the API\'s tool calling), `json-action` (a prompt asking for `{"tool", "arguments"}` JSON, for models without tool calling), or `auto` (default: native until the endpoint refuses `tools`).',
  },
  {
    key: 'llmDailyTokens',
    env: 'TRAWL_LLM_DAILY_TOKENS',
    schema: integerFromEnv.positive().optional(),
    description:
      'LLM tokens each team may use per UTC day; past it, requests asking for LLM formats get 429 with Retry-After. Unset: no cap.',
  },
  {
    key: 'searxngUrl',
    env: 'TRAWL_SEARXNG_URL',
    schema: z.url({ protocol: /^https?$/ }).optional(),
    description:
      'SearXNG instance (JSON format enabled) that `/v2/search` asks for web results; unset: search answers from the built-in index.',
  },
] as const satisfies readonly ConfigRow[];
