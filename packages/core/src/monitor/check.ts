/**
 * One check of a monitor: scrape every page of its targets, classify each against its baseline
 * (`same`, `changed`, `new`, `removed`, `error`), diff and judge what changed, record the pages
 * and tell the notifiers.
 *
 * Rules (monitoring.md): an `error` never replaces a baseline, so a page that fails and then
 * recovers unchanged is `same`; `removed` is only decided for crawl targets whose crawl finished
 * without hitting its `limit` (a cut-short crawl marks nothing removed and says so in the check's
 * `warning`); a page seen again after being removed is `new`.
 *
 * Baselines move only when the check runs to its end (baselines.ts): what it sees is staged
 * under the check and committed once its final record is saved, so a check cut short leaves the
 * last finished check's baselines for the next one to compare against.
 */
import type { EngineConfig, EngineContext } from '../config.ts';
import { sitemapIssuePrefix } from '../crawl/crawl-plan.ts';
import { crawl } from '../crawl/index.ts';
import { MemoryStore } from '../defaults/memory-store.ts';
import type { Document } from '../document.ts';
import { toTrawlError } from '../errors.ts';
import type { LlmProvider } from '../interfaces/llm-provider.ts';
import type { Notifier } from '../interfaces/notifier.ts';
import type { SearchProvider } from '../interfaces/search-provider.ts';
import { extractJson, type JsonExtraction } from '../llm/extract-json.ts';
import { scrape } from '../scrape/index.ts';
import type { FormatSpec, ScrapeOptions } from '../scrape/options.ts';
import { Baselines } from './baselines.ts';
import { changedLines, contentHash, gitDiff, jsonDiff, normaliseContent } from './diff.ts';
import { judgeByKeywords, judgeWithLlm, type JudgeInput } from './judge.ts';
import type { MonitorRecords, Snapshot } from './records.ts';
import { runSearchTarget } from './search-target.ts';
import type {
  CheckSummary,
  Monitor,
  MonitorCheck,
  MonitorCheckPage,
  MonitorTarget,
  PageDiff,
  PageJudgment,
  PageStatus,
} from './types.ts';

/** How often a running check's stored summary is brought up to date, at most. */
const progressSaveMs = 500;

/** What a check runs with. */
export interface CheckContext {
  records: MonitorRecords;
  config: EngineConfig;
  /** Fetchers for the scrapes (tests, custom transports). */
  fetchers?: EngineContext['fetchers'];
  llm?: LlmProvider;
  /** Web search providers for search targets (the store's built-in index is always asked). */
  searchProviders?: readonly SearchProvider[];
  notifiers: readonly Notifier[];
  signal: AbortSignal;
  /** Reports what a check could not do that is not a page error (a judge failing). */
  warn?: (message: string) => void;
}

/** An empty summary. */
export const emptySummary = (): CheckSummary => ({
  totalPages: 0,
  same: 0,
  changed: 0,
  new: 0,
  removed: 0,
  error: 0,
});

/** How a target's pages are compared: on markdown, on extracted JSON, or both. */
interface Comparison {
  markdown: boolean;
  json: JsonExtraction | undefined;
  /** Formats handed to scrape(): markdown first, without what the monitor produces itself. */
  formats: FormatSpec[];
}

/**
 * Reads a target's formats: `json` and `changeTracking` (git-diff and/or json modes) are the
 * monitor's own work, not the scrape's. Markdown is always scraped (the hosted service prepends
 * it too): it is what pages are compared on unless only JSON is asked for.
 */
