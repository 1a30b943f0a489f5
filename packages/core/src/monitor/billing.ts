/**
 * What monitor checks cost: the monthly estimate a monitor shows, and charging a finished check
 * to the team (the credits ledger fits `MonitorCredits`).
 */
import { comparisonOf, creditsPerPage } from './comparison.ts';
import type { MonitorRecord } from './records.ts';
import { runsPerMonth } from './schedule.ts';
import type { MonitorCheck } from './types.ts';

/** How monitor checks are paid for; the credits ledger fits. */
export interface MonitorCredits {
  /** Whether the team may spend `credits` now. */
  allows(team: string, credits?: number): Promise<boolean>;
  /** Charges a finished check. */
  debit(
    team: string,
    credits: number,
    reference: { endpoint: 'monitor'; jobId?: string },
  ): Promise<unknown>;
  /** Credits of `units` pages of monitor checks (default: one each). */
  cost?(endpoint: 'monitor', units: number): number;
}

/** Pages a crawl target counts for, before its first check, when it sets no limit. */
const defaultCrawlEstimate = 100;

/**
 * Credits a month of checks costs: runs in the next 30 days × pages of every target × credits
 * per page (5 with a JSON extraction). A crawl target counts the pages its last check reached;
 * before that, its `limit`, or 100 pages without one.
 */
export function estimateMonthlyCredits(
  record: MonitorRecord,
  credits: MonitorCredits | undefined,
): number {
  const runs = runsPerMonth(record.schedule);
  let perRun = 0;
  for (const target of record.targets) {
    // A search target costs a credit per query (its results are not scraped).
    if (target.type === 'search') {
      perRun += target.queries.length;
      continue;
    }
    const rate = creditsPerPage(comparisonOf(target.scrapeOptions));
    const pages =
      target.type === 'scrape'
        ? target.urls.length
        : (record.pagesSeen?.[target.id] ?? target.crawlOptions?.limit ?? defaultCrawlEstimate);
    perRun += pages * rate;
  }
  return runs * (credits?.cost?.('monitor', perRun) ?? perRun);
}

/** The credits one run is expected to cost, from the monthly estimate. */
export function estimatedCreditsPerRun(record: MonitorRecord): number {
  return Math.round(record.estimatedCreditsPerMonth / Math.max(1, runsPerMonth(record.schedule)));
}

/**
 * Charges a finished check to `team`: `confirmed` when debited, `released` when it cost nothing,
 * `failed` when the debit failed (told to `warn`). Unbilled checks come back as they are.
 */
export async function chargeCheck(
  credits: MonitorCredits | undefined,
  team: string,
  check: MonitorCheck,
  warn: (message: string, error?: unknown) => void,
): Promise<MonitorCheck> {
  if (!credits) return check;
  if (!check.actualCredits) return { ...check, billingStatus: 'released' };
  try {
    const cost = credits.cost?.('monitor', check.actualCredits) ?? check.actualCredits;
    await credits.debit(team, cost, { endpoint: 'monitor', jobId: check.id });
    return { ...check, billingStatus: 'confirmed' };
  } catch (error) {
    warn(`charging check ${check.id} failed`, error);
    return { ...check, billingStatus: 'failed' };
  }
}
