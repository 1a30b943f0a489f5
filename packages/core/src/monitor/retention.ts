/**
 * Retention: a monitor keeps its checks (with their pages) and its baselines for
 * `retentionDays`; what is older is deleted after each finished check and by the daily sweep.
 */
import { daysMs } from '../internal/time.ts';
import type { MonitorRecord, MonitorRecords } from './records.ts';

/** Deletes checks (with their pages) and baselines older than the monitor's retention. */
export async function purgeExpired(
  records: MonitorRecords,
  monitor: MonitorRecord,
  now: Date,
): Promise<void> {
  const cutoff = new Date(now.getTime() - daysMs(monitor.retentionDays)).toISOString();
  for await (const { key, id } of records.checksBefore(monitor.id, cutoff)) {
    if (id === monitor.currentCheckId) continue;
    await records.deleteCheck(monitor.id, id, key);
  }
  for await (const { key, value } of records.allSnapshots(monitor.id)) {
    if (value.seenAt < cutoff) await records.deleteSnapshotKey(key);
  }
}
