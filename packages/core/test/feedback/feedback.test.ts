import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type FeedbackError, MemoryStore } from '@trawl/core';
import {
  CreditLedger,
  FeedbackService,
  listFeedback,
  type FeedbackJob,
  type FeedbackSettings,
} from '@trawl/core/server';

const day = 24 * 60 * 60 * 1000;
/** 2025-03-01T23:00:00Z: an hour before a UTC day ends. */
const lateEvening = Date.parse('2025-03-01T23:00:00Z');

/**
 * A service over a memory store, with a clock the test moves, and jobs the test adds: each job is
 * charged to the ledger as the server charges it, and findable as the server's records are.
 */
function desk(settings: FeedbackSettings = {}) {
  const store = new MemoryStore();
  const ledger = new CreditLedger(store);
  const jobs = new Map<string, FeedbackJob>();
  const clock = { now: lateEvening };
  const service = new FeedbackService({
    store,
    ledger,
    settings,
    findJob: (team, id) => {
      const job = jobs.get(id);
      return Promise.resolve(job?.team === team ? job : undefined);
    },
    now: () => clock.now,
  });
  const addJob = async (
    team: string,
    endpoint: 'scrape' | 'map' | 'parse' | 'search',
    credits: number,
    status = 'completed',
  ) => {
    const id = randomUUID();
    jobs.set(id, {
      id,
      team,
      endpoint,
      status,
      creditsUsed: credits,
      createdAt: new Date(clock.now).toISOString(),
    });
    await ledger.debit(team, credits, { endpoint, jobId: id });
    return id;
  };
  return { store, ledger, service, clock, addJob };
}

describe('FeedbackService', () => {
  it('refunds all of a bad job, half of a partial one, none of a good one', async () => {
    const { service, addJob, ledger } = desk();
    const bad = await addJob('team-a', 'scrape', 7);
    const partial = await addJob('team-a', 'map', 7);
    const good = await addJob('team-a', 'parse', 7);
    const rate = (jobId: string, endpoint: string, rating: string) =>
      service.submit('team-a', { jobId, endpoint, rating, note: 'checked by hand' });
    expect(await rate(bad, 'scrape', 'bad')).toMatchObject({
      creditsRefunded: 7,
      creditsRefundedToday: 7,
    });
    expect(await rate(partial, 'map', 'partial')).toMatchObject({
      creditsRefunded: 3,
      creditsRefundedToday: 10,
    });
    expect(await rate(good, 'parse', 'good')).toEqual({
      success: true,
      feedbackId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7/),
      creditsRefunded: 0,
      creditsRefundedToday: 10,
      dailyRefundCap: 50,
      dailyCapReached: false,
      alreadySubmitted: false,
    });
    expect(await ledger.usage('team-a')).toMatchObject({ debited: 21, refunded: 10 });
  });

  it('counts the cap per UTC day: a new day refunds again', async () => {
    const { service, addJob, clock } = desk({ dailyRefundCap: 5, windowMs: 2 * day });
    const first = await addJob('team-a', 'scrape', 4);
    const second = await addJob('team-a', 'scrape', 4);
    const body = (jobId: string) => ({ jobId, endpoint: 'scrape', rating: 'bad', issues: ['x'] });
    expect(await service.submit('team-a', body(first))).toMatchObject({
      creditsRefunded: 4,
      dailyCapReached: false,
    });
    expect(await service.submit('team-a', body(second))).toMatchObject({
      creditsRefunded: 1,
      creditsRefundedToday: 5,
      dailyCapReached: true,
      warning: expect.stringMatching(/^Daily refund cap of 5 credits reached/),
    });
    // Two hours later it is the next UTC day.
    clock.now += 2 * 60 * 60 * 1000;
    const third = await addJob('team-a', 'scrape', 4);
    expect(await service.submit('team-a', body(third))).toMatchObject({
      creditsRefunded: 4,
      creditsRefundedToday: 4,
    });
  });

  it('answers a second feedback on a job with the first id and no refund', async () => {
    const { service, addJob } = desk();
    const job = await addJob('team-a', 'scrape', 3);
    const first = await service.submit('team-a', {
      jobId: job,
      endpoint: 'scrape',
      rating: 'bad',
      note: 'empty',
    });
    const second = await service.submit('team-a', {
      jobId: job,
      endpoint: 'scrape',
      rating: 'bad',
      note: 'still empty',
    });
    expect(second).toEqual({
      success: true,
      feedbackId: first.feedbackId,
      creditsRefunded: 0,
      creditsRefundedToday: 3,
      dailyRefundCap: 50,
      dailyCapReached: false,
      alreadySubmitted: true,
      warning: 'Feedback was already submitted for this job; no additional refund issued.',
    });
  });

  it('takes two submissions at once on one job as one refund', async () => {
    const { service, addJob, ledger } = desk();
    const job = await addJob('team-a', 'scrape', 6);
    const body = { jobId: job, endpoint: 'scrape', rating: 'bad', note: 'broken' };
    const answers = await Promise.all([
      service.submit('team-a', body),
      service.submit('team-a', body),
      service.submit('team-a', body),
    ]);
    expect(answers.map((answer) => answer.creditsRefunded).sort()).toEqual([0, 0, 6]);
    expect(new Set(answers.map((answer) => answer.feedbackId)).size).toBe(1);
    expect(await ledger.jobCharges('team-a', job)).toEqual({ debited: 6, refunded: 6 });
  });

  it('lists stored feedback by team, endpoint and time', async () => {
    const { service, addJob, store, clock } = desk({ windowMs: 10 * day });
    const early = await addJob('team-a', 'scrape', 1);
    await service.submit('team-a', {
      jobId: early,
      endpoint: 'scrape',
      rating: 'good',
      url: 'https://a.example/',
    });
    clock.now += day;
    const later = await addJob('team-b', 'map', 1);
    await service.submit('team-b', {
      jobId: later,
      endpoint: 'map',
      rating: 'bad',
      issues: ['missing_links'],
    });
    const list = async (filter: Parameters<typeof listFeedback>[1]) => {
      const found = [];
      for await (const feedback of listFeedback(store, filter)) found.push(feedback.jobId);
      return found;
    };
    expect(await list({})).toEqual([early, later]);
    expect(await list({ team: 'team-b' })).toEqual([later]);
    expect(await list({ endpoint: 'scrape' })).toEqual([early]);
    // The feedback ids carry the real time they were made, which is after the test started.
    expect(await list({ since: new Date(Date.now() + day) })).toEqual([]);
    const stored = [];
    for await (const feedback of listFeedback(store, { team: 'team-b' })) stored.push(feedback);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      team: 'team-b',
      endpoint: 'map',
      rating: 'bad',
      issues: ['missing_links'],
      via: 'feedback',
      jobCredits: 1,
      creditsRefunded: 1,
      createdAt: new Date(clock.now).toISOString(),
    });
  });
});

