/**
 * robots.txt for crawls: fetched once per origin at crawl start, then asked for every discovered
 * URL (spec (b) step 3, "robots.txt"; issue 3, "Politeness").
 *
 * Rule matching is robots-parser's (MIT, pure JS, ships types): it implements RFC 9309's
 * longest-match precedence with `*` and `$` wildcards, Crawl-delay and Sitemap lines, and has
 * years of edge cases behind it that a hand-written parser would have to rediscover.
 */
import { createRequire } from 'node:module';
import type robotsParserTypes from 'robots-parser';
import type { EngineConfig } from '../config.ts';
import type { Fetcher, FetchRequest } from '../interfaces/fetcher.ts';

/** What loading a crawl resource (robots.txt, a sitemap) needs: the transport and its settings. */
export interface CrawlFetchDeps {
  /** The transport; tests and callers choose it. */
  fetcher: Fetcher;
  /** Engine settings: User-Agent, body and redirect limits, private-address policy. */
  config: EngineConfig;
  /**
   * Product token matched against `User-agent:` groups.
   * @default the token derived from `config.userAgent` (`Trawl` for the default), else `*`
   */
  userAgent?: string;
  /**
   * Budget for each fetch, in ms.
   * @default 10000
   */
  timeoutMs?: number;
  /** Cancels the fetches. */
  signal?: AbortSignal;
}

/** The rules of one origin's robots.txt, for one user agent. */
export interface RobotsRules {
  /** Whether the user agent may fetch `url`; URLs on other origins are not governed, so allowed. */
  isAllowed(url: URL): boolean;
  /** The group's Crawl-delay, in seconds, when it sets one. */
  readonly crawlDelaySeconds: number | undefined;
  /** Absolute URLs of the `Sitemap:` lines, in file order. */
  readonly sitemaps: string[];
  /** True when robots.txt could not be read (5xx or network failure) and everything is allowed. */
  readonly unreachable: boolean;
}

// robots-parser is CommonJS whose types declare `export default`, which NodeNext reads as
// `module.exports.default`; requiring it gives the function its types describe.
const robotsParser = createRequire(import.meta.url)(
  'robots-parser',
) as typeof robotsParserTypes.default;

// Crawl resources are small; a slow one should not hold up the crawl's start for long.
const defaultTimeoutMs = 10_000;

// Product tokens of the browser-like User-Agent strings; they never name the crawler.
const browserTokens = new Set([
  'mozilla',
  'applewebkit',
  'chrome',
  'chromium',
  'safari',
  'gecko',
  'firefox',
  'version',
  'mobile',
  'edg',
  'opr',
]);

/** The robots.txt product token for a User-Agent string: its last non-browser product, else `*`. */
export function robotsAgentToken(userAgent: string): string {
  // Parenthesised comments hold platforms and bot URLs (`(+https://example.com/bot)`), whose
  // `host/path` would otherwise read as a product.
  const bare = userAgent.replace(/\([^)]*\)/g, ' ');
  const products = [...bare.matchAll(/(?:^|\s)([A-Za-z][\w.-]*)\/\S+/g)].map((m) => m[1] ?? '');
  const own = products.filter((name) => !browserTokens.has(name.toLowerCase()));
  return own.at(-1) ?? '*';
}

/** Builds the fetch request for a crawl resource with the engine's limits. @internal */
export function crawlFetchRequest(url: URL, deps: CrawlFetchDeps, accept: string): FetchRequest {
  return {
    url,
    headers: { 'user-agent': deps.config.userAgent, accept },
    timeoutMs: deps.timeoutMs ?? defaultTimeoutMs,
    maxBodyBytes: deps.config.maxBodyBytes,
    maxRedirects: deps.config.maxRedirects,
    skipTlsVerification: false,
    blockPrivateAddresses: !deps.config.allowPrivateAddresses,
    mobile: false,
    ...(deps.signal ? { signal: deps.signal } : {}),
  };
}

/** Parses robots.txt text fetched from `robotsUrl` into the rules for `userAgent`. */
export function parseRobots(robotsUrl: URL, text: string, userAgent: string): RobotsRules {
  // An HTML page served as robots.txt (soft 404s, login walls) is no rule set; the parser would
  // ignore its lines anyway, but dropping it keeps stray `Disallow:` text in markup from counting.
  const body = /^\s*</.test(text) ? '' : text;
  const robots = robotsParser(robotsUrl.href, body);
  const origin = robotsUrl.origin;
  return {
    // robots-parser answers undefined for other origins; those are not this file's business.
    isAllowed: (url) => url.origin !== origin || robots.isAllowed(url.href, userAgent) !== false,
    crawlDelaySeconds: robots.getCrawlDelay(userAgent),
    sitemaps: robots.getSitemaps(),
    unreachable: false,
  };
}

/** Rules that allow everything, for a missing or unreadable robots.txt. */
function allowAll(unreachable: boolean): RobotsRules {
  return { isAllowed: () => true, crawlDelaySeconds: undefined, sitemaps: [], unreachable };
}

/**
 * Fetches `/robots.txt` of `origin` once and returns its rules for the crawler's user agent.
 *
 * A 4xx (404 included) means there are no rules (RFC 9309 §2.3.1.3). A 5xx or a network failure
 * also allows everything but sets `unreachable`: Google treats it as disallow-all for a while, but
 * a self-hosted crawler pointed at a site on purpose would then crawl nothing and report no
 * reason, so we allow and let the caller surface `unreachable`. Never throws for the file itself;
 * an aborted `signal` still rejects.
 *
 * @example
 * const rules = await loadRobots(new URL('https://example.com'), { fetcher, config });
 * rules.isAllowed(new URL('https://example.com/private/x')); // false when disallowed
 */
export async function loadRobots(origin: URL, deps: CrawlFetchDeps): Promise<RobotsRules> {
  const robotsUrl = new URL('/robots.txt', origin);
  const userAgent = deps.userAgent ?? robotsAgentToken(deps.config.userAgent);
  let response;
  try {
    response = await deps.fetcher.fetch(crawlFetchRequest(robotsUrl, deps, 'text/plain,*/*;q=0.5'));
  } catch (error) {
    // The caller cancelled: that is not an unreachable robots.txt.
    if (deps.signal?.aborted) throw error;
    return allowAll(true);
  }
  if (response.status >= 500) return allowAll(true);
  if (response.status >= 400) return allowAll(false);
  // A redirected robots.txt still speaks for the origin that was asked (RFC 9309 §2.3.1.2), so
  // the rules are keyed to `robotsUrl`, not to the final URL.
  return parseRobots(robotsUrl, new TextDecoder().decode(response.body), userAgent);
}