export function comparisonOf(scrapeOptions: ScrapeOptions | undefined): Comparison {
  const given = (scrapeOptions?.formats ?? ['markdown']).map((format) =>
    typeof format === 'string' ? { type: format } : format,
  );
  let json: JsonExtraction | undefined;
  let gitMode = false;
  for (const format of given) {
    const settings = format as FormatSpec & {
      schema?: Record<string, unknown>;
      prompt?: string;
      modes?: string[];
    };
    const extraction = {
      ...(settings.schema ? { schema: settings.schema } : {}),
      ...(settings.prompt ? { prompt: settings.prompt } : {}),
    };
    if (format.type === 'json') json = extraction;
    if (format.type === 'changeTracking') {
      const modes = settings.modes ?? [];
      if (modes.includes('json')) json = extraction;
      if (modes.length === 0 || modes.includes('git-diff')) gitMode = true;
    }
  }
  const formats = given.filter(
    (format) => format.type !== 'json' && format.type !== 'changeTracking',
  );
  if (!formats.some((format) => format.type === 'markdown')) formats.unshift({ type: 'markdown' });
  return { markdown: json === undefined || gitMode, json, formats };
}

/** Scrape options of a monitor page: always fresh (maxAge 0), the formats the comparison needs. */
function pageOptions(scrapeOptions: ScrapeOptions | undefined, comparison: Comparison) {
  return { ...scrapeOptions, formats: comparison.formats, maxAge: 0 } as ScrapeOptions;
}

/** A scraped page, or why it failed. */
type Outcome =
  | { url: string; document: Document; json?: Record<string, unknown> }
  | { url: string; error: string; statusCode: number | null };

/** Runs `work` over `items`, at most `limit` at once. */
async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  });
  await Promise.all(workers);
}

/** What a finished check leaves. */
export interface CheckRun {
  /** The final check record (already saved). */
  check: MonitorCheck;
  /** Pages each crawl target reached, for the credit estimate. */
  pagesSeen: Map<string, number>;
}

/**
 * Runs one check to its end. `save` is called with the check once its pages are all recorded
 * and again with the notifiers' results.
 */
