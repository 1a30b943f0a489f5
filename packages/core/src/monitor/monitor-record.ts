/**
 * A monitor's stored record: built from a create request, changed by an update request, and
 * shown without what only the store needs.
 */
import { notificationOf, requireSearchGoal, webhookOf } from './target-input.ts';
import type { MonitorCreateInput, MonitorTargetInput, MonitorUpdateInput } from './options.ts';
import type { monitorCreateSchema, monitorUpdateSchema } from './options.ts';
import type { MonitorRecord } from './records.ts';
import { nextRunOf, type MonitorSchedule } from './schedule.ts';
import type { Monitor, MonitorTarget } from './types.ts';
import type { z } from 'zod';

type ScheduleInput = z.output<typeof monitorCreateSchema>['schedule'];

/** How a record's schedule and targets are read (the facade knows the settings and services). */
interface FieldReaders {
  schedule: (input: ScheduleInput, now: Date) => MonitorSchedule;
  targets: (inputs: readonly MonitorTargetInput[]) => MonitorTarget[];
}

/** A new monitor's record: active, its first run at its schedule's next time. */
export function newMonitorRecord(
  parsed: z.output<typeof monitorCreateSchema>,
  input: MonitorCreateInput,
  context: FieldReaders & {
    team: string;
    teamKeyOf: (team: string, createdAt: string, id: string) => string;
  },
): MonitorRecord {
  const now = new Date();
  const schedule = context.schedule(parsed.schedule, now);
  const targets = context.targets(input.targets);
  const id = crypto.randomUUID();
  const createdAt = now.toISOString();
  const goal = parsed.goal ?? null;
  requireSearchGoal({ targets, goal, judgeEnabled: parsed.judgeEnabled });
  return {
    id,
    name: parsed.name,
    status: 'active',
    schedule,
    nextRunAt: nextRunOf(schedule, now)?.toISOString() ?? null,
    lastRunAt: null,
    currentCheckId: null,
    targets,
    webhook: webhookOf(input.webhook),
    notification: notificationOf(parsed.notification),
    retentionDays: parsed.retentionDays,
    estimatedCreditsPerMonth: 0,
    lastCheckSummary: null,
    goal,
    judgeEnabled: parsed.judgeEnabled ?? Boolean(goal?.trim()),
    createdAt,
    updatedAt: createdAt,
    team: context.team,
    teamKey: context.teamKeyOf(context.team, createdAt, id),
  };
}

/**
 * Applies an update to `record`. Omitted fields stay; `webhook`, `notification` and `goal` take
 * null to clear. A `goal` without `judgeEnabled` switches judging on (spec, "States"). A new
 * schedule moves `nextRunAt`; pausing clears it and resuming sets it from now.
 */
export function applyUpdate(
  record: MonitorRecord,
  parsed: z.output<typeof monitorUpdateSchema>,
  input: MonitorUpdateInput,
  now: Date,
  read: { schedule: (input: ScheduleInput) => MonitorSchedule } & Pick<FieldReaders, 'targets'>,
): void {
  if (parsed.name !== undefined) record.name = parsed.name;
  if (parsed.retentionDays !== undefined) record.retentionDays = parsed.retentionDays;
  if (input.targets !== undefined) record.targets = read.targets(input.targets);
  if (input.webhook !== undefined) record.webhook = webhookOf(input.webhook ?? undefined);
  if (parsed.notification !== undefined) record.notification = notificationOf(parsed.notification);
  if (parsed.goal !== undefined) {
    record.goal = parsed.goal;
    if (parsed.judgeEnabled === undefined && parsed.goal?.trim()) record.judgeEnabled = true;
  }
  if (parsed.judgeEnabled !== undefined) record.judgeEnabled = parsed.judgeEnabled;
  requireSearchGoal(record);
  if (parsed.schedule !== undefined) {
    record.schedule = read.schedule(parsed.schedule);
    if (record.status === 'active')
      record.nextRunAt = nextRunOf(record.schedule, now)?.toISOString() ?? null;
  }
  if (parsed.status !== undefined && parsed.status !== record.status) {
    record.status = parsed.status;
    record.nextRunAt =
      parsed.status === 'paused' ? null : (nextRunOf(record.schedule, now)?.toISOString() ?? null);
  }
}

/** The resource without what only the store needs. */
export function publicMonitor(record: MonitorRecord): Monitor {
  const { team: _team, teamKey: _key, pagesSeen: _pages, ...monitor } = record;
  return monitor;
}
