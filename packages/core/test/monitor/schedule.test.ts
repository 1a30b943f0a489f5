/**
 * Plain-language schedules: every phrase the hosted service reads gives its cron, the phrases of
 * monitoring.md d.3 and the issue give theirs, unreadable or too-frequent schedules are refused
 * with a message that helps, and croner's next runs are true in the schedule's timezone.
 */
import { describe, expect, it } from 'vitest';
import { resolveSchedule } from '@trawl/core';
import { nextRunOf, schedulePhraseExamples } from '@trawl/core/server';

/** [phrase, cron]: the hosted service's phrases first, then ours (monitoring.md d.3 and more). */
const phrases: [string, string][] = [
  // Read by the hosted service, with the cron it gives.
  ['every 15 minutes starting at :07', '7-59/15 * * * *'],
  ['every 30 minutes', '*/30 * * * *'],
  ['hourly', '0 * * * *'],
  ['every hour', '0 * * * *'],
  ['every 2 hours', '0 */2 * * *'],
  ['daily', '0 0 * * *'],
  ['daily at 9:00', '0 9 * * *'],
  ['daily at 9:30 pm', '30 21 * * *'],
  ['every day at 9am', '0 9 * * *'],
  ['weekly', '0 0 * * 0'],
  ['every week', '0 0 * * 0'],
  // monitoring.md d.3.
  ['every 15 minutes', '*/15 * * * *'],
  ['every 5 minutes', '*/5 * * * *'],
  ['every 10 min starting at :03', '3-59/10 * * * *'],
  ['every 20 minutes', '*/20 * * * *'],
  ['every half hour', '*/30 * * * *'],
  ['every quarter hour starting at :05', '5-59/15 * * * *'],
  ['every hour at :45', '45 * * * *'],
  ['every 6 hours starting at 3am', '0 3-23/6 * * *'],
  ['every 4 hours at :30', '30 */4 * * *'],
  ['every day at noon', '0 12 * * *'],
  ['at midnight', '0 0 * * *'],
  ['twice a day', '0 0,12 * * *'],
  ['three times a day', '0 0,8,16 * * *'],
  ['at 9am and 5pm', '0 9,17 * * *'],
  ['every weekday at 8:15', '15 8 * * 1-5'],
  ['weekends at 10am', '0 10 * * 0,6'],
  ['every monday', '0 0 * * 1'],
  ['mondays and thursdays at 07:00', '0 7 * * 1,4'],
  ['monday through friday at 18:00', '0 18 * * 1-5'],
  ['every week on friday at 17:00', '0 17 * * 5'],
  ['monthly', '0 0 1 * *'],
  ['on the 1st and 15th at 8am', '0 8 1,15 * *'],
  ['every 30 minutes between 9am and 5pm on weekdays', '*/30 9-16 * * 1-5'],
  ['every hour between 8am and 6pm', '0 8-17 * * *'],
  ['@daily', '0 0 * * *'],
  ['@hourly', '0 * * * *'],
  ['0 */3 * * *', '0 */3 * * *'],
  // From the issue, and more.
  ['weekdays at 18:30', '30 18 * * 1-5'],
  ['every monday at noon', '0 12 * * 1'],
  ['every 1st of the month at 8am', '0 8 1 * *'],
  ['Every Day at 9 A.M.', '0 9 * * *'],
  ['nightly at 2:30', '30 2 * * *'],
  ['four times a day', '0 0,6,12,18 * * *'],
  ['every saturday and sunday at 7pm', '0 19 * * 0,6'],
  ['every 12 hours', '0 */12 * * *'],
  ['every 60 minutes', '0 * * * *'],
  ['monthly on the 15th at 6:45', '45 6 15 * *'],
  ['every 10 minutes on weekends', '*/10 * * * 0,6'],
];

