/**
 * What makes a job a crawl: the start page first, then its links and the site's sitemaps, each
 * URL through the scope filter, robots.txt, dedupe and the limit (spec (b)); redirects and
 * canonical links counted once.
 */
import type { Fetcher } from '../interfaces/fetcher.ts';
import type { ScrapeOutcome } from '../scrape/engine.ts';
import type { ResolvedScrapeOptions } from '../scrape/options.ts';
import type { QueueItem } from './frontier.ts';
import type { JobRunner } from './job.ts';
import type { JobPlan, PageVerdict } from './plan.ts';
import type { ResolvedCrawlOptions } from './options.ts';
import { loadRobots, robotsAgentToken, type RobotsRules } from './robots.ts';
import { isSitemapUrl, loadSitemaps } from './sitemap.ts';
import { parseableDocumentExtensions } from '../convert/detect.ts';
import { CrawlScope, extensionOf, fetchableUrl, urlKey, type UrlKeyOptions } from './url-filter.ts';
import { STATUS_CODES } from 'node:http';

const robotsWarning =
  'One or more pages were unable to be crawled because the robots.txt file prevented this. Set ignoreRobotsTxt to crawl them if you are allowed to.';
/**
 * How a sitemap the crawl could not read starts its entry in `errors()`: monitors tell these
 * (the crawl's way to find pages, not pages) from failed pages by it.
 */
export const sitemapIssuePrefix = 'sitemap skipped: ';

/** How long URL filtering runs before it lets other work on the thread in, in ms. */
const takeSliceMs = 20;

const documentsNeedParse =
  'skipped: parsing this kind of document (DOC, XLS, PPT, ODT, RTF, EPUB) is not available yet; PDF, DOCX, XLSX and PPTX links are crawled';

/** The crawl side of a job. */
export class CrawlPlan implements JobPlan {
  readonly scrapeOptions: ResolvedScrapeOptions;
  readonly firstAlone: boolean;
  delaySeconds: number | undefined;
  readonly #options: ResolvedCrawlOptions;
  readonly #startUrl: URL;
  /** The start URL, or where the start page redirected to on another host. */
  #siteUrl: URL;
  readonly #scope: CrawlScope;
  readonly #fetcher: Fetcher;
  readonly #keyOptions: UrlKeyOptions;
  /** Keys taken, blocked or over the limit: each URL is looked at once. */
  readonly #seen = new Set<string>();
  readonly #robots = new Map<string, Promise<RobotsRules>>();
  /** Loaded robots.txt rules by origin, for the synchronous check at discovery. */
  readonly #robotsReady = new Map<string, RobotsRules>();
  /** Pages dropped as duplicates of their canonical URL, by key, with that URL's key. */
  readonly #droppedForCanonical = new Map<string, string>();

