/**
 * @trawl/core — the public surface of the Trawl engine. Explicit named exports only, so the
 * surface changes on purpose (a test pins the list).
 */
// First: on too old a Node.js, this throws one clear sentence before anything else loads.
import './internal/node-version.ts';
export { scrape } from './scrape/index.ts';
export { htmlToDocument } from './scrape/convert.ts';
export type { HtmlToDocumentOptions } from './scrape/convert.ts';
export { scrapeOptionsSchema, formatNames } from './scrape/options.ts';
export type {
  ScrapeOptions,
  ResolvedScrapeOptions,
  FormatName,
  FormatSpec,
} from './scrape/options.ts';
export { HttpFetcher } from './scrape/fetch-http.ts';
export type { AddressGuardOptions } from './internal/address-guard.ts';
export type { HttpFetcherOptions } from './scrape/fetch-http.ts';
export { crawl, batchScrape, resumeJob } from './crawl/index.ts';
export { map } from './map/index.ts';
export { search } from './search/index.ts';
export { rebuildSearchIndex } from './search/rebuild.ts';
export { searchOptionsSchema } from './search/options.ts';
export type { SearchOptions, ResolvedSearchOptions } from './search/options.ts';
export type {
  SearchContext,
  SearchResult,
  SearchResultWeb,
  SearchResultNews,
  SearchResultImage,
} from './search/engine.ts';
export { LocalSearchProvider } from './search/local-provider.ts';
export { SearxngProvider } from './search/searxng-provider.ts';
export type { SearxngProviderOptions } from './search/searxng-provider.ts';
export type {
  SearchProvider,
  SearchSourceType,
  ProviderQuery,
  ProviderResult,
  ProviderAnswer,
} from './interfaces/search-provider.ts';
export type {
  SearchIndex,
  IndexEntry,
  IndexQuery,
  IndexHit,
  IndexStats,
} from './interfaces/search-index.ts';
export { SqliteSearchIndex } from './defaults/sqlite-search-index.ts';
export { parse, parseOptionsSchema, maxParseBytes } from './parse/index.ts';
export type { ParseOptions, ParseSettings } from './parse/index.ts';
export type { MapResult } from './map/index.ts';
export type { MapLink } from './map/rank.ts';
export { mapOptionsSchema } from './map/options.ts';
export type { MapOptions, ResolvedMapOptions } from './map/options.ts';
export type { JobContext } from './crawl/index.ts';
export { crawlOptionsSchema, batchScrapeOptionsSchema } from './crawl/options.ts';
export type {
  CrawlOptions,
  ResolvedCrawlOptions,
  BatchScrapeOptions,
  ResolvedBatchScrapeOptions,
} from './crawl/options.ts';
export type {
  Job,
  CrawlJob,
  BatchScrapeJob,
  JobStatus,
  JobKind,
  JobProgress,
  JobError,
  JobErrors,
  JobResultsPage,
  JobSummary,
  JobEvents,
} from './crawl/types.ts';
export { defaultTeam, engineConfigSchema, resolveEngineConfig } from './config.ts';
export type { EngineConfig, EngineConfigInput, EngineContext } from './config.ts';
export type { Document, DocumentMetadata, DocumentActions } from './document.ts';
export {
  TrawlError,
  ValidationError,
  AuthError,
  PaymentRequiredError,
  BlockedUrlError,
  NotFoundError,
  TimeoutError,
  ContentTooLargeError,
  UnsupportedTypeError,
  RateLimitError,
  NotConfiguredError,
  FetchError,
  StoreError,
  FeedbackError,
  errorCodes,
  toTrawlError,
} from './errors.ts';
export type { ErrorCode, FeedbackErrorCode, FieldIssue, TrawlErrorOptions } from './errors.ts';
export type {
  Store,
  StoreSetOptions,
  StoreListOptions,
  StoreEntry,
  StoreCapabilities,
} from './interfaces/store.ts';
export { defaultListLimit, scanStore } from './interfaces/store.ts';
export type {
  Counters,
  CounterAddOptions,
  CounterCeiling,
  CounterFields,
  CounterHit,
  CounterReservation,
} from './interfaces/counters.ts';
export { MemoryCounters } from './defaults/memory-counters.ts';
export { PriceTable } from './credits/prices.ts';
export type { Fetcher, FetchRequest, FetchResponse } from './interfaces/fetcher.ts';
export { SqliteStore } from './defaults/sqlite-store.ts';
export type { SqliteStoreOptions } from './defaults/sqlite-store.ts';
export { MemoryStore } from './defaults/memory-store.ts';
export type * from './interfaces/queue.ts';
export { InProcessQueue } from './defaults/in-process-queue.ts';
export { ConflictError } from './errors.ts';
export { Monitors, MonitorService } from './monitor/index.ts';
export type {
  MonitorCredits,
  MonitorScope,
  MonitorsOptions,
  MonitorServiceOptions,
} from './monitor/index.ts';
export { monitorCreateSchema, monitorUpdateSchema } from './monitor/options.ts';
export type {
  MonitorCreateInput,
  MonitorUpdateInput,
  MonitorTargetInput,
  MonitorListOptions,
  CheckListOptions,
  CheckPagesOptions,
} from './monitor/options.ts';
export { resolveSchedule } from './monitor/schedule.ts';
export type { MonitorSchedule, ScheduleInput } from './monitor/schedule.ts';
export type {
  Monitor,
  MonitorTarget,
  MonitorScrapeTarget,
  MonitorCrawlTarget,
  MonitorSearchTarget,
  MonitorWebhook,
  MonitorNotification,
  MonitorEmailNotification,
  MonitorCheck,
  MonitorCheckPage,
  MonitorCheckDetail,
  CheckStatus,
  CheckSummary,
  CheckTargetResult,
  PageStatus,
  PageDiff,
  PageJudgment,
  MeaningfulChange,
} from './monitor/types.ts';
export type {
  Notifier,
  NotificationResult,
  MonitorPageEvent,
  MonitorCheckEvent,
} from './interfaces/notifier.ts';
export type {
  LlmProvider,
  LlmMessage,
  LlmRequest,
  LlmResponse,
  LlmUsage,
  LlmTool,
  LlmToolCall,
  LlmToolMessage,
  LlmToolRequest,
  LlmToolResponse,
} from './interfaces/llm-provider.ts';
export { extract } from './extract/index.ts';
export type { ExtractResult } from './extract/index.ts';
export { extractOptionsSchema } from './extract/options.ts';
export type { ExtractOptions, ResolvedExtractOptions } from './extract/options.ts';
export { WebhookSender, WebhookNotifier, webhookSigningKey } from './defaults/webhook-notifier.ts';
export type { WebhookDelivery, WebhookSettings } from './defaults/webhook-notifier.ts';
export { BrowserPool } from './browser/pool.ts';
export type {
  BrowserPoolOptions,
  BrowserPoolStats,
  PageJobOptions,
  PooledPage,
} from './browser/pool.ts';
export { findChromium } from './browser/find-chromium.ts';
export type { ChromiumLookup } from './browser/find-chromium.ts';
export type {
  BrowserAction,
  BrowserActionInput,
  ActionResults,
  CapturedFile,
} from './browser/actions.ts';
export type { ProfileState } from './browser/profiles.ts';
export { BrowserFetcher } from './scrape/fetch-browser.ts';
export type { BrowserFetcherOptions } from './scrape/fetch-browser.ts';
export { closeBrowsers, defaultFetchers } from './scrape/fetchers.ts';
// Worker threads that parse() converts files in; idle ones never hold the process open.
export { closeWorkerPools } from './internal/worker-pool.ts';
export { ActionError } from './errors.ts';
export type { MediaSink } from './interfaces/media-sink.ts';
export type { RenderRequest, RenderedPage } from './interfaces/fetcher.ts';
export { BrowserSessions } from './browser/sessions.ts';
export type {
  BrowserSession,
  BrowserSessionsOptions,
  BrowserExecuteMode,
} from './browser/sessions.ts';
export type {
  BrowserSessionInfo,
  BrowserSessionCreateInput,
  BrowserExecuteInput,
  BrowserExecuteResult,
} from './browser/session-options.ts';
export type { CdpPeer } from './browser/cdp-relay.ts';
export { agent } from './agent/index.ts';
export { agentOptionsSchema, effortBudgets } from './agent/options.ts';
export type { AgentOptions, ResolvedAgentOptions, AgentEffort } from './agent/options.ts';
export type { AgentContext, AgentResult, AgentState } from './agent/state.ts';
export type { AgentCredits, AgentSpend } from './agent/budget.ts';
export type { AgentTraceEvent, AgentTraceError, ToolCallRecord } from './agent/trace.ts';
