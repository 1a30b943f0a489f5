/**
 * The wire shapes the app reads, as the API answers them (the app is a client of the /v2
 * interface like the SDKs, so it states what it reads instead of importing the server's types,
 * which would pull Node's into the browser build). Only the fields the views use.
 */

export interface CheckSummary {
  totalPages: number;
  same: number;
  changed: number;
  new: number;
  removed: number;
  error: number;
}

export interface ScrapeTarget {
  id?: string;
  type: 'scrape';
  urls: string[];
  scrapeOptions?: Record<string, unknown>;
}

export interface CrawlTarget {
  id?: string;
  type: 'crawl';
  url: string;
  crawlOptions?: Record<string, unknown>;
  scrapeOptions?: Record<string, unknown>;
}

export interface SearchTarget {
  id?: string;
  type: 'search';
  queries: string[];
}

export type Target = ScrapeTarget | CrawlTarget | SearchTarget;

export interface Monitor {
  id: string;
  name: string;
  status: 'active' | 'paused';
  schedule: { cron: string; timezone: string };
  nextRunAt: string | null;
  lastRunAt: string | null;
  currentCheckId: string | null;
  targets: Target[];
  webhook: { url: string; events?: string[]; headers?: Record<string, string> } | null;
  notification: { email?: { enabled: boolean; recipients: string[]; includeDiffs: boolean } };
  retentionDays: number;
  estimatedCreditsPerMonth: number;
  lastCheckSummary: CheckSummary | null;
  goal: string | null;
  judgeEnabled: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface MonitorCheck {
  id: string;
  monitorId: string;
  status: string;
  trigger: 'scheduled' | 'manual';
  startedAt: string | null;
  finishedAt: string | null;
  actualCredits: number | null;
  summary: CheckSummary;
  notificationStatus: Record<string, unknown>;
  error: string | null;
  warning?: string;
  createdAt: string;
}

export type PageStatus = 'same' | 'changed' | 'new' | 'removed' | 'error';

export interface Judgment {
  meaningful: boolean;
  confidence: 'high' | 'medium' | 'low';
  reason: string;
  meaningfulChanges: {
    type: string;
    before: string | null;
    after: string | null;
    reason: string;
  }[];
  method?: 'llm' | 'keywords';
}

export interface CheckPage {
  id: string;
  url: string;
  status: PageStatus;
  statusCode: number | null;
  error: string | null;
  metadata: { title?: string } | null;
  diff: { text?: string; json?: unknown } | null;
  judgment: Judgment | null;
}

export interface CheckDetail extends MonitorCheck {
  pages: CheckPage[];
  next?: string;
}

export interface WebhookDelivery {
  event: string;
  url: string;
  attempts: number;
  delivered: boolean;
  status?: number;
  error?: string;
  at: string;
}

/** A scraped document (the spec's "Parsed document"), the fields the app shows. */
export interface ScrapedDocument {
  markdown?: string;
  html?: string;
  rawHtml?: string;
  links?: string[];
  screenshot?: string;
  json?: unknown;
  summary?: string;
  metadata?: Record<string, unknown> & { sourceURL?: string; url?: string; title?: string };
}

/** A crawl's status answer. */
export interface CrawlStatus {
  status: string;
  completed: number;
  total: number;
  creditsUsed: number;
  next?: string;
  data: ScrapedDocument[];
}
