/**
 * Plain-language monitor schedules ('every monday at noon', 'twice a day', 'every 1st of the
 * month at 8am' …) read into numeric 5-field crons. The grammar is ours (monitoring.md d.2);
 * schedule.ts checks and evaluates the cron.
 */

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
export class Unreadable extends Error {}

/** Lower-case, single spaces, no commas or trailing full stop, number words as digits. */
export function normalisePhrase(text: string): string {
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
export function phraseToCron(phrase: string): string {
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
