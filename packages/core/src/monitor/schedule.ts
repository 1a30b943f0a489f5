/**
 * Monitor schedules: a numeric 5-field cron in an IANA timezone, or a plain-language phrase that
 * we turn into one. The grammar is ours (monitoring.md d.2): every phrase the hosted service reads
 * gives the cron it gives ('every 15 minutes starting at :07' → `7-59/15 * * * *`, 'hourly',
 * 'every 2 hours', 'daily at 9:30 pm', 'weekly'), and we read more ('weekdays at 18:30', 'every
 * monday at noon', 'twice a day', 'every 1st of the month at 8am' …). croner evaluates the cron;
 * the phrase is never stored, responses show the cron (as the hosted service does).
 *
 * Crons stay numeric (no `MON`, `L`, `#`): the hosted service's validator accepts only numbers,
 * `*`, ranges, steps and lists, and a monitor must move between the two unchanged.
 */
import { Cron } from 'croner';
import { ValidationError } from '../errors.ts';
import { daysMs } from '../internal/time.ts';
import {
  normalisePhrase,
  phraseToCron,
  schedulePhraseExamples,
  Unreadable,
} from './schedule-phrase.ts';

export { schedulePhraseExamples } from './schedule-phrase.ts';

/** A schedule as monitors keep and show it. */
export interface MonitorSchedule {
  /** Five numeric fields: minute hour day-of-month month day-of-week (Sunday 0 or 7). */
  cron: string;
  /** IANA zone the cron is read in. */
  timezone: string;
}

const macros: Record<string, string> = {
  '@hourly': '0 * * * *',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@weekly': '0 0 * * 0',
  '@monthly': '0 0 1 * *',
};

const cronFieldRanges: [number, number][] = [
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12],
  [0, 7],
];
const cronFieldNames = ['minute', 'hour', 'day of month', 'month', 'day of week'];

/** Why one item of a cron field (`*`, `n`, `a-b`, each with an optional `/step`) is wrong. */
function cronItemProblem(item: string, [min, max]: [number, number]): string | undefined {
  const match = /^(\*|(\d{1,2})(?:-(\d{1,2}))?)(?:\/(\d{1,2}))?$/.exec(item);
  if (!match) return "use only numbers, '*', ranges 'a-b', steps '/n' and commas";
  const [from, to, step] = [match[2], match[3], match[4]].map((part) =>
    part === undefined ? undefined : Number(part),
  );
  if (from !== undefined && (from < min || from > max)) return `stay within ${min}-${max}`;
  if (to !== undefined && (to < min || to > max)) return `stay within ${min}-${max}`;
  if (from !== undefined && to !== undefined && to < from) return 'give ranges low to high';
  if (step !== undefined && (step < 1 || step > max)) return `use a step from 1 to ${max}`;
  return undefined;
}

/** Why a cron is not five numeric fields in range, or undefined when it is. */
function cronProblem(cron: string): string | undefined {
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5)
    return `a cron has five fields (minute hour day-of-month month day-of-week), got ${fields.length}`;
  for (const [index, field] of fields.entries()) {
    const range = cronFieldRanges[index] ?? [0, 0];
    for (const item of field.split(',')) {
      const problem = cronItemProblem(item, range);
      if (problem) return `the ${cronFieldNames[index]} field '${field}' must ${problem}`;
    }
  }
  return undefined;
}

/** Finds the IANA zone named case-insensitively, or undefined. */
function canonicalZone(name: string): string | undefined {
  if (/^utc$/i.test(name)) return 'UTC';
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    const lower = name.toLowerCase();
    return Intl.supportedValuesOf('timeZone').find((zone) => zone.toLowerCase() === lower);
  }
}

/** Runs looked at to find the shortest gap of a schedule (a list like `0,1 * * * *` shows it). */
const gapProbeRuns = 100;
const yearMs = daysMs(366);

/** What a schedule is read with. */
export interface ScheduleInput {
  cron?: string | undefined;
  text?: string | undefined;
  timezone?: string | undefined;
}

/**
 * Reads a monitor's schedule: exactly one of `cron` or `text`, in `timezone` (default UTC, or
 * the zone a phrase names: 'daily at 9am in Europe/Berlin'). Refuses a schedule that never runs
 * within a year, or whose runs can come closer together than `minIntervalMinutes`.
 *
 * @throws BAD_REQUEST naming `schedule.cron`, `schedule.text` or `schedule.timezone`; an
 * unreadable phrase lists example phrases.
 */
