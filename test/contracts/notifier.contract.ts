/**
 * The Notifier contract as a test suite: every notifier (the webhook in core, e-mail in the
 * adapters) runs it against a real destination on 127.0.0.1 (an HTTP receiver, an SMTP server),
 * and against a destination where nothing listens. What it pins is what the monitor service relies
 * on: a monitor that does not use the notifier is left alone, a finished check with changes
 * arrives, and a failure is reported in the result, never thrown.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Monitor, MonitorCheck, MonitorCheckPage, Notifier } from '@trawl/core';

/** A notifier under test, wired to one destination. */
export interface NotifierFixture {
  notifier: Notifier;
  /** The monitor with its own settings pointing at this fixture's destination. */
  aim(monitor: Monitor): Monitor;
  /** How many check notifications the destination has received so far. */
  received(): number;
  /** Resolves once the destination has `count` notifications; rejects after a bound. */
  waitForReceived(count: number): Promise<void>;
  close(): Promise<void>;
}

/** `live`: a destination that accepts; `unreachable`: an address where nothing listens. */
export type NotifierDestination = 'live' | 'unreachable';

const now = new Date().toISOString();
const summary = { totalPages: 2, same: 1, changed: 1, new: 0, removed: 0, error: 0 };

/** A monitor that uses no notifier at all. */
function plainMonitor(): Monitor {
  return {
    id: `mon_${randomUUID()}`,
    name: 'Contract prices',
    status: 'active',
    schedule: { cron: '0 9 * * *', timezone: 'UTC' },
    nextRunAt: null,
    lastRunAt: now,
    currentCheckId: null,
    targets: [],
    webhook: null,
    notification: {},
    retentionDays: 30,
    estimatedCreditsPerMonth: 0,
    lastCheckSummary: summary,
    goal: null,
    judgeEnabled: false,
    createdAt: now,
    updatedAt: now,
  };
}

function checkOf(monitor: Monitor): MonitorCheck {
  return {
    id: `chk_${randomUUID()}`,
    monitorId: monitor.id,
    status: 'completed',
    trigger: 'manual',
    scheduledFor: null,
    startedAt: now,
    finishedAt: now,
    estimatedCredits: null,
    reservedCredits: null,
    actualCredits: null,
    billingStatus: 'not_applicable',
    summary,
    targetResults: [],
    notificationStatus: {},
    error: null,
    createdAt: now,
    updatedAt: now,
  };
}

function pageOf(status: MonitorCheckPage['status']): MonitorCheckPage {
  return {
    id: randomUUID(),
    targetId: 'tgt_1',
    url: `https://shop.example/${status}`,
    status,
    previousScrapeId: 'scr_old',
    currentScrapeId: 'scr_new',
    statusCode: 200,
    error: null,
    metadata: { title: 'Prices' },
    diff: null,
    judgment: null,
    createdAt: now,
  };
}

/** Registers the contract tests for one Notifier implementation. */
export function describeNotifierContract(
  name: string,
  make: (destination: NotifierDestination) => Promise<NotifierFixture>,
): void {
  describe(`${name} notifier contract`, () => {
    let live: NotifierFixture;
    let unreachable: NotifierFixture;
    beforeAll(async () => {
      [live, unreachable] = await Promise.all([make('live'), make('unreachable')]);
    });
    afterAll(async () => {
      await Promise.all([live.close(), unreachable.close()]);
    });

    it('has a non-empty name to file its result under', () => {
      expect(live.notifier.name).toMatch(/^\w+$/);
    });

    it('does not attempt anything for a monitor that does not use it', async () => {
      const monitor = plainMonitor();
      const before = live.received();
      const check = checkOf(monitor);
      await live.notifier.page?.({ monitor, check, page: pageOf('changed') });
      const result = await live.notifier.checkCompleted({
        monitor,
        check,
        changes: [pageOf('changed')],
      });
      await live.notifier.idle?.();
      expect(result.attempted).toBe(false);
      expect(live.received()).toBe(before);
    });

    it('delivers a finished check with a change and reports success', async () => {
      const monitor = live.aim(plainMonitor());
      const check = checkOf(monitor);
      const before = live.received();
      await live.notifier.page?.({ monitor, check, page: pageOf('changed') });
      const result = await live.notifier.checkCompleted({
        monitor,
        check,
        changes: [pageOf('changed')],
      });
      expect(result).toMatchObject({ attempted: true, success: true });
      await live.waitForReceived(before + 1);
      await live.notifier.idle?.();
    });

    it('reports a destination where nothing listens as a failure instead of throwing', async () => {
      const monitor = unreachable.aim(plainMonitor());
      const check = checkOf(monitor);
      // page() has no result to report into: a failure there must not surface at all.
      await unreachable.notifier.page?.({ monitor, check, page: pageOf('error') });
      const result = await unreachable.notifier.checkCompleted({
        monitor,
        check,
        changes: [pageOf('changed')],
      });
      expect(result).toMatchObject({ attempted: true, success: false });
      expect(typeof result.error).toBe('string');
      await unreachable.notifier.idle?.();
    });

    it('settles idle() once nothing is queued, and closes twice without error', async () => {
      await live.notifier.idle?.();
      await unreachable.notifier.idle?.();
      await unreachable.notifier.close?.();
      await unreachable.notifier.close?.();
    });
  });
}
