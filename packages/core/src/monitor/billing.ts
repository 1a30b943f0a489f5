/**
 * What monitor checks cost: the monthly estimate a monitor shows, the reservation a check runs
 * within (each page takes its credits from it first), and settling a finished check with what
 * it cost (the server's `Admission` fits `MonitorCredits`).
 */
import type { Admission, AdmissionTicket } from '../credits/admission.ts';
import { defaultPrices, type PriceTable } from '../credits/prices.ts';
import { minuteMs } from '../internal/time.ts';
import { comparisonOf, creditsPerPage, scrapedPagesCredits } from './comparison.ts';
import type { MonitorRecord } from './records.ts';
import { runsPerMonth } from './schedule.ts';
import type { MonitorCheck } from './types.ts';

/** How monitor checks are paid for: admission (its prices, and a reservation per check). */
export type MonitorCredits = Pick<Admission, 'allows' | 'admit' | 'prices'>;

/** The prices checks are counted in: admission's, or the defaults when checks are free. */
export const pricesOf = (credits: MonitorCredits | undefined): PriceTable =>
  credits?.prices ?? defaultPrices;

/** A check's reservation lasts as long as a check may run; a dead worker's lapses then. */
const checkLeaseMs = 60 * minuteMs;

/**
 * Reserves a check's credits before it runs: its estimate, or what the team has left (at least
 * one page). Undefined when the checks are free; 'refused' when the team cannot pay one page.
 */
export async function admitCheck(
  credits: MonitorCredits | undefined,
  monitor: MonitorRecord,
  check: MonitorCheck,
): Promise<AdmissionTicket | 'refused' | undefined> {
  if (!credits) return undefined;
  const admitted = await credits.admit(monitor.team, {
    credits: Math.max(check.estimatedCredits ?? 0, pageTake(credits, monitor)),
    atLeast: pageTake(credits, monitor),
    id: check.id,
    leaseMs: checkLeaseMs,
  });
  return 'reason' in admitted ? 'refused' : admitted;
}

/** What a page of `monitor` takes from its check's reservation. */
export function pageTake(credits: MonitorCredits, monitor: MonitorRecord): number {
  return scrapedPagesCredits(monitor, 1, credits.prices);
}

/** Pages a crawl target counts for, before its first check, when it sets no limit. */
const defaultCrawlEstimate = 100;

/**
 * Credits a month of checks costs: runs in the next 30 days × (pages of every target × credits
 * per page, dearer with a JSON extraction; a search target's queries at the monitor price). A
 * crawl target counts the pages its last check reached; before that, its `limit`, or 100 pages
 * without one.
 */
export function estimateMonthlyCredits(
  record: MonitorRecord,
  credits: MonitorCredits | undefined,
): number {
  const runs = runsPerMonth(record.schedule);
  const prices = pricesOf(credits);
  let perRun = 0;
  for (const target of record.targets) {
    // A search target costs a query's price per query (its results are not scraped).
    if (target.type === 'search') {
      perRun += prices.cost('monitor', target.queries.length);
      continue;
    }
    const rate = creditsPerPage(comparisonOf(target.scrapeOptions), prices);
    const pages =
      target.type === 'scrape'
        ? target.urls.length
        : (record.pagesSeen?.[target.id] ?? target.crawlOptions?.limit ?? defaultCrawlEstimate);
    perRun += pages * rate;
  }
  return runs * perRun;
}

/** The credits one run is expected to cost, from the monthly estimate. */
export function estimatedCreditsPerRun(record: MonitorRecord): number {
  return Math.round(record.estimatedCreditsPerMonth / Math.max(1, runsPerMonth(record.schedule)));
}

/**
 * Settles a finished check's ticket: `confirmed` when debited, `released` when it cost nothing,
 * `failed` when the debit failed (told to `warn`). Unbilled checks come back as they are.
 */
export async function chargeCheck(
  credits: MonitorCredits | undefined,
  ticket: AdmissionTicket | undefined,
  check: MonitorCheck,
  warn: (message: string, error?: unknown) => void,
): Promise<MonitorCheck> {
  if (!credits || !ticket) return check;
  try {
    await ticket.settle({ monitor: check.actualCredits ?? 0 });
    if (!check.actualCredits) return { ...check, billingStatus: 'released' };
    return { ...check, billingStatus: 'confirmed' };
  } catch (error) {
    warn(`charging check ${check.id} failed`, error);
    return { ...check, billingStatus: 'failed' };
  }
}
