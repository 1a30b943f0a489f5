/**
 * The asynchronous steps of formats. After conversion, each format with an `enrich` hook runs
 *: LLM formats ask the model, product and menu fill gaps. One `LlmRunner` serves the
 * whole page, so its tokens add up in one place; a model that fails or hangs past the scrape's
 * `timeout` leaves a warning, never a failed page. Last, formats with a `recall` hook compare the
 * finished document with what the store remembers of earlier scrapes (changeTracking).
 */
import type { EngineConfig, EngineContext } from '../config.ts';
import type { Document } from '../document.ts';
import { deadlineOrSignal, startDeadline } from '../internal/deadline.ts';
import { LlmRunner } from '../llm/runner.ts';
import { formatHandlers } from './formats/index.ts';
import type { ResolvedScrapeOptions } from './options.ts';

/** Runs the formats' enrich hooks on `document`; `text` is the main content's markdown. */
export async function enrichDocument(
  document: Document,
  options: Pick<ResolvedScrapeOptions, 'formats' | 'timeout'>,
  text: string,
  context: EngineContext,
  config: EngineConfig,
): Promise<void> {
  const formats = options.formats.filter(
    (format) => formatHandlers[format.type].enrich !== undefined,
  );
  if (formats.length === 0) return;
  // The model gets the request's timeout of its own: a page fetched near the deadline still
  // gets its answer, and a hanging endpoint still ends.
  const deadline = startDeadline(options.timeout);
  const runner = context.llm
    ? new LlmRunner({
        llm: context.llm,
        store: context.store,
        contextTokens: config.llmContextTokens,
        maxChunks: config.llmMaxChunksPerPage,
        signal: deadlineOrSignal(deadline, context.signal),
        onUsage: context.onLlmUsage,
      })
    : undefined;
  const warnings: string[] = [];
  try {
    for (const format of formats)
      await formatHandlers[format.type].enrich?.({ text, runner, warnings }, document, format);
  } finally {
    deadline.release();
  }
  if (runner && runner.calls > 0) {
    document.metadata.llmCalls = runner.calls;
    document.metadata.llmTokens = runner.usage.inputTokens + runner.usage.outputTokens;
  }
  if (warnings.length > 0)
    document.warning = [document.warning, ...new Set(warnings)].filter(Boolean).join(' ');
}

/** Runs the formats' recall hooks (comparisons with earlier scrapes) on the finished document. */
export async function recallFormats(
  document: Document,
  options: Pick<ResolvedScrapeOptions, 'formats' | 'zeroDataRetention'>,
  context: Pick<EngineContext, 'store' | 'team'>,
): Promise<void> {
  for (const format of options.formats) {
    await formatHandlers[format.type].recall?.(
      {
        store: context.store,
        team: context.team ?? 'default',
        zeroDataRetention: options.zeroDataRetention,
      },
      document,
      format,
    );
  }
}
