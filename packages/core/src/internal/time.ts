/**
 * Lengths of time in milliseconds, written once. Names that keep something for a while say
 * what they keep (`jobResultsRetentionMs`, `ledgerEntryRetentionMs`), so one name never means
 * two lengths.
 */

/** One minute. */
export const minuteMs = 60 * 1000;
/** One hour. */
export const hourMs = 60 * minuteMs;
/** One day. */
export const dayMs = 24 * hourMs;

/** `count` days. */
export const daysMs = (count: number): number => count * dayMs;
