/**
 * The check record, built in one place: a check as it is queued, skipped or failed. Every field
 * of the spec's check model is set here, so the records of every path carry the same shape.
 */
import type { CheckSummary, MonitorCheck, MonitorTarget } from './types.ts';
import { pendingSearchResult } from './search-target.ts';

/** An empty summary. */
export const emptySummary = (): CheckSummary => ({
  totalPages: 0,
  same: 0,
  changed: 0,
  new: 0,
  removed: 0,
  error: 0,
});

/** A check record of `monitorId` at `at`: queued and empty, with `fields` over that. */
function checkRecord(
  monitorId: string,
  trigger: MonitorCheck['trigger'],
  scheduledFor: string | null,
  at: string,
  fields: Partial<MonitorCheck>,
): MonitorCheck {
  return {
    id: crypto.randomUUID(),
    monitorId,
    status: 'queued',
    trigger,
    scheduledFor,
    startedAt: null,
    finishedAt: null,
    estimatedCredits: null,
    reservedCredits: null,
    actualCredits: null,
    billingStatus: 'not_applicable',
    summary: emptySummary(),
    targetResults: [],
    notificationStatus: {},
    error: null,
    createdAt: at,
    updatedAt: at,
    ...fields,
  };
}

/** A check about to run: a pending result per target, its credits reserved when billed. */
export function queuedCheck(
  monitor: { id: string; targets: readonly MonitorTarget[] },
  trigger: MonitorCheck['trigger'],
  scheduledFor: string | null,
  billing: { estimatedCredits: number; billed: boolean },
): MonitorCheck {
  return checkRecord(monitor.id, trigger, scheduledFor, new Date().toISOString(), {
    estimatedCredits: billing.estimatedCredits,
    billingStatus: billing.billed ? 'reserved' : 'not_applicable',
    targetResults: monitor.targets.map((target) =>
      target.type === 'scrape'
        ? { targetId: target.id, type: 'scrape', expectedJobs: [] }
        : target.type === 'search'
          ? pendingSearchResult(target.id)
          : { targetId: target.id, type: 'crawl', crawlId: '' },
    ),
  });
}

/** A scheduled run that did not happen: a check was still running, or credits were spent. */
export function skippedCheck(
  monitorId: string,
  scheduledFor: string | null,
  at: Date,
  reason: { runningCheckId: string } | 'no_credits',
): MonitorCheck {
  const iso = at.toISOString();
  return checkRecord(monitorId, 'scheduled', scheduledFor, iso, {
    status: reason === 'no_credits' ? 'skipped_no_credits' : 'skipped_overlap',
    finishedAt: iso,
    actualCredits: 0,
    error:
      reason === 'no_credits'
        ? 'Monitor check skipped: insufficient credits.'
        : `Skipped: check ${reason.runningCheckId} was still running.`,
  });
}

/** `check` ended as failed with `error`. */
export function failedCheck(check: MonitorCheck, error: string, at = new Date()): MonitorCheck {
  const iso = at.toISOString();
  return { ...check, status: 'failed', error, finishedAt: iso, updatedAt: iso };
}
