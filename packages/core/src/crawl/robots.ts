/**
 * robots.txt for crawls: fetched once per origin at crawl start, then asked for every discovered
 * URL (spec (b) step 3, "robots.txt"). The site writes this file, so it is read only up to
 * RFC 9309's 500 KiB and compiled once (see robots-rules.ts for why matching is our own).
 */
import type { EngineConfig } from '../config.ts';
import type { Fetcher, FetchRequest } from '../interfaces/fetcher.ts';
import { setImmediate } from 'node:timers/promises';
import { parseRobotsText, type ParsedRobots } from './robots-rules.ts';

/**
 * How much of a robots.txt is read: RFC 9309 §2.5 lets a crawler stop at 500 KiB, and what
 * follows is ignored rather than failing the file.
 */
export const robotsMaxBytes = 500 * 1024;

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
  return rulesOf(robotsUrl, parseRobotsText(withoutMarkup(text)), userAgent);
}

/**
 * An HTML page served as robots.txt (soft 404s, login walls) is no rule set; the parser would
 * ignore its lines anyway, but dropping it keeps stray `Disallow:` text in markup from counting.
 */
const withoutMarkup = (text: string) => (/^\s*</.test(text) ? '' : text);

/** The rules of a parsed file for `userAgent` (compiling them). */
function rulesOf(robotsUrl: URL, parsed: ParsedRobots, userAgent: string): RobotsRules {
  const { matcher, crawlDelaySeconds } = parsed.groupFor(userAgent);
  const origin = robotsUrl.origin;
  return {
    // Other origins are not this file's business.
    isAllowed: (url) => url.origin !== origin || matcher.isAllowed(url.pathname + url.search),
    crawlDelaySeconds,
    sitemaps: parsed.sitemaps.flatMap((line) => {
      const sitemap = URL.parse(line, robotsUrl.href);
      return sitemap ? [sitemap.href] : [];
    }),
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
    response = await deps.fetcher.fetch({
      ...crawlFetchRequest(robotsUrl, deps, 'text/plain,*/*;q=0.5'),
      maxBodyBytes: robotsMaxBytes,
      overflow: 'truncate',
    });
  } catch (error) {
    // The caller cancelled: that is not an unreachable robots.txt.
    if (deps.signal?.aborted) throw error;
    return allowAll(true);
  }
  if (response.status >= 500) return allowAll(true);
  if (response.status >= 400) return allowAll(false);
  // A redirected robots.txt still speaks for the origin that was asked (RFC 9309 §2.3.1.2), so
  // the rules are keyed to `robotsUrl`, not to the final URL.
  let text = new TextDecoder().decode(response.body);
  // A file cut at the limit ends in half a line (`Disallow: /*a` of a longer rule would block
  // far more than its author meant): the cut line is dropped.
  if (response.body.length >= robotsMaxBytes) text = text.slice(0, text.lastIndexOf('\n') + 1);
  // Parsing and compiling a 500 KiB file are each a few tens of ms on the thread that answers
  // requests: other work gets in between them.
  await setImmediate();
  const parsed = parseRobotsText(withoutMarkup(text));
  await setImmediate();
  return rulesOf(robotsUrl, parsed, userAgent);
}
