/**
 * @trawl/core — the public surface of the Trawl engine. Explicit named exports only, so the
 * surface changes on purpose (a test pins the list).
 */
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
export { HttpFetcher, isPrivateAddress } from './scrape/fetch-http.ts';
export type { HttpFetcherOptions } from './scrape/fetch-http.ts';
export { crawl, batchScrape, resumeJob } from './crawl/index.ts';
export { map } from './map/index.ts';
export { parse, parseOptionsSchema, maxParseBytes } from './parse/index.ts';
export type { ParseOptions } from './parse/index.ts';
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
  batchScrapeOptionsShape,
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
export { creditEndpoints, creditLedgerOptionsSchema, creditPricesSchema } from './credits/options.ts';
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
