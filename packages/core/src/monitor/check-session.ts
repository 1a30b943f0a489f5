/**
 * The state of one check while it runs: its summary and counts, the pages that changed, what
 * went wrong, and the three things every target does with a page: stage its baseline, judge a
 * change against the goal, and record the page (stored, counted, shown as progress, notified).
 */
import type { EngineConfig, EngineContext } from '../config.ts';
import type { PriceTable } from '../credits/prices.ts';
import type { LlmProvider } from '../interfaces/llm-provider.ts';
import type { Notifier } from '../interfaces/notifier.ts';
import type { SearchProvider } from '../interfaces/search-provider.ts';
import type { Baselines } from './baselines.ts';
import { emptySummary } from './check-record.ts';
import { judgeByKeywords, judgeWithLlm, type JudgeInput } from './judge.ts';
import type { MonitorRecords, Snapshot } from './records.ts';
import type { Monitor, MonitorCheck, MonitorCheckPage, PageJudgment, PageStatus } from './types.ts';

/** How often a running check's stored summary is brought up to date, at most. */
const progressSaveMs = 500;

/** What a check runs with. */
export interface CheckContext {
  /** The team the monitor belongs to: its pages are scraped, searched and notified as its. */
  team: string;
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
  /** The prices of the check's work (admission's when checks are billed). */
  prices: PriceTable;
  /**
   * Takes a page's credits from the check's reservation before the page is scraped: false when
   * the team cannot pay for it (the page is not scraped). Unset: checks are free.
   */
  takePage?: () => Promise<boolean>;
  /**
   * Takes `credits` from the check's reservation before a search query or an LLM judgment:
   * false when the team cannot pay for it (it is not made). Unset: checks are free.
   */
  take?: (credits: number) => Promise<boolean>;
}

/** A page the check's credits could not pay for. */
export const outOfCreditsError =
  'Insufficient credits: the page was not checked (the team has no credits left).';

/** One running check. */
export class CheckSession {
  readonly context: CheckContext;
  readonly monitor: Monitor;
  readonly check: MonitorCheck;
  readonly summary = emptySummary();
  /** Pages that are not `same`, for the notifiers' digest. */
  readonly changes: MonitorCheckPage[] = [];
  readonly warnings: string[] = [];
  readonly targetErrors: string[] = [];
  /** Pages each crawl target reached, for the credit estimate. */
  readonly pagesSeen = new Map<string, number>();
  /** Pages scraped (not failed), billed at the monitor's page rate. */
  scrapedPages = 0;
  /** Credits of search targets (queries and judging). */
  searchCredits = 0;
  readonly #baselines: Baselines;
  readonly #save: (check: MonitorCheck) => Promise<void>;
  readonly #statusCounts: Record<PageStatus, number> = {
    same: 0,
    changed: 0,
    new: 0,
    removed: 0,
    error: 0,
  };
  // Pages are recorded one at a time: their sequence numbers and the summary stay consistent.
  #recording = Promise.resolve();
  #lastProgressSave = 0;

  constructor(
    context: CheckContext,
    monitor: Monitor,
    check: MonitorCheck,
    baselines: Baselines,
    save: (check: MonitorCheck) => Promise<void>,
  ) {
    this.context = context;
    this.monitor = monitor;
    this.check = check;
    this.#baselines = baselines;
    this.#save = save;
  }

  /** Stages a page's baseline under this check (committed when the check ends). */
  stage = (targetId: string, url: string, snapshot: Snapshot): Promise<void> =>
    this.#baselines.stage(this.monitor.id, this.check.id, targetId, url, snapshot);

  /** Records one page: stored in order, counted, saved as progress, told to the notifiers. */
  record = (page: MonitorCheckPage): Promise<void> => {
    const { check, summary } = this;
    this.#recording = this.#recording.then(async () => {
      const { records, notifiers } = this.context;
      await records.putPage(check.id, page, summary.totalPages, this.#statusCounts[page.status]);
      summary.totalPages += 1;
      summary[page.status] += 1;
      this.#statusCounts[page.status] += 1;
      if (page.status !== 'same') this.changes.push(page);
      // The stored check shows its progress: the first page at once, then twice a second.
      if (summary.totalPages === 1 || Date.now() - this.#lastProgressSave >= progressSaveMs) {
        this.#lastProgressSave = Date.now();
        await this.#save({
          ...check,
          summary: { ...summary },
          updatedAt: new Date().toISOString(),
        });
      }
      for (const notifier of notifiers) {
        await notifier.page?.({
          team: this.context.team,
          monitor: this.monitor,
          check: { ...check, summary: { ...summary } },
          page,
        });
      }
    });
    return this.#recording;
  };

  /** Resolves once every page given to `record` is recorded. */
  recorded(): Promise<void> {
    return this.#recording;
  }

  /** A change judged against the monitor's goal; null when judging is off or failed. */
  async judge(input: JudgeInput): Promise<PageJudgment | null> {
    const { monitor, context } = this;
    if (!monitor.judgeEnabled || !monitor.goal) return null;
    if (!context.llm) return judgeByKeywords(input);
    const verdict = await judgeWithLlm(context.llm, input, context.signal);
    if ('judgment' in verdict) return verdict.judgment;
    context.warn?.(`judging ${input.url} failed: ${verdict.error}`);
    return null;
  }
}
