/**
 * @trawl/core — the public surface of the Trawl engine. Explicit named exports only, so the
 * surface changes on purpose (a test pins the list).
 */
// First: on too old a Node.js, this throws one clear sentence before anything else loads.
import './internal/node-version.ts';
export { scrape } from './scrape/index.ts';
export { htmlToDocument } from './scrape/convert.ts';
export type { HtmlToDocumentOptions } from './scrape/convert.ts';
export { scrapeOptionsSchema, scrapeOptionsShape, formatNames } from './scrape/options.ts';
export type {
  ScrapeOptions,
  ResolvedScrapeOptions,
  FormatName,
  FormatSpec,
} from './scrape/options.ts';
export { HttpFetcher } from './scrape/fetch-http.ts';
export { isBlockedAddress as isPrivateAddress } from './internal/address-guard.ts';
export type { AddressGuardOptions } from './internal/address-guard.ts';
export type { HttpFetcherOptions } from './scrape/fetch-http.ts';
export { crawl, batchScrape, resumeJob } from './crawl/index.ts';
export { map } from './map/index.ts';
export { search } from './search/index.ts';
export { rebuildSearchIndex } from './search/rebuild.ts';
export { searchOptionsSchema, searchOptionsShape } from './search/options.ts';
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
export { indexFilterClauses, mergeWordPasses, wantsAnyWordPass } from './search/index-query.ts';
export { parse, parseOptionsSchema, maxParseBytes } from './parse/index.ts';
export type { ParseOptions, ParseSettings } from './parse/index.ts';
export { parseOrThrow } from './internal/zod.ts';
export type { MapResult } from './map/index.ts';
export type { MapLink } from './map/rank.ts';
export { mapOptionsSchema, mapOptionsShape } from './map/options.ts';
export type { MapOptions, ResolvedMapOptions } from './map/options.ts';
export type { JobContext } from './crawl/index.ts';
export {
  crawlOptionsSchema,
  crawlOptionsShape,
  batchScrapeOptionsSchema,
  checkCrawlLimit,
} from './crawl/options.ts';
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
export { engineConfigSchema, resolveEngineConfig } from './config.ts';
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
export { CreditLedger } from './credits/index.ts';
export type { CreditUsage, JobCharges, LedgerEntry, LedgerReference } from './credits/index.ts';
export {
  creditEndpoints,
  creditLedgerOptionsSchema,
  creditPricesSchema,
} from './credits/options.ts';
export type {
  CreditEndpoint,
  CreditLedgerOptions,
  CreditPrices,
  ResolvedCreditLedgerOptions,
} from './credits/options.ts';
export { FeedbackService, listFeedback } from './feedback/index.ts';
export type {
  FeedbackFilter,
  FeedbackJob,
  FeedbackResult,
  FeedbackServiceOptions,
  FindFeedbackJob,
  StoredFeedback,
} from './feedback/index.ts';
export {
  feedbackEndpoints,
  feedbackRatings,
  feedbackRequestSchema,
  feedbackSettingsSchema,
  maxFeedbackMetadataBytes,
  searchFeedbackRequestSchema,
} from './feedback/options.ts';
export type {
  FeedbackEndpoint,
  FeedbackRating,
  FeedbackRequest,
  FeedbackSettings,
  ResolvedFeedbackSettings,
  SearchFeedbackRequest,
} from './feedback/options.ts';
export type {
  Store,
  StoreSetOptions,
  StoreListOptions,
  StoreEntry,
  StoreCapabilities,
} from './interfaces/store.ts';
export { defaultListLimit, scanStore } from './interfaces/store.ts';
export type { Fetcher, FetchRequest, FetchResponse } from './interfaces/fetcher.ts';
export { SqliteStore } from './defaults/sqlite-store.ts';
export type { SqliteStoreOptions } from './defaults/sqlite-store.ts';
export { MemoryStore } from './defaults/memory-store.ts';
export { ConflictError } from './errors.ts';
export { Monitors, MonitorService } from './monitor/index.ts';
export type {
  MonitorCredits,
  MonitorScope,
  MonitorsOptions,
  MonitorServiceOptions,
} from './monitor/index.ts';
export {
  monitorCreateSchema,
  monitorCreateShape,
  monitorUpdateSchema,
  monitorUpdateShape,
  monitorListSchema,
  checkListSchema,
  checkPagesSchema,
  monitorWebhookEvents,
  checkStatuses,
  pageStatuses,
} from './monitor/options.ts';
export type {
  MonitorCreateInput,
  MonitorUpdateInput,
  MonitorTargetInput,
  MonitorListOptions,
  CheckListOptions,
  CheckPagesOptions,
} from './monitor/options.ts';
export { resolveSchedule, nextRunOf, schedulePhraseExamples } from './monitor/schedule.ts';
export type { MonitorSchedule, ScheduleInput } from './monitor/schedule.ts';
export {
  normaliseContent,
  comparableContent,
  contentHash,
  gitDiff,
  jsonDiff,
} from './monitor/diff.ts';
export type { GitDiff } from './monitor/diff.ts';
export { judgeByKeywords, goalTerms } from './monitor/judge.ts';
export type { JudgeInput } from './monitor/judge.ts';
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
export { extractJson } from './llm/extract-json.ts';
export { extract, prepareExtract } from './extract/index.ts';
export { crawlOptionsFromPrompt } from './crawl/prompt-options.ts';
export type { PromptOptions } from './crawl/prompt-options.ts';
export type { ExtractResult } from './extract/index.ts';
export { extractOptionsSchema } from './extract/options.ts';
export type { ExtractOptions, ResolvedExtractOptions } from './extract/options.ts';
export type { JsonExtraction } from './llm/extract-json.ts';
export { WebhookSender, WebhookNotifier, eventMatches } from './defaults/webhook-notifier.ts';
export type {
  WebhookConfig,
  WebhookDelivery,
  WebhookPayload,
  WebhookSettings,
} from './defaults/webhook-notifier.ts';
export { BrowserPool, chromiumArgs } from './browser/pool.ts';
export type {
  BrowserPoolOptions,
  BrowserPoolStats,
  PageJobOptions,
  PooledPage,
} from './browser/pool.ts';
export { findChromium, chromiumCandidates } from './browser/find-chromium.ts';
export type { ChromiumLookup } from './browser/find-chromium.ts';
export { actionSchema, actionsSchema } from './browser/actions.ts';
export type {
  BrowserAction,
  BrowserActionInput,
  ActionResults,
  CapturedFile,
} from './browser/actions.ts';
export { debianFilterLists } from './browser/adblock.ts';
export type { ProfileState } from './browser/profiles.ts';
export { BrowserFetcher } from './scrape/fetch-browser.ts';
export type { BrowserFetcherOptions } from './scrape/fetch-browser.ts';
export { closeBrowsers, defaultFetchers } from './scrape/fetchers.ts';
export { ActionError } from './errors.ts';
export type { MediaSink } from './interfaces/media-sink.ts';
export type { RenderRequest, RenderedPage } from './interfaces/fetcher.ts';
export { BrowserSessions } from './browser/sessions.ts';
export {
  browserSessionCreateSchema,
  browserSessionCreateShape,
  browserExecuteSchema,
  browserExecuteShape,
} from './browser/session-options.ts';
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
export { looksJsRendered } from './scrape/js-rendered.ts';
