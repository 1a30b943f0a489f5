/**
 * Time-ordered ids (UUID v7, as the hosted service gives feedback): stored under them, ledger
 * lines and feedback list in the order they were made, and a scan can start at a point in time.
 */
import { v7 as uuidv7 } from 'uuid';

/** A new UUID v7: its first 48 bits are the time in ms, so ids sort by creation time. */
export const timeOrderedId = (): string => uuidv7();

/**
 * The first 12 hex digits of a UUID v7 made at `time` ('xxxxxxxx-xxxx'): every id made at or
 * after `time` sorts after it, every id made before sorts before it. A store scan that starts
 * after it skips everything older.
 */
export function uuidTimePrefix(time: Date): string {
  const hex = Math.max(0, time.getTime()).toString(16).padStart(12, '0').slice(-12);
  return `${hex.slice(0, 8)}-${hex.slice(8)}`;
}
