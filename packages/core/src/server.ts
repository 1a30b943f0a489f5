/**
 * @trawl/core/server — what a server built on the engine needs beyond the library's surface
 *: parsing a request once and handing core the resolved options; the option shapes
 * requests are built from; the hosted service's business (credits ledger, feedback, the
 * webhook envelope of crawls); and the engine's building blocks that the HTTP and adapters
 * packages share (search index queries, diffs, judging). Library users import `@trawl/core`;
 * this subpath changes with the server.
 */
export { givenOptions, parseRequest, resolveOptions, reviseResolved } from './internal/resolved.ts';
export type { ParsedRequest } from './internal/resolved.ts';
export { parseOrThrow } from './internal/zod.ts';
export { isBlockedAddress as isPrivateAddress } from './internal/address-guard.ts';
export { dayMs, daysMs, hourMs, minuteMs } from './internal/time.ts';
export { escapeHtml } from './internal/html.ts';
export { withoutUserinfo } from './internal/url.ts';
export { Semaphore } from './internal/semaphore.ts';
export { KeyedQueue } from './internal/keyed-queue.ts';

// Request building blocks: the option shapes and the checks a server makes before work.
export { scrapeOptionsShape } from './scrape/options.ts';
export { searchOptionsShape } from './search/options.ts';
export { mapOptionsShape } from './map/options.ts';
export { crawlOptionsShape, checkCrawlLimit } from './crawl/options.ts';
export { submitJob } from './crawl/index.ts';
export { openJob, StoredJob } from './crawl/stored-job.ts';
export { scrapeJobPage } from './crawl/shared-owner.ts';
export type { PageDispatch } from './crawl/shared-owner.ts';
export { jobCancelsNamespace } from './jobs/cancels.ts';
export { CancelWatch, isCancelRequested, requestCancel } from './jobs/cancels.ts';
export { JobHost } from './jobs/host.ts';
export type {
  HostedRecord,
  HostedStatus,
  JobHostOptions,
  JobKindHandler,
  RunControl,
  UnitKind,
} from './jobs/host.ts';
export type { JobRecord } from './crawl/frontier.ts';
export { crawlOptionsFromPrompt } from './crawl/prompt-options.ts';
export type { PromptOptions } from './crawl/prompt-options.ts';
export { prepareExtract } from './extract/index.ts';
export {
  monitorCreateShape,
  monitorUpdateShape,
  monitorListSchema,
  checkListSchema,
  checkPagesSchema,
  monitorWebhookEvents,
  checkStatuses,
  pageStatuses,
} from './monitor/options.ts';
export { nextRunOf, schedulePhraseExamples } from './monitor/schedule.ts';
export {
  browserSessionCreateSchema,
  browserSessionCreateShape,
  browserExecuteSchema,
  browserExecuteShape,
} from './browser/session-options.ts';
export { actionSchema, actionsSchema } from './browser/actions.ts';
export { planPromptActions, type PromptPlan } from './browser/prompt-actions.ts';

// The hosted service's business: credits, feedback, the crawl webhook envelope.
export { CreditLedger } from './credits/index.ts';
export { Admission, AdmissionTicket } from './credits/admission.ts';
export type { AdmissionRefusal, AdmissionWork, TokenAllowance } from './credits/admission.ts';
export { WebhookOutboxDrain } from './defaults/webhook-drain.ts';
export { maxWebhookMetadataBytes, webhookMetadataSchema } from './defaults/webhook-metadata.ts';
export type { WebhookOutboxDrainOptions } from './defaults/webhook-drain.ts';
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
export { eventMatches } from './defaults/webhook-notifier.ts';
export type { WebhookConfig, WebhookPayload } from './defaults/webhook-notifier.ts';

// Engine parts shared with the adapters and the server's tools.
export {
  indexFilterClauses,
  indexHitOf,
  mergeWordPasses,
  wantsAnyWordPass,
} from './search/index-query.ts';
export type { IndexHitRow } from './search/index-query.ts';
export {
  normaliseContent,
  comparableContent,
  contentHash,
  gitDiff,
  jsonDiff,
} from './diff/content-diff.ts';
export type { GitDiff } from './diff/content-diff.ts';
export { judgeByKeywords, goalTerms } from './monitor/judge.ts';
export type { JudgeInput } from './monitor/judge.ts';
export { extractJson } from './llm/extract-json.ts';
export type { JsonExtraction } from './llm/extract-json.ts';
export { chromiumArgs } from './browser/pool.ts';
export { chromiumCandidates } from './browser/find-chromium.ts';
export { debianFilterLists } from './browser/adblock.ts';
export { findSoffice } from './convert/legacy.ts';
export { looksJsRendered } from './scrape/js-rendered.ts';
export { prepareAgent } from './agent/index.ts';
export { agentOptionsShape } from './agent/options.ts';
export { jsonAsStored } from './defaults/stored-json.ts';

// Our markdown writer checked against the library it replaces, on real pages
// (bench/markdown-equivalence.ts).
export { libraryMarkdown, observeWrittenTrees } from './convert/markdown.ts';