export async function runCheck(
  context: CheckContext,
  monitor: Monitor,
  check: MonitorCheck,
  save: (check: MonitorCheck) => Promise<void>,
): Promise<CheckRun> {
  const { records } = context;
  const baselines = new Baselines(records);
  // What a dead process left staged (a check cut short, or committed half-way) is settled first.
  await baselines.settle(monitor.id);
  const stage = (targetId: string, url: string, snapshot: Snapshot) =>
    baselines.stage(monitor.id, check.id, targetId, url, snapshot);
  const summary = emptySummary();
  const statusCounts: Record<PageStatus, number> = {
    same: 0,
    changed: 0,
    new: 0,
    removed: 0,
    error: 0,
  };
  const changes: MonitorCheckPage[] = [];
  const warnings: string[] = [];
  const targetErrors: string[] = [];
  let scrapedPages = 0;
  // Pages are recorded one at a time: their sequence numbers and the summary stay consistent.
  let recording = Promise.resolve();
  let lastProgressSave = 0;

  const record = (page: MonitorCheckPage): Promise<void> => {
    recording = recording.then(async () => {
      await records.putPage(check.id, page, summary.totalPages, statusCounts[page.status]);
      summary.totalPages += 1;
      summary[page.status] += 1;
      statusCounts[page.status] += 1;
      if (page.status !== 'same') changes.push(page);
      // The stored check shows its progress: the first page at once, then twice a second.
      if (summary.totalPages === 1 || Date.now() - lastProgressSave >= progressSaveMs) {
        lastProgressSave = Date.now();
        await save({ ...check, summary: { ...summary }, updatedAt: new Date().toISOString() });
      }
      for (const notifier of context.notifiers) {
        await notifier.page?.({ monitor, check: { ...check, summary: { ...summary } }, page });
      }
    });
    return recording;
  };

  const judge = async (input: JudgeInput): Promise<PageJudgment | null> => {
    if (!monitor.judgeEnabled || !monitor.goal) return null;
    if (!context.llm) return judgeByKeywords(input);
    const verdict = await judgeWithLlm(context.llm, input, context.signal);
    if ('judgment' in verdict) return verdict.judgment;
    context.warn?.(`judging ${input.url} failed: ${verdict.error}`);
    return null;
  };

  /** Classifies one outcome against the baseline, records the page, moves the baseline. */
  const classify = async (
    target: MonitorTarget,
    comparison: Comparison,
    outcome: Outcome,
  ): Promise<void> => {
    const now = new Date().toISOString();
    const baseline = await records.getSnapshot(monitor.id, target.id, outcome.url);
    const base = {
      id: crypto.randomUUID(),
      targetId: target.id,
      url: outcome.url,
      createdAt: now,
    };
    if ('error' in outcome) {
      // The baseline stays: a page that fails and recovers unchanged is `same`, not `new`.
      if (baseline) {
        await stage(target.id, outcome.url, {
          ...baseline,
          seenCheckId: check.id,
          seenAt: now,
        });
      }
      await record({
        ...base,
        status: 'error',
        previousScrapeId: baseline && !baseline.removed ? baseline.scrapeId : null,
        currentScrapeId: null,
        statusCode: outcome.statusCode,
        error: outcome.error,
        metadata: null,
        diff: null,
        judgment: null,
      });
      return;
    }
    scrapedPages += 1;
    const { document } = outcome;
    // A scrape target lists the scrapes it made, as the hosted service lists its scrape jobs.
    const result = check.targetResults.find((entry) => entry.targetId === target.id);
    if (result?.type === 'scrape') result.expectedJobs.push(document.metadata.scrapeId);
    const content = normaliseContent(document.markdown ?? '');
    const hash = comparison.markdown ? contentHash(content) : '';
    const known = baseline && !baseline.removed ? baseline : undefined;
    let status: PageStatus = 'new';
    let diff: PageDiff | null = null;
    let lines: { added: string[]; removed: string[] } = {
      added: content.split('\n'),
      removed: [],
    };
    let diffText: string | undefined;
    if (known) {
      // The text itself decides: masking volatile noise (dates, copyright years…) only informs
      // the judge, it never makes a changed text `same`.
      const markdownChanged = comparison.markdown && known.content !== content;
      const fields = comparison.json ? jsonDiff(known.json ?? null, outcome.json ?? null) : {};
      const jsonChanged = Object.keys(fields).length > 0;
      status = markdownChanged || jsonChanged ? 'changed' : 'same';
      if (status === 'changed') {
        diff = {};
        if (comparison.markdown) {
          const git = gitDiff(known.content, content, outcome.url);
          diffText = git.text;
          lines = changedLines(git);
          diff.text = git.text;
          diff.json = git.json;
        }
        // JSON monitors: `json` is the field diff (reference (d)); mixed ones keep the text too.
        if (comparison.json) {
          diff.json = fields;
          if (!comparison.markdown)
            lines = {
              added: Object.entries(fields).map(
                ([key, change]) => `${key}: ${JSON.stringify(change.current)}`,
              ),
              removed: Object.entries(fields).map(
                ([key, change]) => `${key}: ${JSON.stringify(change.previous)}`,
              ),
            };
        }
      }
    }
    const judgment =
      status === 'changed' || status === 'new'
        ? await judge({
            goal: monitor.goal ?? '',
            url: outcome.url,
            status,
            added: lines.added,
            removed: lines.removed,
            ...(diffText ? { diffText } : {}),
            context: content.split('\n'),
          })
        : null;
    const snapshot: Snapshot = {
      scrapeId: document.metadata.scrapeId,
      hash,
      content,
      ...(outcome.json !== undefined ? { json: outcome.json } : {}),
      at: now,
      seenCheckId: check.id,
      seenAt: now,
      removed: false,
    };
    // A same page keeps its baseline's scrape id: it is still the version last seen changing.
    await stage(
      target.id,
      outcome.url,
      status === 'same' && known ? { ...known, seenCheckId: check.id, seenAt: now } : snapshot,
    );
    const metadata = document.metadata;
    await record({
      ...base,
      status,
      previousScrapeId: known?.scrapeId ?? null,
      currentScrapeId: metadata.scrapeId,
      statusCode: metadata.statusCode,
      error: null,
      metadata: {
        ...(metadata.title !== undefined ? { title: metadata.title } : {}),
        ...(metadata.contentType !== undefined ? { contentType: metadata.contentType } : {}),
        ...(metadata.numPages !== undefined ? { numPages: metadata.numPages } : {}),
        ...(metadata.proxyUsed !== undefined ? { proxyUsed: metadata.proxyUsed } : {}),
        creditsUsed: creditsPerPage(comparison),
      },
      diff,
      ...(comparison.json ? { snapshot: { json: outcome.json ?? null } } : {}),
      judgment,
    });
  };

  /** A page's JSON extraction, when the target asks for one. */
  const withJson = async (
    comparison: Comparison,
    url: string,
    document: Document,
  ): Promise<Outcome> => {
    if (!comparison.json || !context.llm) return { url, document };
    try {
      const json = await extractJson(
        context.llm,
        document.markdown ?? '',
        comparison.json,
        context.signal,
      );
      return { url, document, json };
    } catch (error) {
      return { url, error: toTrawlError(error).message, statusCode: document.metadata.statusCode };
    }
  };

  const engine: EngineContext = {
    config: context.config,
    signal: context.signal,
    ...(context.fetchers ? { fetchers: context.fetchers } : {}),
  };

  let searchCredits = 0;
  const runTarget = async (target: MonitorTarget): Promise<void> => {
    if (target.type === 'search') {
      const result = check.targetResults.find((entry) => entry.targetId === target.id);
      if (result?.type !== 'search') return;
      const search = {
        ...engine,
        store: records.store,
        providers: context.searchProviders ?? [],
      };
      const { errors, warnings: notes } = await runSearchTarget(
        { records, search, llm: context.llm, stage, record },
        monitor,
        check,
        target,
        result,
      );
      searchCredits += result.searchCredits + result.judgeCredits;
      targetErrors.push(...errors);
      warnings.push(...notes);
      return;
    }
    const comparison = comparisonOf(target.scrapeOptions);
    if (target.type === 'scrape') {
      const options = pageOptions(target.scrapeOptions, comparison);
      await eachLimited(target.urls, context.config.crawlConcurrency, async (url) => {
        if (context.signal.aborted) return;
        let outcome: Outcome;
        try {
          const document = await scrape(url, options, engine);
          const code = document.metadata.statusCode;
          outcome =
            code >= 400
              ? { url, error: document.metadata.error ?? `HTTP ${code}`, statusCode: code }
              : await withJson(comparison, url, document);
        } catch (error) {
          outcome = { url, error: toTrawlError(error).message, statusCode: null };
        }
        await classify(target, comparison, outcome);
      });
      return;
    }
    const job = crawl(
      target.url,
      {
        ...target.crawlOptions,
        scrapeOptions: pageOptions(target.scrapeOptions, comparison) as never,
      },
      // The crawl's frontier lives for this check only; a check cut short by a restart is
      // failed and the next one crawls afresh.
      { ...engine, store: new MemoryStore() },
    );
    // The crawl has its own abort: stopping the check cancels it.
    const cancel = () => void job.cancel();
    context.signal.addEventListener('abort', cancel, { once: true });
    const result = check.targetResults.find((entry) => entry.targetId === target.id);
    if (result?.type === 'crawl') result.crawlId = job.id;
    const seen = new Set<string>();
    for await (const document of job) {
      if (context.signal.aborted) break;
      const url = document.metadata.sourceURL;
      seen.add(url);
      await classify(target, comparison, await withJson(comparison, url, document));
    }
    const done = await job.done;
    context.signal.removeEventListener('abort', cancel);
    for (const failure of (await job.errors()).errors) {
      // A denied start URL is the crawl's scope at work, and an unreadable sitemap is how the
      // crawl looks for pages: neither is a page of the site failing.
      if (failure.code === 'CRAWL_URL_DENIED' || failure.error.startsWith(sitemapIssuePrefix))
        continue;
      if (seen.has(failure.url)) continue;
      seen.add(failure.url);
      await classify(target, comparison, {
        url: failure.url,
        error: failure.error,
        statusCode: Number(/\b([45]\d\d)\b/.exec(failure.error)?.[1]) || null,
      });
    }
    const truncated = done.progress.discovered > done.progress.total;
    if (result?.type === 'crawl') {
      result.crawlStatus = done.status;
      result.truncated = truncated;
    }
    if (done.status !== 'completed') {
      targetErrors.push(
        `crawl of ${target.url} ${done.status}${done.error ? `: ${done.error}` : ''}`,
      );
      warnings.push(
        `The crawl of ${target.url} did not complete (${done.status}); no page was marked removed.`,
      );
      return;
    }
    if (truncated) {
      warnings.push(
        `The crawl of ${target.url} stopped at its limit of ${done.progress.total} pages (${done.progress.discovered} found); pages it did not reach were not marked removed.`,
      );
      return;
    }
    for await (const { url, snapshot } of records.targetSnapshots(monitor.id, target.id)) {
      if (snapshot.removed || seen.has(url)) continue;
      const now = new Date().toISOString();
      await stage(target.id, url, {
        ...snapshot,
        removed: true,
        seenCheckId: check.id,
        seenAt: now,
      });
      await record({
        id: crypto.randomUUID(),
        targetId: target.id,
        url,
        status: 'removed',
        previousScrapeId: snapshot.scrapeId,
        currentScrapeId: null,
        statusCode: null,
        error: null,
        metadata: null,
        diff: null,
        judgment: null,
        createdAt: now,
      });
    }
    pagesSeen.set(target.id, seen.size);
  };

  const pagesSeen = new Map<string, number>();
  for (const target of monitor.targets) {
    if (context.signal.aborted) break;
    try {
      await runTarget(target);
    } catch (error) {
      targetErrors.push(`${target.type} target ${target.id}: ${toTrawlError(error).message}`);
    }
  }
  await recording;

  const final: MonitorCheck = {
    ...check,
    summary,
    finishedAt: new Date().toISOString(),
    updatedAt: new Date().toISOString(),
  };
  // Read once: a stop that lands after this point must not leave a completed check uncommitted.
  const ranToEnd = !context.signal.aborted;
  if (!ranToEnd) {
    // Dropped before the failed status is saved: a `running` check never has snapshots to keep.
    await baselines.discard(monitor.id, check.id);
    final.status = 'failed';
    final.error = 'The check was stopped before it finished (the process is shutting down).';
  } else if (summary.totalPages > 0 && summary.error === summary.totalPages) {
    final.status = 'failed';
    final.error = targetErrors[0] ?? 'Every page of the check failed.';
  } else if (summary.totalPages === 0 && targetErrors.length > 0) {
    final.status = 'failed';
    final.error = targetErrors.join('; ');
  } else if (summary.error > 0 || targetErrors.length > 0) {
    final.status = 'partial';
    final.error = targetErrors.length > 0 ? targetErrors.join('; ') : null;
  } else {
    final.status = 'completed';
  }
  if (warnings.length > 0) final.warning = warnings.join(' ');
  final.actualCredits = scrapedPagesCredits(monitor, scrapedPages) + searchCredits;
  // Saving the final record is the commit point; the promotion after it can be redone.
  await save(final);
  if (ranToEnd) await baselines.commit(monitor.id, check.id);

  const notificationStatus: Record<string, unknown> = {};
  for (const notifier of context.notifiers) {
    notificationStatus[notifier.name] = await notifier.checkCompleted({
      monitor,
      check: final,
      changes,
    });
  }
  const notified = { ...final, notificationStatus, updatedAt: new Date().toISOString() };
  await save(notified);
  return { check: notified, pagesSeen };
}

/** Credits one page costs: 1, or 5 when a JSON extraction runs on it (as the hosted service bills). */
export function creditsPerPage(comparison: Pick<Comparison, 'json'>): number {
  return comparison.json ? 5 : 1;
}

/** Credits of `pages` scraped pages of a monitor, at the dearest rate of its targets. */
function scrapedPagesCredits(monitor: Monitor, pages: number): number {
  const rate = Math.max(
    1,
    ...monitor.targets.map((target) =>
      target.type === 'search'
        ? 1
        : creditsPerPage(comparisonOf(target.scrapeOptions as ScrapeOptions | undefined)),
    ),
  );
  return pages * rate;
}
