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

/** A schedule as monitors keep and show it. */
export interface MonitorSchedule {
  /** Five numeric fields: minute hour day-of-month month day-of-week (Sunday 0 or 7). */
  cron: string;
  /** IANA zone the cron is read in. */
  timezone: string;
}

/** Phrases a 400 for an unreadable schedule suggests. */
export const schedulePhraseExamples = [
  'every 30 minutes',
  'every 15 minutes starting at :07',
  'hourly',
  'every 2 hours',
  'daily at 9:30 pm',
  'weekdays at 18:30',
  'every monday at noon',
  'twice a day',
  'weekly',
  'every 1st of the month at 8am',
  'every 30 minutes between 9am and 5pm on weekdays',
] as const;

const dayNames: Record<string, number> = {
  sunday: 0,
  sun: 0,
  monday: 1,
  mon: 1,
  tuesday: 2,
  tue: 2,
  tues: 2,
  wednesday: 3,
  wed: 3,
  thursday: 4,
  thu: 4,
  thur: 4,
  thurs: 4,
  friday: 5,
  fri: 5,
  saturday: 6,
  sat: 6,
};

const numberWords: Record<string, string> = {
  one: '1',
  two: '2',
  three: '3',
  four: '4',
  five: '5',
  six: '6',
  seven: '7',
  eight: '8',
  nine: '9',
  ten: '10',
  eleven: '11',
  twelve: '12',
  fifteen: '15',
  twenty: '20',
  thirty: '30',
  'forty-five': '45',
  'forty five': '45',
};

const ordinalWords: Record<string, number> = {
  first: 1,
  second: 2,
  third: 3,
  fourth: 4,
  fifth: 5,
  tenth: 10,
  fifteenth: 15,
  twentieth: 20,
};

/** How often a day is split by 'N times a day'. */
const timesPerDay: Record<string, number> = { once: 1, twice: 2, thrice: 3 };

/** Why a phrase cannot be read; becomes the 400's message. */
class Unreadable extends Error {}

