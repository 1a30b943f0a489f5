/**
 * Baselines a check stages and commits: a check never writes a page's baseline while it runs.
 * Every snapshot it takes (a new or changed page, a `same` or failed page seen again, a page
 * marked removed) is staged under the check, and becomes the baseline only once the check has
 * run to its end. A check killed mid-run therefore leaves the baselines of the last finished
 * check in place, and the next check compares against them: a change that only the crashed
 * check saw is reported again, never lost.
 *
 * The commit point is the check record: a check whose stored status is final (completed,
 * partial, failed after running to its end) has its staged snapshots promoted — by the check
 * itself, or, when the process died during the promotion, by the next one (`settle`), since
 * promoting is idempotent. Every way a check ends without running to its end (a stop, a crash,
 * an unexpected throw) discards its staged snapshots *before* writing its final status, so a
 * `queued`/`running` check with staged snapshots is always one to discard.
 *
 * Namespace `monitor-staged`: `<monitorId>/<checkId>/<targetId>/<url>` → the snapshot. The
 * baseline of the same page is `<monitorId>/<targetId>/<url>` in `monitor-snapshots`.
 */
import { scanStore } from '../interfaces/store.ts';
import type { MonitorRecords, Snapshot } from './records.ts';

const namespace = 'monitor-staged';

/** Stages, promotes and discards the snapshots of checks. */
export class Baselines {
  readonly #records: MonitorRecords;

  constructor(records: MonitorRecords) {
    this.#records = records;
  }

  /** Stages the snapshot a check took of one page; the latest staged one wins. */
  async stage(
    monitorId: string,
    checkId: string,
    targetId: string,
    url: string,
    snapshot: Snapshot,
  ): Promise<void> {
    const key = this.#records.snapshotKey(monitorId, targetId, url).slice(monitorId.length + 1);
    await this.#records.store.set(namespace, `${monitorId}/${checkId}/${key}`, snapshot);
  }

  /** Makes a finished check's staged snapshots the baselines (idempotent: safe to repeat). */
  async commit(monitorId: string, checkId: string): Promise<void> {
    const prefix = `${monitorId}/${checkId}/`;
    for await (const entry of scanStore<Snapshot>(this.#records.store, namespace, prefix)) {
      // Baseline first, then the staged copy: a crash in between leaves it to promote again.
      await this.#records.putSnapshotKey(
        `${monitorId}/${entry.key.slice(prefix.length)}`,
        entry.value,
      );
      await this.#records.store.delete(namespace, entry.key);
    }
  }

  /** Drops the staged snapshots of a check that did not run to its end. */
  async discard(monitorId: string, checkId: string): Promise<void> {
    await this.#deleteUnder(`${monitorId}/${checkId}/`);
  }

  /**
   * Finishes what a dead process left: promotes the snapshots of checks that ended, discards
   * those of checks it left `queued` or `running` (or that no longer exist). Call before a check
   * of the monitor starts: the check before it may have ended a moment ago and still be
   * promoting its snapshots, and promoting them twice writes the same baselines.
   */
  async settle(monitorId: string): Promise<void> {
    const checkIds = new Set<string>();
    for await (const entry of scanStore(this.#records.store, namespace, `${monitorId}/`)) {
      checkIds.add(entry.key.slice(monitorId.length + 1).split('/', 1)[0] ?? '');
    }
    for (const checkId of checkIds) {
      const check = await this.#records.getCheck(monitorId, checkId);
      if (check && check.status !== 'queued' && check.status !== 'running')
        await this.commit(monitorId, checkId);
      else await this.discard(monitorId, checkId);
    }
  }

  /** Drops every staged snapshot of a monitor (it is being deleted). */
  async deleteAll(monitorId: string): Promise<void> {
    await this.#deleteUnder(`${monitorId}/`);
  }

  async #deleteUnder(prefix: string): Promise<void> {
    for await (const entry of scanStore(this.#records.store, namespace, prefix)) {
      await this.#records.store.delete(namespace, entry.key);
    }
  }
}
