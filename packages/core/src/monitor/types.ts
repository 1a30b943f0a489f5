/**
 * The monitor model as callers see it: the spec's Monitor resource, its checks and the pages of
 * each check, with the field names and shapes of reference-behaviour (d) (which the official SDK
 * reads).
 */
import type { ScrapeOptions } from '../scrape/options.ts';
import type { CrawlOptions } from '../crawl/options.ts';
import type { MonitorSchedule } from './schedule.ts';

/** A target watching a list of pages. */
export interface MonitorScrapeTarget {
  id: string;
  type: 'scrape';
  urls: string[];
  scrapeOptions?: ScrapeOptions;
}

/** A target watching a whole site through a crawl. */
export interface MonitorCrawlTarget {
  id: string;
  type: 'crawl';
  url: string;
  crawlOptions?: Omit<CrawlOptions, 'scrapeOptions'>;
  scrapeOptions?: CrawlOptions['scrapeOptions'];
}

/** A target watching search results: results no earlier check saw are its `new` pages. */
export interface MonitorSearchTarget {
  id: string;
  type: 'search';
  queries: string[];
  searchWindow: '5m' | '15m' | '1h' | '6h' | '24h' | '7d';
  includeDomains?: string[];
  excludeDomains?: string[];
  /** Results asked for per query. */
  maxResults: number;
}

/** One target of a monitor, with its id. */
export type MonitorTarget = MonitorScrapeTarget | MonitorCrawlTarget | MonitorSearchTarget;

/** Where a monitor's events go. */
export interface MonitorWebhook {
  url: string;
  headers?: Record<string, string>;
  metadata?: Record<string, string>;
  /** Which events; all when absent. */
  events?: ('monitor.page' | 'monitor.check.completed')[];
}

/** E-mail settings of a monitor. */
export interface MonitorEmailNotification {
  enabled: boolean;
  recipients: string[];
  includeDiffs: boolean;
}

/** Notification settings of a monitor. */
export interface MonitorNotification {
  email?: MonitorEmailNotification;
}

/** Page counts of a check, by status. */
export interface CheckSummary {
  totalPages: number;
  same: number;
  changed: number;
  new: number;
  removed: number;
  error: number;
}

/** The Monitor resource. */
export interface Monitor {
  id: string;
  name: string;
  status: 'active' | 'paused';
  schedule: MonitorSchedule;
  /** The next scheduled run; null while paused. */
  nextRunAt: string | null;
  /** When the latest check started. */
  lastRunAt: string | null;
  /** The check in progress, or the latest one. */
  currentCheckId: string | null;
  targets: MonitorTarget[];
  webhook: MonitorWebhook | null;
  notification: MonitorNotification;
  retentionDays: number;
  estimatedCreditsPerMonth: number;
  lastCheckSummary: CheckSummary | null;
  goal: string | null;
  judgeEnabled: boolean;
  createdAt: string;
  updatedAt: string;
}

/** Where a check stands. `queued` → `running` → one of the final ones. */
export type CheckStatus =
  | 'queued'
  | 'running'
  | 'completed'
  | 'partial'
  | 'failed'
  | 'skipped_overlap'
  | 'skipped_no_credits';

/** What a check found on one page. */
export type PageStatus = 'same' | 'changed' | 'new' | 'removed' | 'error';

/** What one target of a check did. */
export type CheckTargetResult =
  | { targetId: string; type: 'scrape'; expectedJobs: string[] }
  | {
      targetId: string;
      type: 'crawl';
      crawlId: string;
      /** Crawl status: `completed`, or why removals were not decided. */
      crawlStatus?: string;
      /** The crawl stopped at its `limit`: pages it did not reach were not marked removed. */
      truncated?: boolean;
    }
  | {
      targetId: string;
      type: 'search';
      /** Every query ran (a failing provider leaves it false). */
      searchCompleted: boolean;
      /** Distinct results of all queries this check. */
      resultCount: number;
      /** New results the judge found meaningful (every new result when judging is off). */
      matches: number;
      /** One line on what the target found. */
      summary: string;
      /** The LLM judge was not used (none configured, or it failed): keywords judged. */
      judgeDegraded: boolean;
      degradedReason: string | null;
      searchCredits: number;
      judgeCredits: number;
      resultsJudged: number;
    };

/** One check of a monitor. */
export interface MonitorCheck {
  id: string;
  monitorId: string;
  status: CheckStatus;
  trigger: 'scheduled' | 'manual';
  /** The run time the scheduler aimed at (scheduled checks). */
  scheduledFor: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  estimatedCredits: number | null;
  reservedCredits: number | null;
  actualCredits: number | null;
  billingStatus: 'not_applicable' | 'reserved' | 'confirmed' | 'released' | 'failed';
  summary: CheckSummary;
  targetResults: CheckTargetResult[];
  /** What each notifier did, by name (`webhook`, `email`). */
  notificationStatus: Record<string, unknown>;
  error: string | null;
  /** Something the caller should know (a crawl cut short by its limit). */
  warning?: string;
  createdAt: string;
  updatedAt: string;
}

/** A change the judge found meaningful. */
export interface MeaningfulChange {
  type: 'added' | 'removed' | 'changed';
  before: string | null;
  after: string | null;
  reason: string;
}

/** The judge's verdict on a changed or new page. */
export interface PageJudgment {
  meaningful: boolean;
  confidence: 'high' | 'medium' | 'low';
  reason: string;
  meaningfulChanges: MeaningfulChange[];
  /** `llm` (the configured model) or `keywords` (the BM25 fallback). */
  method?: 'llm' | 'keywords';
}

/** The diff of a changed page: git-style text and its parsed form, and/or a per-field JSON diff. */
export interface PageDiff {
  text?: string;
  json?: { files: unknown[] } | Record<string, { previous: unknown; current: unknown }>;
}

/** One page of a check. */
export interface MonitorCheckPage {
  id: string;
  targetId: string;
  url: string;
  status: PageStatus;
  /** The scrape the page was compared with. */
  previousScrapeId: string | null;
  /** This check's scrape of the page. */
  currentScrapeId: string | null;
  statusCode: number | null;
  error: string | null;
  metadata: {
    title?: string;
    contentType?: string;
    numPages?: number;
    proxyUsed?: string;
    creditsUsed?: number;
  } | null;
  diff: PageDiff | null;
  /** The extracted JSON of this run (JSON monitors). */
  snapshot?: { json?: unknown } | null;
  judgment: PageJudgment | null;
  createdAt: string;
}

/** A check with one page of its pages; `nextSkip` reads on. */
export interface MonitorCheckDetail extends MonitorCheck {
  pages: MonitorCheckPage[];
  /** Pass as `skip` for the next page of pages; undefined at the end. */
  nextSkip: number | undefined;
}