describe('FeedbackService refunds (property)', () => {
  const endpoints = ['scrape', 'map', 'parse', 'search'] as const;
  const command = fc.oneof(
    fc.record({
      kind: fc.constant('job' as const),
      team: fc.constantFrom('team-a', 'team-b'),
      endpoint: fc.constantFrom(...endpoints),
      credits: fc.integer({ min: 0, max: 40 }),
      failed: fc.boolean(),
    }),
    fc.record({
      kind: fc.constant('feedback' as const),
      // Which job: an index into those made so far (modulo their number).
      job: fc.nat(),
      asTeam: fc.constantFrom('team-a', 'team-b'),
      rating: fc.constantFrom('good', 'partial', 'bad'),
      viaSearchRoute: fc.boolean(),
    }),
    fc.record({
      kind: fc.constant('advance' as const),
      ms: fc.integer({ min: 0, max: 26 * 60 * 60 * 1000 }),
    }),
  );

  it('never refunds a team more than the cap in a UTC day, nor a job more than it cost', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(command, { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 120 }),
        async (commands, dailyRefundCap, searchDailyRefundCap) => {
          const { service, addJob, ledger, clock } = desk({
            dailyRefundCap,
            searchDailyRefundCap,
            windowMs: 3 * day,
          });
          const made: { id: string; team: string; endpoint: string; credits: number }[] = [];
          const refundedPerDay = new Map<string, number>();
          const refundedPerJob = new Map<string, number>();
          for (const step of commands) {
            if (step.kind === 'advance') {
              clock.now += step.ms;
            } else if (step.kind === 'job') {
              const id = await addJob(
                step.team,
                step.endpoint,
                step.credits,
                step.failed ? 'failed' : 'completed',
              );
              made.push({ id, team: step.team, endpoint: step.endpoint, credits: step.credits });
            } else if (made.length > 0) {
              const job = made[step.job % made.length]!;
              const signals = {
                rating: step.rating,
                valuableSources: [{ url: 'https://source.example/' }],
                missingContent: [{ topic: 'prices' }],
              };
              const result = await (
                step.viaSearchRoute && job.endpoint === 'search'
                  ? service.submitSearch(step.asTeam, job.id, signals)
                  : service.submit(step.asTeam, {
                      ...signals,
                      jobId: job.id,
                      endpoint: job.endpoint,
                    })
              ).catch((error: unknown) => (error as FeedbackError).feedbackErrorCode);
              if (typeof result === 'string') {
                expect([
                  'JOB_NOT_FOUND',
                  'SEARCH_NOT_FOUND',
                  'SEARCH_FAILED',
                  'FEEDBACK_WINDOW_EXPIRED',
                ]).toContain(result);
                continue;
              }
              const dayKey = `${step.asTeam} ${new Date(clock.now).toISOString().slice(0, 10)}`;
              const today = (refundedPerDay.get(dayKey) ?? 0) + result.creditsRefunded;
              refundedPerDay.set(dayKey, today);
              const jobTotal = (refundedPerJob.get(job.id) ?? 0) + result.creditsRefunded;
              refundedPerJob.set(job.id, jobTotal);
              // What the answer says matches what happened, and stays within the caps.
              expect(result.creditsRefundedToday).toBe(today);
              expect(result.dailyRefundCap).toBe(
                job.endpoint === 'search' ? searchDailyRefundCap : dailyRefundCap,
              );
              if (result.creditsRefunded > 0)
                expect(today).toBeLessThanOrEqual(result.dailyRefundCap);
              expect(today).toBeLessThanOrEqual(Math.max(dailyRefundCap, searchDailyRefundCap));
              expect(jobTotal).toBeLessThanOrEqual(job.credits);
            }
          }
          for (const team of ['team-a', 'team-b']) {
            const usage = await ledger.usage(team);
            const answered = [...refundedPerDay]
              .filter(([key]) => key.startsWith(`${team} `))
              .reduce((sum, [, credits]) => sum + credits, 0);
            expect(usage.refunded).toBe(answered);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