/** Lower-case, single spaces, no commas or trailing full stop, number words as digits. */
function normalisePhrase(text: string): string {
  let phrase = text
    .toLowerCase()
    .replace(/[,;]/g, ' ')
    .replace(/\.$/, '')
    .replace(/\s+/g, ' ')
    .trim();
  for (const [word, digits] of Object.entries(numberWords)) {
    phrase = phrase.replace(new RegExp(`\\b${word}\\b`, 'g'), digits);
  }
  // '9 a.m.' and '9 p.m.' are common; '9am' is what the rest of the grammar reads.
  return phrase
    .replace(/\b([ap])\.m\.?/g, '$1m')
    .replace(/(\d)\s+([ap]m)\b/g, '$1$2')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A time of day. */
interface Clock {
  hour: number;
  minute: number;
}

const timePattern = String.raw`(?:noon|midnight|\d{1,2}(?::\d{2})?(?:am|pm)?)`;

function parseClock(text: string): Clock {
  if (text === 'noon') return { hour: 12, minute: 0 };
  if (text === 'midnight') return { hour: 0, minute: 0 };
  const match = /^(\d{1,2})(?::(\d{2}))?(am|pm)?$/.exec(text);
  if (!match) throw new Unreadable(`'${text}' is not a time of day`);
  let hour = Number(match[1]);
  const minute = Number(match[2] ?? 0);
  const half = match[3];
  if (half) {
    if (hour < 1 || hour > 12) throw new Unreadable(`'${text}' is not a 12-hour time`);
    hour = (hour % 12) + (half === 'pm' ? 12 : 0);
  }
  if (hour > 23 || minute > 59) throw new Unreadable(`'${text}' is not a time of day`);
  return { hour, minute };
}

/** Times joined by 'and' (or a comma, gone after normalising). */
function parseClockList(text: string): Clock[] {
  return text
    .split(/\s+(?:and|&)\s+|\s+/)
    .filter((part) => part.length > 0)
    .map(parseClock);
}

function parseDay(word: string): number {
  const day = dayNames[word.replace(/s$/, '')] ?? dayNames[word];
  if (day === undefined) throw new Unreadable(`'${word}' is not a day of the week`);
  return day;
}

/** 'monday', 'mondays and thursdays', 'monday through friday', 'weekdays', 'weekends'. */
function parseDays(text: string): string {
  if (/^(?:every )?(?:weekday|weekdays|week days)$/.test(text)) return '1-5';
  if (/^(?:every )?(?:weekend|weekends)$/.test(text)) return '0,6';
  const range = /^([a-z]+) (?:through|thru|to|until|-) ([a-z]+)$/.exec(text);
  if (range) {
    const [from, to] = [parseDay(range[1] ?? ''), parseDay(range[2] ?? '')];
    if (from >= to) throw new Unreadable(`the day range '${text}' must run forwards in the week`);
    return `${from}-${to}`;
  }
  const days = text
    .split(/\s+(?:and|&)\s+|\s+/)
    .filter((part) => part.length > 0)
    .map(parseDay);
  return [...new Set(days)].sort((a, b) => a - b).join(',');
}

function parseOrdinal(word: string): number {
  const named = ordinalWords[word];
  const day = named ?? Number(/^(\d{1,2})(?:st|nd|rd|th)?$/.exec(word)?.[1] ?? NaN);
  if (!Number.isInteger(day) || day < 1 || day > 31)
    throw new Unreadable(`'${word}' is not a day of the month`);
  return day;
}

function parseOrdinals(text: string): string {
  const days = text
    .split(/\s+(?:and|&)\s+|\s+/)
    .filter((part) => part.length > 0)
    .map(parseOrdinal);
  return [...new Set(days)].sort((a, b) => a - b).join(',');
}

/** What the optional clauses after a phrase's head say. */
interface Clauses {
  times?: Clock[];
  window?: [Clock, Clock];
  days?: string;
  start?: Clock;
  startMinute?: number;
}

const dayWord = String.raw`(?:sunday|monday|tuesday|wednesday|thursday|friday|saturday|sun|mon|tues|tue|wed|thurs|thur|thu|fri|sat)s?`;
const dayListPattern = String.raw`(?:weekdays?|weekends?|${dayWord}(?:(?: and | & | through | thru | to | until | - | )${dayWord})*)`;
const ordinalPattern = String.raw`(?:\d{1,2}(?:st|nd|rd|th)?|first|second|third|fourth|fifth|tenth|fifteenth|twentieth)`;

/**
 * Reads the clauses that may follow a head, in any order: `at <times>`, `between <time> and
 * <time>`, `on weekdays` / `on <days>`, `starting at <time>` or `starting at :MM`.
 */
function parseClauses(rest: string): Clauses {
  const clauses: Clauses = {};
  let text = ` ${rest} `;
  const take = (pattern: RegExp, use: (match: RegExpExecArray) => void) => {
    const match = pattern.exec(text);
    if (!match) return;
    use(match);
    text = text.slice(0, match.index) + ' ' + text.slice(match.index + match[0].length);
  };
  take(
    new RegExp(String.raw` (?:starting|start|beginning)(?: at| on| from)? :(\d{2}) `),
    (match) => {
      clauses.startMinute = Number(match[1]);
    },
  );
  take(
    new RegExp(String.raw` (?:starting|start|beginning)(?: at| on| from)? (${timePattern}) `),
    (match) => {
      clauses.start = parseClock(match[1] ?? '');
    },
  );
  take(
    new RegExp(String.raw` (?:between|from) (${timePattern}) (?:and|to|until|-) (${timePattern}) `),
    (match) => {
      clauses.window = [parseClock(match[1] ?? ''), parseClock(match[2] ?? '')];
    },
  );
  take(new RegExp(String.raw` at :(\d{2}) `), (match) => {
    clauses.startMinute = Number(match[1]);
  });
  take(new RegExp(String.raw` at (${timePattern}(?:(?: and | & | )${timePattern})*) `), (match) => {
    clauses.times = parseClockList(match[1] ?? '');
  });
  take(new RegExp(String.raw` (?:on |every )(?:the )?(${dayListPattern}) `), (match) => {
    clauses.days = parseDays(match[1] ?? '');
  });
  if (text.trim() !== '') throw new Unreadable(`cannot read '${text.trim()}'`);
  return clauses;
}

/** The minute shared by a list of times; a cron has one minute field for all of its hours. */
function sharedMinute(times: readonly Clock[]): number {
  const minutes = new Set(times.map((time) => time.minute));
  if (minutes.size > 1)
    throw new Unreadable(
      'all times of one schedule must share their minutes (e.g. 9:15 and 17:15)',
    );
  return times[0]?.minute ?? 0;
}

const hoursOf = (times: readonly Clock[]) =>
  [...new Set(times.map((time) => time.hour))].sort((a, b) => a - b).join(',');

/** `h1-h2` for a window, the end exclusive (a window 9–17 last runs in hour 16). */
function windowHours([from, to]: [Clock, Clock]): string {
  if (from.minute !== 0 || to.minute !== 0)
    throw new Unreadable('a time window must start and end on the hour');
  if (to.hour <= from.hour) throw new Unreadable('a time window must end after it starts');
  return to.hour - 1 === from.hour ? `${from.hour}` : `${from.hour}-${to.hour - 1}`;
}

function refuseClauses(clauses: Clauses, allowed: (keyof Clauses)[], head: string): void {
  for (const key of Object.keys(clauses) as (keyof Clauses)[]) {
    if (clauses[key] !== undefined && !allowed.includes(key))
      throw new Unreadable(`'${head}' cannot be combined with a '${key}' clause`);
  }
}

/** A phrase (already normalised, without a timezone suffix) as a cron. */
function phraseToCron(phrase: string): string {
  // every N minutes / every half hour / every quarter hour
  let match =
    /^(?:every|each) (?:(?:(\d+) )?(?:minutes?|mins?)|(half|quarter)(?: an)? hour)\b(.*)$/.exec(
      phrase,
    );
  if (match) {
    const step = match[2] === 'half' ? 30 : match[2] === 'quarter' ? 15 : Number(match[1] ?? 1);
    const clauses = parseClauses(match[3] ?? '');
    refuseClauses(clauses, ['startMinute', 'window', 'days'], `every ${step} minutes`);
    if (step < 1 || step > 60 || 60 % step !== 0)
      throw new Unreadable(
        `every ${step} minutes cannot be written as a cron: the minutes must divide 60 (5, 10, 15, 20, 30)`,
      );
    const start = clauses.startMinute ?? 0;
    if (start >= step && step !== 60)
      throw new Unreadable(`the start minute :${start} must be below the step of ${step} minutes`);
    const minute = step === 60 ? `${start}` : start > 0 ? `${start}-59/${step}` : `*/${step}`;
    const hour = clauses.window ? windowHours(clauses.window) : '*';
    return `${minute} ${hour} * * ${clauses.days ?? '*'}`;
  }

  // hourly / every hour / every N hours
  match = /^(?:hourly|(?:every|each) (?:(\d+) )?(?:hours?|hrs?))\b(.*)$/.exec(phrase);
  if (match) {
    const step = Number(match[1] ?? 1);
    const clauses = parseClauses(match[2] ?? '');
    refuseClauses(clauses, ['startMinute', 'start', 'window', 'days'], 'every N hours');
    if (step < 1 || step > 24 || 24 % step !== 0)
      throw new Unreadable(
        `every ${step} hours cannot be written as a cron: the hours must divide 24 (2, 3, 4, 6, 8, 12)`,
      );
    const minute = clauses.startMinute ?? clauses.start?.minute ?? 0;
    let hour: string;
    if (clauses.window) {
      const range = windowHours(clauses.window);
      hour = step === 1 ? range : `${range.includes('-') ? range : `${range}-${range}`}/${step}`;
    } else if (clauses.start && clauses.start.hour > 0 && step < 24) {
      hour = step === 1 ? `${clauses.start.hour}-23` : `${clauses.start.hour}-23/${step}`;
    } else {
      hour = step === 1 ? '*' : step === 24 ? `${clauses.start?.hour ?? 0}` : `*/${step}`;
    }
    return `${minute} ${hour} * * ${clauses.days ?? '*'}`;
  }

  // twice a day / 3 times a day / 4 times daily
  match =
    /^(once|twice|thrice|(\d+) times) (?:a|an|per|each|every) day\b(.*)$|^(once|twice|thrice|(\d+) times) daily\b(.*)$/.exec(
      phrase,
    );
  if (match) {
    const word = match[1] ?? match[4] ?? '';
    const count = timesPerDay[word] ?? Number(match[2] ?? match[5]);
    const clauses = parseClauses(match[3] ?? match[6] ?? '');
    refuseClauses(clauses, ['days', 'start'], `${word} a day`);
    if (!Number.isInteger(count) || count < 1 || 24 % count !== 0)
      throw new Unreadable(`${count} times a day cannot be spread evenly over 24 hours`);
    const first = clauses.start ?? { hour: 0, minute: 0 };
    const gap = 24 / count;
    const hours = Array.from({ length: count }, (_, index) => (first.hour + index * gap) % 24).sort(
      (a, b) => a - b,
    );
    return `${first.minute} ${hours.join(',')} * * ${clauses.days ?? '*'}`;
  }

  // daily / every day / each day / nightly, with optional times
  match = /^(?:daily|nightly|(?:every|each) (?:day|night))\b(.*)$/.exec(phrase);
  if (match) {
    const clauses = parseClauses(match[1] ?? '');
    refuseClauses(clauses, ['times', 'days'], 'daily');
    const times = clauses.times ?? [{ hour: 0, minute: 0 }];
    return `${sharedMinute(times)} ${hoursOf(times)} * * ${clauses.days ?? '*'}`;
  }

  // weekly / every week [on <day>] [at <time>]
  match = /^(?:weekly|(?:every|each|once a) week)\b(.*)$/.exec(phrase);
  if (match) {
    const clauses = parseClauses(match[1] ?? '');
    refuseClauses(clauses, ['times', 'days'], 'weekly');
    const times = clauses.times ?? [{ hour: 0, minute: 0 }];
    const day = clauses.days ?? '0';
    if (!/^\d$/.test(day)) throw new Unreadable("'weekly' runs on one day of the week");
    return `${sharedMinute(times)} ${hoursOf(times)} * * ${day}`;
  }

  // monthly / every month [on the 1st and 15th] [at <time>]
  match = new RegExp(
    String.raw`^(?:monthly|(?:every|each|once a) month)(?: on the (${ordinalPattern}(?:(?: and | & | )${ordinalPattern})*)(?: day)?)?\b(.*)$`,
  ).exec(phrase);
  if (match) {
    const clauses = parseClauses(match[2] ?? '');
    refuseClauses(clauses, ['times'], 'monthly');
    const times = clauses.times ?? [{ hour: 0, minute: 0 }];
    return `${sharedMinute(times)} ${hoursOf(times)} ${match[1] ? parseOrdinals(match[1]) : '1'} * *`;
  }

  // on the 1st and 15th [of every month] [at <time>]; every 1st of the month at 8am
  match = new RegExp(
    String.raw`^(?:on |every |each )?the (${ordinalPattern}(?:(?: and | & | )${ordinalPattern})*)(?: day)?(?: of (?:every|each|the) month)?\b(.*)$|^(?:every|each) (${ordinalPattern}(?:(?: and | & | )${ordinalPattern})*)(?: day)? of (?:every|each|the) month\b(.*)$`,
  ).exec(phrase);
  if (match) {
    const ordinals = match[1] ?? match[3] ?? '';
    const clauses = parseClauses(match[2] ?? match[4] ?? '');
    refuseClauses(clauses, ['times'], 'a day of the month');
    const times = clauses.times ?? [{ hour: 0, minute: 0 }];
    return `${sharedMinute(times)} ${hoursOf(times)} ${parseOrdinals(ordinals)} * *`;
  }

  // every weekday / weekends / every monday / mondays and thursdays / monday through friday
  match = new RegExp(String.raw`^(?:(?:every|each|on) )?(${dayListPattern})\b(.*)$`).exec(phrase);
  if (match) {
    const days = parseDays(match[1] ?? '');
    const clauses = parseClauses(match[2] ?? '');
    refuseClauses(clauses, ['times'], match[1] ?? 'days');
    const times = clauses.times ?? [{ hour: 0, minute: 0 }];
    return `${sharedMinute(times)} ${hoursOf(times)} * * ${days}`;
  }

  // at 9am and 5pm [on weekdays]
  if (phrase.startsWith('at ')) {
    const clauses = parseClauses(phrase);
    refuseClauses(clauses, ['times', 'days'], 'at <time>');
    const times = clauses.times ?? [];
    return `${sharedMinute(times)} ${hoursOf(times)} * * ${clauses.days ?? '*'}`;
  }

  throw new Unreadable('unknown words');
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
const yearMs = 366 * 24 * 60 * 60 * 1000;

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
      `Monitor schedule must not run more often than every ${minIntervalMinutes} minutes ('${cron}' runs ${Math.round(shortestMs / 60_000)} minute(s) apart)`,
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
    const date = new Date(from.getTime() + offset * 24 * 60 * 60 * 1000);
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
