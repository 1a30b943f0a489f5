/**
 * The `tbs` time filter as a window of fetch or publication times. Google's syntax, which the
 * hosted service takes: `qdr:h|d|w|m|y` (the last hour … year) and `cdr:1,cd_min:…,cd_max:…`.
 */
import type { ProviderQuery } from '../interfaces/search-provider.ts';
import { hourMs } from '../internal/time.ts';

const named = {
  h: { name: 'hour', ms: hourMs },
  d: { name: 'day', ms: 24 * hourMs },
  w: { name: 'week', ms: 7 * 24 * hourMs },
  m: { name: 'month', ms: 31 * 24 * hourMs },
  y: { name: 'year', ms: 366 * 24 * hourMs },
} as const;

/** The window of a `tbs` value already checked by the schema; `undefined` when unset. */
export function timeWindowOf(tbs: string | undefined, now = Date.now()): ProviderQuery['time'] {
  if (tbs === undefined) return undefined;
  const qdr = /^qdr:([hdwmy])$/.exec(tbs);
  if (qdr) {
    const window = named[qdr[1] as keyof typeof named];
    return { from: now - window.ms, named: window.name };
  }
  const time: NonNullable<ProviderQuery['time']> = {};
  const min = /cd_min:(\d{1,2})\/(\d{1,2})\/(\d{4})/.exec(tbs);
  const max = /cd_max:(\d{1,2})\/(\d{1,2})\/(\d{4})/.exec(tbs);
  if (min) time.from = Date.UTC(Number(min[3]), Number(min[1]) - 1, Number(min[2]));
  // cd_max names a whole day: the window runs to its end.
  if (max) time.to = Date.UTC(Number(max[3]), Number(max[1]) - 1, Number(max[2])) + 24 * hourMs - 1;
  return time;
}
