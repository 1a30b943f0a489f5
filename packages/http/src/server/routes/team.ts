/**
 * The team's account endpoints as the official SDK reads them: credits left and used, credits
 * and LLM tokens per day, and how many scrapes and crawls run at once.
 */
import type { CreditLedger } from '@trawl/core/server';
import type { RoutePlugin } from './index.ts';

/** Reported as remaining credits while credits are not configured (unlimited). */
const unlimitedCredits = 2 ** 31 - 1;

export const teamRoutes: RoutePlugin = (app, server) => {
  const { ledger, tokens, concurrency, jobs, limits, config } = server;

  app.get('/v2/team/credit-usage', async (request) => {
    const usage = await ledger.usage(request.team);
    return {
      success: true,
      data: {
        remainingCredits: usage.remaining ?? unlimitedCredits,
        planCredits: usage.limit ?? unlimitedCredits,
        billingPeriodStart: null,
        billingPeriodEnd: null,
        // Beyond the hosted answer: what the ledger holds, which counts even when unlimited.
        creditsUsed: usage.debited - usage.refunded,
        creditsRefunded: usage.refunded,
      },
    };
  });

  app.get('/v2/team/credit-usage/historical', async (request) => ({
    success: true,
    periods: await creditHistory(ledger, request.team),
  }));

  app.get('/v2/team/token-usage', async (request) => ({
    success: true,
    data: await tokens.current(request.team),
  }));

  app.get('/v2/team/token-usage/historical', async (request) => ({
    success: true,
    periods: await tokens.history(request.team),
  }));

  // The SDK's getQueueStatus(): the team's pages waiting and being scraped over its running
  // crawls and batch scrapes, read from the store, so every API process answers alike.
  app.get('/v2/team/queue-status', async (request) => {
    const status = await jobs.queueStatus(request.team);
    return {
      success: true,
      jobsInQueue: status.active + status.waiting,
      activeJobsInQueue: status.active,
      waitingJobsInQueue: status.waiting,
      maxConcurrency: limits.teamConcurrency || config.crawlConcurrency,
      mostRecentSuccess: status.mostRecentSuccess,
    };
  });

  app.get('/v2/concurrency-check', async (request) => ({
    success: true,
    concurrency:
      (await concurrency.running(request.team)) + (await jobs.active(request.team)).length,
    maxConcurrency: limits.teamConcurrency || config.crawlConcurrency,
  }));
};

/** Credits per UTC day from the ledger (debits less refunds), oldest first. */
async function creditHistory(ledger: CreditLedger, team: string) {
  const byDay = new Map<string, number>();
  for await (const entry of ledger.entries(team)) {
    const day = entry.at.slice(0, 10);
    byDay.set(
      day,
      (byDay.get(day) ?? 0) + (entry.kind === 'debit' ? entry.credits : -entry.credits),
    );
  }
  return [...byDay].map(([day, creditsUsed]) => ({
    startDate: `${day}T00:00:00.000Z`,
    endDate: `${day}T23:59:59.999Z`,
    creditsUsed,
  }));
}