describe('schedule phrases', () => {
  it.each(phrases)('reads %j as %j', (text, cron) => {
    expect(resolveSchedule({ text }, 5)).toEqual({ cron, timezone: 'UTC' });
  });

  it('takes a timezone named at the end of a phrase, in its proper case', () => {
    expect(resolveSchedule({ text: 'daily at 9am in europe/berlin' }, 5)).toEqual({
      cron: '0 9 * * *',
      timezone: 'Europe/Berlin',
    });
  });

  it('keeps schedule.timezone for a phrase without one', () => {
    expect(resolveSchedule({ text: 'hourly', timezone: 'Asia/Tokyo' }, 5).timezone).toBe(
      'Asia/Tokyo',
    );
  });

  it.each([
    ['every 7 minutes', 'divide 60'],
    ['every 90 minutes', 'divide 60'],
    ['every 5 hours', 'divide 24'],
    ['every 2 weeks', 'unknown words'],
    ['every other day', 'unknown words'],
    ['at 9:15 and 5:30', 'share their minutes'],
    ['whenever you like', 'unknown words'],
  ])('refuses %j, naming the field and listing examples', (text, why) => {
    let caught: unknown;
    try {
      resolveSchedule({ text }, 5);
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({
      code: 'BAD_REQUEST',
      details: [{ path: ['schedule', 'text'] }],
    });
    const message = (caught as Error).message;
    expect(message).toContain(why);
    for (const example of schedulePhraseExamples) expect(message).toContain(example);
  });

  it('refuses a schedule more frequent than the minimum interval, as text or cron', () => {
    expect(() => resolveSchedule({ text: 'every minute' }, 5)).toThrow(/every 5 minutes/);
    expect(() => resolveSchedule({ cron: '*/2 * * * *' }, 5)).toThrow(/every 5 minutes/);
    // Irregular lists count their closest runs, not only the first two.
    expect(() => resolveSchedule({ cron: '0,1 * * * *' }, 5)).toThrow(/every 5 minutes/);
    // The minimum is the operator's: 10 minutes refuses what 5 allows.
    expect(() => resolveSchedule({ text: 'every 5 minutes' }, 10)).toThrow(/every 10 minutes/);
    expect(resolveSchedule({ text: 'every 10 minutes' }, 10).cron).toBe('*/10 * * * *');
  });

  it('refuses both cron and text, neither, names in cron, a bad timezone and a schedule that never runs', () => {
    expect(() => resolveSchedule({ cron: '0 9 * * *', text: 'daily' }, 5)).toThrow(/not both/);
    expect(() => resolveSchedule({}, 5)).toThrow(/either cron or text/);
    expect(() => resolveSchedule({ cron: '0 9 * * MON' }, 5)).toThrow(/only numbers/);
    expect(() => resolveSchedule({ cron: '61 * * * *' }, 5)).toThrow(/0-59/);
    expect(() => resolveSchedule({ cron: '0 9 * *' }, 5)).toThrow(/five fields/);
    expect(() => resolveSchedule({ cron: '0 9 * * *', timezone: 'Mars/Olympus' }, 5)).toThrow(
      'Invalid monitor schedule timezone: Mars/Olympus',
    );
    expect(() => resolveSchedule({ cron: '0 0 31 2 *' }, 5)).toThrow(/never runs within a year/);
  });

  it('computes the next run strictly after a time, in the schedule timezone', () => {
    const at = new Date('2026-03-02T08:00:00Z');
    expect(nextRunOf({ cron: '0 9 * * *', timezone: 'UTC' }, at)?.toISOString()).toBe(
      '2026-03-02T09:00:00.000Z',
    );
    // 09:00 in Berlin is 08:00 UTC in winter: the run at exactly `at` is not "after" it.
    expect(nextRunOf({ cron: '0 9 * * *', timezone: 'Europe/Berlin' }, at)?.toISOString()).toBe(
      '2026-03-03T08:00:00.000Z',
    );
    expect(
      nextRunOf(
        { cron: '7-59/15 * * * *', timezone: 'UTC' },
        new Date('2026-03-02T08:10:00Z'),
      )?.toISOString(),
    ).toBe('2026-03-02T08:22:00.000Z');
  });

  it('runs a daily 02:30 job once on the day the clocks skip 02:00–03:00, and once on the day they fall back', () => {
    const schedule = { cron: '30 2 * * *', timezone: 'Europe/Berlin' };
    // 2026-03-29: Berlin skips from 02:00 to 03:00.
    const spring = nextRunOf(schedule, new Date('2026-03-28T12:00:00Z'));
    const afterSpring = nextRunOf(schedule, spring ?? new Date());
    expect(spring?.toISOString().slice(0, 10)).toBe('2026-03-29');
    expect(afterSpring?.toISOString().slice(0, 10)).toBe('2026-03-30');
    // 2026-10-25: 02:30 happens twice in Berlin; the job runs once.
    const autumn = nextRunOf(schedule, new Date('2026-10-24T12:00:00Z'));
    const afterAutumn = nextRunOf(schedule, autumn ?? new Date());
    expect(autumn?.toISOString().slice(0, 10)).toBe('2026-10-25');
    expect(afterAutumn?.toISOString().slice(0, 10)).toBe('2026-10-26');
  });
});