export function resolveSchedule(
  input: ScheduleInput,
  minIntervalMinutes: number,
  now = new Date(),
): MonitorSchedule {
  const field = input.text !== undefined ? 'text' : 'cron';
  if ((input.cron === undefined) === (input.text === undefined)) {
    throw new ValidationError('Give the monitor schedule either cron or text, not both', {
      details: [{ path: ['schedule'], message: 'exactly one of cron and text is required' }],
    });
  }
  let timezone = input.timezone ?? 'UTC';
  let cron: string;
  if (input.cron !== undefined) {
    cron = input.cron.trim().replace(/\s+/g, ' ');
  } else {
    let text = (input.text ?? '').trim();
    // The zone keeps its case (Europe/Berlin), so it is taken off before the phrase is normalised.
    const zone = /\s+(?:in|tz)\s+([A-Za-z_]+(?:\/[A-Za-z0-9_+-]+)+|utc|gmt)\.?$|\s+(utc)\.?$/i.exec(
      text,
    );
    if (zone) {
      const named = canonicalZone(zone[1] ?? zone[2] ?? '');
      if (!named) throw invalidTimezone(zone[1] ?? zone[2] ?? '', ['schedule', 'text']);
      timezone = named;
      text = text.slice(0, zone.index);
    }
    const phrase = normalisePhrase(text);
    const literal = macros[phrase] ?? (cronProblem(phrase) === undefined ? phrase : undefined);
    if (literal !== undefined) {
      cron = literal;
    } else {
      try {
        cron = phraseToCron(phrase);
      } catch (error) {
        if (!(error instanceof Unreadable)) throw error;
        throw new ValidationError(
          `Unsupported schedule text '${input.text}' (${error.message}). Try phrases like ${schedulePhraseExamples.map((example) => `'${example}'`).join(', ')}, or give schedule.cron.`,
          { details: [{ path: ['schedule', 'text'], message: error.message }] },
        );
      }
    }
  }
  const problem = cronProblem(cron);
  if (problem) {
    throw new ValidationError(`Invalid monitor schedule cron '${cron}': ${problem}`, {
      details: [{ path: ['schedule', field], message: problem }],
    });
  }
  const zone = canonicalZone(timezone);
  if (!zone || (input.timezone !== undefined && !canonicalZone(input.timezone)))
    throw invalidTimezone(timezone, ['schedule', 'timezone']);
  timezone = zone;
  const runs = new Cron(cron, { timezone, mode: '5-part' }).nextRuns(gapProbeRuns, now);
  const first = runs[0];
  if (!first || first.getTime() - now.getTime() > yearMs) {
    throw new ValidationError(`Monitor schedule '${cron}' never runs within a year`, {
      details: [{ path: ['schedule', field], message: 'no run within a year' }],
    });
  }
  let shortestMs = Infinity;
  for (let index = 1; index < runs.length; index++) {
    shortestMs = Math.min(
      shortestMs,
      (runs[index]?.getTime() ?? Infinity) - (runs[index - 1]?.getTime() ?? 0),
    );
  }
  if (shortestMs < minIntervalMinutes * 60_000) {
    throw new ValidationError(
      `Monitor schedule must not run more often than every ${minIntervalMinutes} minutes ('${cron}' runs ${Math.round(shortestMs / 60_000)} minute(s) apart); the floor is the engine's monitorMinIntervalMinutes`,
      {
        details: [
          {
            path: ['schedule', field],
            message: `more often than every ${minIntervalMinutes} minutes`,
          },
        ],
      },
    );
  }
  return { cron, timezone };
}

function invalidTimezone(name: string, path: string[]): ValidationError {
  return new ValidationError(
    `Invalid monitor schedule timezone: ${name}. Use an IANA zone such as 'UTC' or 'Europe/Berlin'.`,
    { details: [{ path, message: 'not an IANA timezone' }] },
  );
}

/** The first run of `schedule` strictly after `after`. */
export function nextRunOf(schedule: MonitorSchedule, after: Date): Date | undefined {
  return (
    new Cron(schedule.cron, { timezone: schedule.timezone, mode: '5-part' }).nextRun(after) ??
    undefined
  );
}

/** The values a numeric cron field matches (already validated by `cronProblem`). */
function fieldValues(field: string, [min, max]: [number, number]): Set<number> {
  const values = new Set<number>();
  for (const item of field.split(',')) {
    const [range = '*', stepText] = item.split('/');
    const step = Number(stepText ?? 1);
    const [from, to] =
      range === '*'
        ? [min, max]
        : range.includes('-')
          ? range.split('-').map(Number)
          : [Number(range), stepText === undefined ? Number(range) : max];
    for (let value = from ?? min; value <= (to ?? max); value += step) values.add(value);
  }
  return values;
}

const dayFormats = new Map<string, Intl.DateTimeFormat>();
/** A formatter of calendar days in a zone, built once per zone. */
function dayFormat(timeZone: string): Intl.DateTimeFormat {
  let format = dayFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      month: 'numeric',
      day: 'numeric',
      weekday: 'short',
    });
    dayFormats.set(timeZone, format);
  }
  return format;
}

/**
 * Runs of a schedule in the 30 days from `from`, counted from its fields day by day (exact but
 * for the hour a DST change adds or drops): enumerating every run of a 5-minute schedule would
 * cost a thousand times more.
 */
export function runsPerMonth(schedule: MonitorSchedule, from = new Date()): number {
  const [minute = '*', hour = '*', dayOfMonth = '*', month = '*', dayOfWeek = '*'] =
    schedule.cron.split(' ');
  const perDay = fieldValues(minute, [0, 59]).size * fieldValues(hour, [0, 23]).size;
  const days = fieldValues(dayOfMonth, [1, 31]);
  const months = fieldValues(month, [1, 12]);
  const weekdays = new Set([...fieldValues(dayOfWeek, [0, 7])].map((day) => day % 7));
  // POSIX cron: when both day fields are restricted, a day matching either runs.
  const either = dayOfMonth !== '*' && dayOfWeek !== '*';
  let runs = 0;
  for (let offset = 0; offset < 30; offset++) {
    const date = new Date(from.getTime() + daysMs(offset));
    const local = dayFormat(schedule.timezone).formatToParts(date);
    const get = (type: string) => local.find((part) => part.type === type)?.value ?? '';
    const weekday = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(get('weekday'));
    if (!months.has(Number(get('month')))) continue;
    const domMatch = days.has(Number(get('day')));
    const dowMatch = weekdays.has(weekday);
    if (either ? domMatch || dowMatch : domMatch && dowMatch) runs += perDay;
  }
  return runs;
}