  constructor(startUrl: URL, options: ResolvedCrawlOptions, fetcher: Fetcher) {
    this.#options = options;
    this.#startUrl = startUrl;
    this.#siteUrl = startUrl;
    this.#fetcher = fetcher;
    this.scrapeOptions = {
      ...(options.scrapeOptions as ResolvedScrapeOptions),
      zeroDataRetention: options.zeroDataRetention || options.scrapeOptions.zeroDataRetention,
    };
    this.delaySeconds = options.delay;
    this.#keyOptions = {
      ignoreQueryParameters: options.ignoreQueryParameters,
      deduplicateSimilarURLs: options.deduplicateSimilarURLs,
    };
    // A start URL naming a sitemap is read as one, and its folder is the start path.
    this.firstAlone = !isSitemapUrl(startUrl);
    this.#scope = new CrawlScope(this.firstAlone ? startUrl : new URL('./', startUrl), options);
  }

  async seed(job: JobRunner): Promise<void> {
    await this.#loadStartRobots(job);
    if (!this.firstAlone) {
      await this.#enqueueSitemaps(job);
      job.state.record.seeded = true;
      await job.state.saveRecord();
      return;
    }
    // The start page is entry 0 whatever happened before: a kill between taking the number and
    // writing the entry left a job with nothing queued, that a restart never finished.
    const start = fetchableUrl(this.#startUrl, false);
    const key = urlKey(start, this.#keyOptions);
    this.#seen.add(key);
    const { state } = job;
    if (state.record.nextSeq === 0) await state.reserve(1);
    if (job.taken === 0) job.countTaken(1);
    if (job.progress.discovered === 0) job.countDiscovered(1);
    if ((await state.outcomeOf(0)) === undefined) {
      await state.enqueue([{ seq: 0, url: start.href, depth: 0, key }]);
    }
    job.wake();
  }

  async restore(job: JobRunner): Promise<void> {
    for await (const { key } of job.state.scan('s/')) this.#seen.add(key.slice(2));
    for await (const { key } of job.state.scan('b/')) this.#seen.add(key.slice(2));
    for await (const { value } of job.state.scan<QueueItem>('q/')) this.#seen.add(value.key);
    if (job.state.record.seeded) await this.#loadStartRobots(job);
  }

  async afterFirst(job: JobRunner): Promise<void> {
    await this.#enqueueSitemaps(job);
  }

  async admit(job: JobRunner, item: QueueItem): Promise<boolean> {
    if (this.#options.ignoreRobotsTxt) return true;
    const url = new URL(item.url);
    const rules = await this.#robotsFor(url, job);
    if (rules.isAllowed(url)) return true;
    await job.recordRobotsBlocked(item.key, item.url);
    return false;
  }

  async review(job: JobRunner, item: QueueItem, outcome: ScrapeOutcome): Promise<PageVerdict> {
    const { metadata } = outcome.document;
    const isStart = this.firstAlone && item.seq === 0;
    const finalUrl = new URL(metadata.url ?? item.url);
    if (isStart && finalUrl.hostname !== this.#startUrl.hostname) {
      // The site lives elsewhere: the crawl follows its start page there.
      this.#scope.moveTo(finalUrl);
      this.#siteUrl = finalUrl;
    }
    const status = metadata.statusCode ?? 200;
    if (status >= 400) {
      return {
        keep: false,
        error: {
          code: 'SCRAPE_HTTP_ERROR',
          message: `${item.url} answered HTTP ${status} ${STATUS_CODES[status] ?? ''}`.trim(),
        },
      };
    }
    const finalKey = urlKey(fetchableUrl(finalUrl, this.#options.ignoreQueryParameters), {
      ...this.#keyOptions,
    });
    if (finalKey !== item.key) {
      if (!isStart) {
        const refusal = this.#scope.refuse(finalUrl, true);
        if (refusal && refusal !== 'document') {
          return {
            keep: false,
            error: {
              code: 'CRAWL_URL_DENIED',
              message: `${item.url} redirected to ${finalUrl.href}, outside the crawl (${refusal})`,
            },
          };
        }
      }
      // Redirects count once: a target already taken is crawled (or was) under its own URL.
      if (this.#seen.has(finalKey)) return { keep: false, dropReason: 'redirect-duplicate' };
      this.#seen.add(finalKey);
      await job.state.alias(finalKey);
    }
    let canonicalDuplicate = false;
    const canonical = metadata.canonicalUrl ? URL.parse(metadata.canonicalUrl) : null;
    if (canonical && (canonical.protocol === 'http:' || canonical.protocol === 'https:')) {
      const canonicalUrl = fetchableUrl(canonical, this.#options.ignoreQueryParameters);
      const canonicalKey = urlKey(canonicalUrl, this.#keyOptions);
      if (
        canonicalKey !== item.key &&
        canonicalKey !== finalKey &&
        this.#scope.refuse(canonicalUrl, true) === undefined
      ) {
        if (!this.#seen.has(canonicalKey)) {
          // This page stands for its canonical URL, which is then not fetched again.
          this.#seen.add(canonicalKey);
          await job.state.alias(canonicalKey);
        } else if (this.#droppedForCanonical.get(canonicalKey) !== item.key) {
          // In a canonical loop the first page keeps; otherwise the canonical page does.
          canonicalDuplicate = true;
          this.#droppedForCanonical.set(item.key, canonicalKey);
        }
      }
    }
    const depthAllows =
      this.#options.maxDiscoveryDepth === undefined || item.depth < this.#options.maxDiscoveryDepth;
    if (this.#options.sitemap !== 'only' && depthAllows) {
      await this.#take(job, outcome.links, item.depth + 1, this.#scope.isInternal(finalUrl));
    }
    if (isStart) {
      const refusal = this.#scope.refuseByPatterns(new URL(item.url));
      if (refusal) {
        return {
          keep: false,
          error: {
            code: 'CRAWL_URL_DENIED',
            message: `The start URL ${item.url} is ${refusal === 'excluded' ? 'matched by excludePaths' : 'not matched by includePaths'}; its links were still followed`,
          },
        };
      }
    }
    if (canonicalDuplicate) return { keep: false, dropReason: 'canonical-duplicate' };
    return { keep: true };
  }

  warning(job: JobRunner): string | undefined {
    const notes: string[] = [];
    if (this.#options.prompt) {
      notes.push(
        'prompt was not applied: turning it into crawl options needs an LLM, which is not configured; the explicit options were used',
      );
    }
    const { robotsBlocked, scraped } = job.progress;
    if (robotsBlocked > 0) {
      notes.push(robotsWarning);
    } else if (
      scraped <= 1 &&
      this.#startUrl.pathname !== '/' &&
      !this.#options.crawlEntireDomain
    ) {
      notes.push(
        `Only ${scraped} result(s) found. For broader coverage, try crawling with crawlEntireDomain=true or start from a higher-level path like ${this.#startUrl.origin}/`,
      );
    }
    return notes.length > 0 ? notes.join(' ') : undefined;
  }

  /** Filters, dedupes and queues URLs found at `depth`. */
  async #take(
    job: JobRunner,
    links: readonly string[],
    depth: number,
    fromInternal: boolean,
  ): Promise<void> {
    const batch: Omit<QueueItem, 'seq'>[] = [];
    let sliceStart = performance.now();
    for (const href of links) {
      // A page of 100,000 links, each checked against a site's robots.txt, is seconds of work on
      // the thread that also answers requests: it is done in slices, letting them in between.
      if (performance.now() - sliceStart > takeSliceMs) {
        await new Promise((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
      const parsed = URL.parse(href);
      if (!parsed) continue;
      const url = fetchableUrl(parsed, this.#options.ignoreQueryParameters);
      const refusal = this.#scope.refuse(url, fromInternal);
      if (refusal === 'document' && !parseableDocumentExtensions.has(extensionOf(url))) {
        await this.#skipDocument(job, url);
        continue;
      }
      if (refusal && refusal !== 'document') continue;
      const key = urlKey(url, this.#keyOptions);
      if (this.#seen.has(key)) continue;
      this.#seen.add(key);
      job.countDiscovered(1);
      if (!this.#options.ignoreRobotsTxt) {
        const rules = this.#robotsReady.get(url.origin);
        if (rules && !rules.isAllowed(url)) {
          await job.recordRobotsBlocked(key, url.href);
          continue;
        }
      }
      if (job.taken + batch.length >= this.#options.limit) continue;
      batch.push({ url: url.href, depth, key });
    }
    await job.enqueue(batch);
  }

  async #skipDocument(job: JobRunner, url: URL): Promise<void> {
    const key = urlKey(url, this.#keyOptions);
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    await job.recordIssue(`doc:${key}`, url.href, 'UNSUPPORTED_FILE_TYPE', documentsNeedParse);
  }

  async #enqueueSitemaps(job: JobRunner): Promise<void> {
    if (this.#options.sitemap === 'skip' && this.firstAlone) return;
    const startUrl = this.#siteUrl;
    const robots = this.#robotsReady.get(startUrl.origin);
    const result = await loadSitemaps(startUrl, {
      fetcher: this.#fetcher,
      config: job.config,
      robotsSitemaps: robots?.sitemaps ?? [],
      signal: job.signal,
    });
    for (const failure of result.errors) {
      await job.recordIssue(
        `sitemap:${failure.url}`,
        failure.url,
        failure.code,
        `${sitemapIssuePrefix}${failure.error}`,
      );
    }
    await this.#take(job, result.urls, 0, true);
  }

  async #loadStartRobots(job: JobRunner): Promise<void> {
    const rules = await this.#robotsFor(this.#startUrl, job);
    if (!this.#options.ignoreRobotsTxt && this.delaySeconds === undefined) {
      const crawlDelay = rules.crawlDelaySeconds;
      if (crawlDelay !== undefined && crawlDelay > 0) this.delaySeconds = Math.min(crawlDelay, 60);
    }
  }

  #robotsFor(url: URL, job: JobRunner): Promise<RobotsRules> {
    let rules = this.#robots.get(url.origin);
    if (!rules) {
      const agent = this.#options.robotsUserAgent;
      rules = loadRobots(new URL(url.origin), {
        fetcher: this.#fetcher,
        config: agent ? { ...job.config, userAgent: agent } : job.config,
        // A bare token (`MyBot`) is its own product name.
        userAgent: agent
          ? agent.includes('/')
            ? robotsAgentToken(agent)
            : agent
          : robotsAgentToken(job.config.userAgent),
        signal: job.signal,
      }).then((loaded) => {
        this.#robotsReady.set(url.origin, loaded);
        return loaded;
      });
      this.#robots.set(url.origin, rules);
    }
    return rules;
  }
}
