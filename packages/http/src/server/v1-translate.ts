/**
 * The v1 interface as a translation onto v2: v1 request bodies become v2 ones, and v2 answers
 * become v1 ones. Nothing here validates or runs anything; the v2 routes do, so v1 callers get
 * the same checks, limits and credits. What v1 has and v2 names differently:
 * - scrape: formats `screenshot@fullPage`, `extract` / `json` with `extract` / `jsonOptions`,
 *   `changeTracking` with `changeTrackingOptions`, `content` (markdown), `parsePDF`;
 * - crawl: `maxDepth`, `ignoreSitemap`, `allowBackwardLinks`;
 * - map: `ignoreSitemap`, `sitemapOnly`, and links as bare URLs in the answer;
 * - documents: `extract` for what v2 answers in `json` when the v1 format was `extract`.
 */

type Body = Record<string, unknown>;

const isObject = (value: unknown): value is Body =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A v1 `extract` / `jsonOptions` object as the settings of a v2 json format. */
function jsonSettings(options: unknown): Body {
  if (!isObject(options)) return {};
  const { systemPrompt, prompt, schema } = options;
  // v2's json format has no system prompt: it leads the prompt instead.
  const joined = [systemPrompt, prompt].filter((part) => typeof part === 'string' && part !== '');
  return {
    ...(schema !== undefined ? { schema } : {}),
    ...(joined.length > 0 ? { prompt: joined.join('\n\n') } : {}),
  };
}

/** Keys of a v1 scrape body that are spelled the same in v2. */
const sameScrapeKeys = new Set([
  'headers',
  'includeTags',
  'excludeTags',
  'onlyMainContent',
  'waitFor',
  'timeout',
  'location',
  'mobile',
  'skipTlsVerification',
  'removeBase64Images',
  'blockAds',
  'proxy',
  'actions',
  'maxAge',
  'storeInCache',
  'zeroDataRetention',
  'fastMode',
  'useMock',
  'origin',
  'integration',
]);

/** Whether a v1 scrape asked for the `extract` format, answered under `extract`. */
export function asksExtract(body: unknown): boolean {
  return isObject(body) && Array.isArray(body['formats']) && body['formats'].includes('extract');
}

/** v1 scrape options (flat, as in `/v1/scrape`, or `scrapeOptions`) as v2 scrape options. */
export function scrapeOptionsToV2(options: Body): Body {
  const out: Body = {};
  for (const [key, value] of Object.entries(options)) {
    if (sameScrapeKeys.has(key)) out[key] = value;
  }
  if (Array.isArray(options['formats'])) {
    out['formats'] = (options['formats'] as unknown[]).flatMap((format): unknown[] => {
      if (format === 'content') return ['markdown'];
      if (format === 'screenshot@fullPage') return [{ type: 'screenshot', fullPage: true }];
      if (format === 'extract') return [{ type: 'json', ...jsonSettings(options['extract']) }];
      if (format === 'json') return [{ type: 'json', ...jsonSettings(options['jsonOptions']) }];
      if (format === 'changeTracking') {
        const settings = isObject(options['changeTrackingOptions'])
          ? options['changeTrackingOptions']
          : {};
        return [{ ...settings, type: 'changeTracking' }];
      }
      return [format];
    });
    // Both `extract` and `json` map onto the one json format of v2.
    const formats = out['formats'] as unknown[];
    const jsonAt = formats.findIndex((format) => isObject(format) && format['type'] === 'json');
    out['formats'] = formats.filter(
      (format, index) => !(isObject(format) && format['type'] === 'json' && index !== jsonAt),
    );
  }
  if (options['parsePDF'] === false) out['parsers'] = [];
  return out;
}

/** A v1 `/v1/scrape` body (url + flat options) as a v2 one. */
export function scrapeToV2(body: Body): Body {
  return { url: body['url'], ...scrapeOptionsToV2(body) };
}

/** A v1 `/v1/batch/scrape` body as a v2 one. */
export function batchToV2(body: Body): Body {
  const out: Body = { urls: body['urls'], ...scrapeOptionsToV2(body) };
  for (const key of ['webhook', 'ignoreInvalidURLs', 'maxConcurrency', 'appendToId']) {
    if (body[key] !== undefined) out[key] = body[key];
  }
  return out;
}

/** Crawl keys spelled the same in v1 and v2. */
const sameCrawlKeys = [
  'url',
  'includePaths',
  'excludePaths',
  'maxDiscoveryDepth',
  'ignoreQueryParameters',
  'limit',
  'crawlEntireDomain',
  'allowExternalLinks',
  'allowSubdomains',
  'ignoreRobotsTxt',
  'delay',
  'maxConcurrency',
  'webhook',
  'deduplicateSimilarURLs',
  'regexOnFullURL',
  'zeroDataRetention',
  'origin',
  'integration',
];

/** A v1 `/v1/crawl` body as a v2 one. */
export function crawlToV2(body: Body): Body {
  const out: Body = {};
  for (const key of sameCrawlKeys) if (body[key] !== undefined) out[key] = body[key];
  // v1's maxDepth counts from the site root; v2 has only the discovery depth from the start.
  if (body['maxDepth'] !== undefined && out['maxDiscoveryDepth'] === undefined)
    out['maxDiscoveryDepth'] = body['maxDepth'];
  if (body['ignoreSitemap'] === true) out['sitemap'] = 'skip';
  if (body['allowBackwardLinks'] === true && out['crawlEntireDomain'] === undefined)
    out['crawlEntireDomain'] = true;
  if (isObject(body['scrapeOptions']))
    out['scrapeOptions'] = scrapeOptionsToV2(body['scrapeOptions']);
  return out;
}

/** A v1 `/v1/map` body as a v2 one. */
export function mapToV2(body: Body): Body {
  const out: Body = {};
  for (const key of [
    'url',
    'search',
    'includeSubdomains',
    'ignoreQueryParameters',
    'limit',
    'timeout',
    'location',
    'origin',
    'integration',
  ]) {
    if (body[key] !== undefined) out[key] = body[key];
  }
  if (body['sitemapOnly'] === true) out['sitemap'] = 'only';
  else if (body['ignoreSitemap'] === true) out['sitemap'] = 'skip';
  return out;
}

/** A v1 `/v1/extract` body as a v2 one (the same fields; scrape options translated). */
export function extractToV2(body: Body): Body {
  const out: Body = { ...body };
  if (isObject(body['scrapeOptions']))
    out['scrapeOptions'] = scrapeOptionsToV2(body['scrapeOptions']);
  return out;
}

/** A v2 document as v1 has it: a v1 `extract` format answers under `extract`. */
export function documentToV1(document: unknown, extract: boolean): unknown {
  if (!extract || !isObject(document) || !('json' in document)) return document;
  const { json, ...rest } = document;
  return { ...rest, extract: json };
}

/** A v2 map answer as v1's: links as bare URLs. */
export function mapToV1(answer: Body): Body {
  if (!Array.isArray(answer['links'])) return answer;
  return {
    ...answer,
    links: (answer['links'] as unknown[]).map((link) =>
      isObject(link) && typeof link['url'] === 'string' ? link['url'] : link,
    ),
  };
}

/** `/v2/` in a URL the v2 answer gave (`url`, `next`) as `/v1/`, so v1 clients read on in v1. */
export function urlToV1(url: unknown): unknown {
  return typeof url === 'string' ? url.replace('/v2/', '/v1/') : url;
}
