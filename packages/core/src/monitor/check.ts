/**
 * One check of a monitor: run each target (scrape-target.ts, crawl-target.ts, search-target.ts),
 * which classify their pages against the baselines (classify.ts) and record them, then decide
 * the check's status, commit the baselines and tell the notifiers.
 *
 * Baselines move only when the check runs to its end (baselines.ts): what it sees is staged
 * under the check and committed once its final record is saved, so a check cut short leaves the
 * last finished check's baselines for the next one to compare against.
 */
import type { EngineContext } from '../config.ts';
import { toTrawlError } from '../errors.ts';
import { Baselines } from './baselines.ts';
import { CheckSession, type CheckContext } from './check-session.ts';
import { scrapedPagesCredits } from './comparison.ts';
import { runCrawlTarget } from './crawl-target.ts';
import { runScrapeTarget } from './scrape-target.ts';
import { runSearchTarget } from './search-target.ts';
import type { Monitor, MonitorCheck, MonitorTarget } from './types.ts';

export type { CheckContext } from './check-session.ts';

/** What a finished check leaves. */
export interface CheckRun {
  /** The final check record (already saved). */
  check: MonitorCheck;
  /** Pages each crawl target reached, for the credit estimate. */
  pagesSeen: Map<string, number>;
}

/**
 * Runs one check to its end. `save` is called with the check as its pages are recorded, once
 * they are all recorded, and again with the notifiers' results.
 */
export async function runCheck(
  context: CheckContext,
  monitor: Monitor,
  check: MonitorCheck,
  save: (check: MonitorCheck) => Promise<void>,
): Promise<CheckRun> {
  const baselines = new Baselines(context.records);
  // What a dead process left staged (a check cut short, or committed half-way) is settled first.
  await baselines.settle(monitor.id);
  const session = new CheckSession(context, monitor, check, baselines, save);
  const engine: EngineContext = {
    team: context.team,
    config: context.config,
    signal: context.signal,
    ...(context.fetchers ? { fetchers: context.fetchers } : {}),
  };
  for (const target of monitor.targets) {
    if (context.signal.aborted) break;
    try {
      await runTarget(session, target, engine);
    } catch (error) {
      session.targetErrors.push(
        `${target.type} target ${target.id}: ${toTrawlError(error).message}`,
      );
    }
  }
  await session.recorded();
  const { summary, targetErrors, warnings } = session;

  const final: MonitorCheck = {
    ...check,
    summary,
    finishedAt: new Date().toISOString(),
    updatedAt: new Date().toISOString(),
  };
  // Read once: a stop that lands after this point must not leave a completed check uncommitted.
  const ranToEnd = !context.signal.aborted;
  if (!ranToEnd) {
    // Dropped before the failed status is saved: a `running` check never has snapshots to keep.
    await baselines.discard(monitor.id, check.id);
    final.status = 'failed';
    final.error = 'The check was stopped before it finished (the process is shutting down).';
  } else if (summary.totalPages > 0 && summary.error === summary.totalPages) {
    final.status = 'failed';
    final.error = targetErrors[0] ?? 'Every page of the check failed.';
  } else if (summary.totalPages === 0 && targetErrors.length > 0) {
    final.status = 'failed';
    final.error = targetErrors.join('; ');
  } else if (summary.error > 0 || targetErrors.length > 0) {
    final.status = 'partial';
    final.error = targetErrors.length > 0 ? targetErrors.join('; ') : null;
  } else {
    final.status = 'completed';
  }
  if (warnings.length > 0) final.warning = warnings.join(' ');
  final.actualCredits =
    scrapedPagesCredits(monitor, session.scrapedPages, context.prices) + session.searchCredits;
  // Saving the final record is the commit point; the promotion after it can be redone.
  await save(final);
  if (ranToEnd) await baselines.commit(monitor.id, check.id);

  const notificationStatus: Record<string, unknown> = {};
  for (const notifier of context.notifiers) {
    notificationStatus[notifier.name] = await notifier.checkCompleted({
      team: context.team,
      monitor,
      check: final,
      changes: session.changes,
    });
  }
  const notified = { ...final, notificationStatus, updatedAt: new Date().toISOString() };
  await save(notified);
  return { check: notified, pagesSeen: session.pagesSeen };
}

/** Runs one target's part of the check, by its kind. */
async function runTarget(
  session: CheckSession,
  target: MonitorTarget,
  engine: EngineContext,
): Promise<void> {
  if (target.type === 'scrape') return runScrapeTarget(session, target, engine);
  if (target.type === 'crawl') return runCrawlTarget(session, target, engine);
  const { context, monitor, check, stage, record } = session;
  const result = check.targetResults.find((entry) => entry.targetId === target.id);
  if (result?.type !== 'search') return;
  const search = {
    ...engine,
    store: context.records.store,
    providers: context.searchProviders ?? [],
  };
  const { errors, warnings } = await runSearchTarget(
    {
      records: context.records,
      search,
      llm: context.llm,
      stage,
      record,
      price: context.prices.cost('monitor'),
      ...(context.take ? { take: context.take } : {}),
    },
    monitor,
    check,
    target,
    result,
  );
  session.searchCredits += result.searchCredits + result.judgeCredits;
  session.targetErrors.push(...errors);
  session.warnings.push(...warnings);
}
