/**
 * A page of a check against its baseline: `same`, `changed`, `new` or `error`, with the diff
 * and the judgment of what changed; the page is recorded and its baseline staged.
 *
 * Rules (monitoring.md): an `error` never replaces a baseline, so a page that fails and then
 * recovers unchanged is `same`; a page seen again after being removed is `new`.
 */
import type { Document } from '../document.ts';
import { toTrawlError } from '../errors.ts';
import { extractJson } from '../llm/extract-json.ts';
import type { CheckContext, CheckSession } from './check-session.ts';
import { creditsPerPage, type Comparison } from './comparison.ts';
import {
  changedLines,
  contentHash,
  gitDiff,
  jsonDiff,
  normaliseContent,
} from '../diff/content-diff.ts';
import type { Snapshot } from './records.ts';
import type { MonitorTarget, PageDiff, PageStatus } from './types.ts';

/** A scraped page, or why it failed. */
export type Outcome =
  | { url: string; document: Document; json?: Record<string, unknown> }
  | { url: string; error: string; statusCode: number | null };

/** Classifies one outcome against the baseline, records the page, moves the baseline. */
export async function classifyPage(
  session: CheckSession,
  target: MonitorTarget,
  comparison: Comparison,
  outcome: Outcome,
): Promise<void> {
  const { monitor, check, stage, record } = session;
  const { records } = session.context;
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
  session.scrapedPages += 1;
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
      ? await session.judge({
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
      creditsUsed: creditsPerPage(comparison, session.context.prices),
    },
    diff,
    ...(comparison.json ? { snapshot: { json: outcome.json ?? null } } : {}),
    judgment,
  });
}

/** A page's JSON extraction, when the target asks for one. */
export async function withJson(
  context: CheckContext,
  comparison: Comparison,
  url: string,
  document: Document,
): Promise<Outcome> {
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
}
