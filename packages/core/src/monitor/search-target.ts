/**
 * One check of a search target: run each query through `search()` (the store's built-in index
 * and the configured web providers), and report every result no earlier finished check saw as a
 * `new` page, judged against the monitor's goal (reference-behaviour (d)).
 *
 * Seen results are remembered as baselines of the target (one per result URL), staged under the
 * check like every other baseline: a check cut short forgets what it saw, and the next check
 * reports those results again rather than losing them (baselines.ts).
 */
import { toTrawlError } from '../errors.ts';
import type { LlmProvider } from '../interfaces/llm-provider.ts';
import type { SearchContext } from '../search/engine.ts';
import { search } from '../search/index.ts';
import { judgeByKeywords, judgeWithLlm, type JudgeInput } from './judge.ts';
import type { MonitorRecords, Snapshot } from './records.ts';
import type {
  CheckTargetResult,
  Monitor,
  MonitorCheck,
  MonitorCheckPage,
  MonitorSearchTarget,
  PageJudgment,
} from './types.ts';

/** The search result fields of a check's target result. */
export type SearchTargetResult = Extract<CheckTargetResult, { type: 'search' }>;

/** What a search target's check runs with. */
export interface SearchTargetContext {
  records: MonitorRecords;
  /** The store (its built-in index), the web providers, the engine settings and the signal. */
  search: SearchContext;
  llm?: LlmProvider | undefined;
  stage: (targetId: string, url: string, snapshot: Snapshot) => Promise<void>;
  record: (page: MonitorCheckPage) => Promise<void>;
  /** Credits of one query, and of one LLM judgment. */
  price: number;
  /**
   * Takes credits from the check's reservation before a query or a judgment is made: false
   * when the team cannot pay (the query is not run; keywords judge). Unset: checks are free.
   */
  take?: (credits: number) => Promise<boolean>;
}

/** A query the check's credits could not pay for. */
const unpaidQuery = 'Insufficient credits: the query was not run (the team has no credits left).';

/**
 * The `tbs` window that covers `searchWindow`: search filters by hour, day or week, so shorter
 * windows round up; results older than the last check are dropped as already seen anyway.
 */
const tbsOfWindow: Record<MonitorSearchTarget['searchWindow'], string> = {
  '5m': 'qdr:h',
  '15m': 'qdr:h',
  '1h': 'qdr:h',
  '6h': 'qdr:d',
  '24h': 'qdr:d',
  '7d': 'qdr:w',
};

/** A target result before its check ran. */
export function pendingSearchResult(targetId: string): SearchTargetResult {
  return {
    targetId,
    type: 'search',
    searchCompleted: false,
    resultCount: 0,
    matches: 0,
    summary: '',
    judgeDegraded: false,
    degradedReason: null,
    searchCredits: 0,
    judgeCredits: 0,
    resultsJudged: 0,
  };
}

/** A result of one of the queries, first seen under `query`. */
interface Found {
  url: string;
  title?: string;
  description?: string;
  query: string;
}

/**
 * Runs the target's queries and records its new results into `result`.
 * @returns the errors of queries that failed (the check becomes partial), and the warnings of
 * providers that failed or answered in part (the check's `warning`)
 */
export async function runSearchTarget(
  context: SearchTargetContext,
  monitor: Monitor,
  check: MonitorCheck,
  target: MonitorSearchTarget,
  result: SearchTargetResult,
): Promise<{ errors: string[]; warnings: string[] }> {
  const errors: string[] = [];
  const warnings: string[] = [];
  const found = new Map<string, Found>();
  for (const query of target.queries) {
    if (context.search.signal?.aborted) break;
    if (context.take && !(await context.take(context.price))) {
      errors.push(`search "${query}": ${unpaidQuery}`);
      continue;
    }
    try {
      const answer = await search(
        query,
        {
          limit: target.maxResults,
          tbs: tbsOfWindow[target.searchWindow],
          ...(target.includeDomains ? { includeDomains: target.includeDomains } : {}),
          ...(target.excludeDomains ? { excludeDomains: target.excludeDomains } : {}),
        },
        context.search,
      );
      result.searchCredits += context.price;
      if (answer.warning) warnings.push(`Search "${query}": ${answer.warning}`);
      for (const item of answer.web ?? []) {
        if (found.has(item.url)) continue;
        found.set(item.url, {
          url: item.url,
          query,
          ...(item.title !== undefined ? { title: item.title } : {}),
          ...(item.description !== undefined ? { description: item.description } : {}),
        });
      }
    } catch (error) {
      errors.push(`search "${query}": ${toTrawlError(error).message}`);
    }
  }
  result.searchCompleted = errors.length === 0 && !context.search.signal?.aborted;
  result.resultCount = found.size;

  const judging = monitor.judgeEnabled && Boolean(monitor.goal?.trim());
  if (judging && !context.llm) {
    result.judgeDegraded = true;
    result.degradedReason = 'No LLM provider is configured: results were judged by keywords.';
  }
  let fresh = 0;
  for (const item of found.values()) {
    if (context.search.signal?.aborted) break;
    const baseline = await context.records.getSnapshot(monitor.id, target.id, item.url);
    if (baseline) continue;
    fresh += 1;
    const now = new Date().toISOString();
    const lines = [item.title, item.description].filter((line): line is string => !!line);
    const judgment = judging
      ? await judgeResult(context, result, {
          goal: monitor.goal ?? '',
          url: item.url,
          status: 'new',
          added: lines,
          removed: [],
          context: [...lines, item.query],
        })
      : null;
    if (!judging || judgment?.meaningful) result.matches += 1;
    await context.stage(target.id, item.url, {
      scrapeId: '',
      hash: '',
      content: lines.join('\n'),
      at: now,
      seenCheckId: check.id,
      seenAt: now,
      removed: false,
    });
    await context.record({
      id: crypto.randomUUID(),
      targetId: target.id,
      url: item.url,
      status: 'new',
      previousScrapeId: null,
      currentScrapeId: null,
      statusCode: null,
      error: null,
      metadata: item.title !== undefined ? { title: item.title } : null,
      diff: null,
      judgment,
      createdAt: now,
    });
  }
  result.summary =
    `${found.size} result${found.size === 1 ? '' : 's'} for ${target.queries.length} quer${target.queries.length === 1 ? 'y' : 'ies'}, ` +
    `${fresh} new, ${result.matches} matching${warnings.length > 0 ? ' (see the check warning)' : ''}`;
  return { errors, warnings };
}

/** The LLM's verdict, or the keywords' when there is no LLM or it fails (the judge degrades). */
async function judgeResult(
  context: SearchTargetContext,
  result: SearchTargetResult,
  input: JudgeInput,
): Promise<PageJudgment> {
  result.resultsJudged += 1;
  if (!context.llm) return judgeByKeywords(input);
  if (context.take && !(await context.take(context.price))) {
    result.judgeDegraded = true;
    result.degradedReason = 'The credits left cannot pay for the LLM judge; keywords judged.';
    return judgeByKeywords(input);
  }
  const verdict = await judgeWithLlm(context.llm, input, context.search.signal);
  if ('judgment' in verdict) {
    result.judgeCredits += context.price;
    return verdict.judgment;
  }
  result.judgeDegraded = true;
  result.degradedReason = `The LLM judge failed (${verdict.error}); keywords judged instead.`;
  return judgeByKeywords(input);
}
