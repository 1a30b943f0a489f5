/**
 * The team's account endpoints as the official SDK reads them: credits left and used, credits
 * and LLM tokens per day, and how many scrapes and crawls run at once.
 */
import type { RoutePlugin } from './index.ts';

/** Reported as remaining credits while credits are not configured (unlimited). */
const unlimitedCredits = 2 ** 31 - 1;

export const teamRoutes: RoutePlugin = (app, server) => {
  const { admission, tokens, concurrency, jobs, limits, config } = server;

  app.get('/v2/team/credit-usage', async (request) => {
    const usage = await admission.usage(request.team);
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
    periods: (await admission.dailyCredits(request.team)).map(({ day, credits }) => ({
      startDate: `${day}T00:00:00.000Z`,
      endDate: `${day}T23:59:59.999Z`,
      creditsUsed: credits,
    })),
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
