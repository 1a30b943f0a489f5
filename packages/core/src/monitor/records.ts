/**
 * Where monitors, checks, check pages and snapshots live in the Store, and how they are paged.
 * Only the Store contract is used (get/set/delete and ordered prefix lists), so every backend —
 * SQLite, Redis, PostgreSQL — holds monitors the same way.
 *
 * Namespaces and keys:
 * - `monitors`: `<id>` → the monitor record (every monitor, for the scheduler).
 * - `monitors-by-team`: `<team>/<newest-first time>-<id>` → id, for a team's list, newest first.
 * - `monitor-checks`: `<monitorId>/<checkId>` → the check record.
 * - `monitor-check-order`: `<monitorId>/<newest-first time>-<checkId>` → checkId.
 * - `monitor-pages`: `<checkId>/a/<n>` → the n-th page of a check, and `<checkId>/s/<status>/<n>`
 *   → the n-th page of that status, so `skip` with or without a status filter is one cursor
 *   read (`after` the key of page skip-1), never a scan.
 * - `monitor-snapshots`: `<monitorId>/<targetId>/<url>` → the baseline a page is compared with.
 */
import { scanStore, type Store } from '../interfaces/store.ts';
import type { CheckStatus, Monitor, MonitorCheck, MonitorCheckPage, PageStatus } from './types.ts';

/** A monitor as stored: the resource plus what callers never see. */
export interface MonitorRecord extends Monitor {
  /** The team that owns it. */
  team: string;
  /** Key in `monitors-by-team`. */
  teamKey: string;
  /** Pages each crawl target had in its last check, for the credit estimate. */
  pagesSeen?: Record<string, number>;
}

/** The baseline of one page of one target. */
export interface Snapshot {
  /** The scrape this baseline came from. */
  scrapeId: string;
  /** SHA-256 of the comparable content (diff.ts). */
  hash: string;
  /** Normalised markdown, for diffs. */
  content: string;
  /** The extracted JSON, for JSON monitors. */
  json?: unknown;
  /** When it was taken (ISO). */
  at: string;
  /** The check that last saw the page (successfully or not). */
  seenCheckId: string;
  /** When the page was last seen, successfully or not (ISO); retention purges on it. */
  seenAt: string;
  /** A crawl no longer reaches the page; if it comes back it is `new` again. */
  removed: boolean;
}

const ns = {
  monitors: 'monitors',
  byTeam: 'monitors-by-team',
  checks: 'monitor-checks',
  checkOrder: 'monitor-check-order',
  pages: 'monitor-pages',
  snapshots: 'monitor-snapshots',
} as const;

/** Keys never hold a team name or URL as is: a '/' in it must not split the key. */
const part = (text: string) => encodeURIComponent(text);

/** A key part that sorts newest first: the time counted down from the year 2286. */
const newestFirst = (iso: string) => String(9_999_999_999_999 - Date.parse(iso)).padStart(13, '0');

const seq = (n: number) => String(n).padStart(9, '0');

/** Reads and writes the monitor records of one Store. */
export class MonitorRecords {
  readonly store: Store;

  constructor(store: Store) {
    this.store = store;
  }

  /** A key of `monitors-by-team` for a new monitor. */
  teamKeyOf(team: string, createdAt: string, id: string): string {
    return `${part(team)}/${newestFirst(createdAt)}-${id}`;
  }

  getMonitor(id: string): Promise<MonitorRecord | undefined> {
    return this.store.get<MonitorRecord>(ns.monitors, id);
  }

  async putMonitor(record: MonitorRecord): Promise<void> {
    await this.store.set(ns.monitors, record.id, record);
    await this.store.set(ns.byTeam, record.teamKey, record.id);
  }

  /** A team's monitors, newest first. */
  async listMonitors(team: string, limit: number, offset: number): Promise<MonitorRecord[]> {
    const entries = await this.store.list<string>(ns.byTeam, {
      prefix: `${part(team)}/`,
      limit: offset + limit,
    });
    const records = await Promise.all(
      entries.slice(offset).map((entry) => this.getMonitor(entry.value)),
    );
    return records.filter((record): record is MonitorRecord => record !== undefined);
  }

  /** Every monitor of every team, in id order, read in pages. */
  allMonitors(): AsyncGenerator<{ key: string; value: MonitorRecord }> {
    return scanStore<MonitorRecord>(this.store, ns.monitors);
  }

  /** Removes a monitor with all its checks, pages and snapshots. */
  async deleteMonitor(record: MonitorRecord): Promise<void> {
    // The index entry goes first: a half-finished delete leaves no listed monitor behind.
    await this.store.delete(ns.byTeam, record.teamKey);
    await this.store.delete(ns.monitors, record.id);
    for await (const entry of scanStore<string>(this.store, ns.checkOrder, `${record.id}/`)) {
      await this.deleteCheck(record.id, entry.value, entry.key);
    }
    for await (const entry of scanStore(this.store, ns.snapshots, `${record.id}/`)) {
      await this.store.delete(ns.snapshots, entry.key);
    }
  }

  getCheck(monitorId: string, checkId: string): Promise<MonitorCheck | undefined> {
    return this.store.get<MonitorCheck>(ns.checks, `${monitorId}/${checkId}`);
  }

  async putCheck(check: MonitorCheck): Promise<void> {
    await this.store.set(ns.checks, `${check.monitorId}/${check.id}`, check);
    await this.store.set(
      ns.checkOrder,
      `${check.monitorId}/${newestFirst(check.createdAt)}-${check.id}`,
      check.id,
    );
  }

  /** A monitor's checks, newest first, optionally of one status. */
  async listChecks(
    monitorId: string,
    limit: number,
    offset: number,
    status?: CheckStatus,
  ): Promise<MonitorCheck[]> {
    const found: MonitorCheck[] = [];
    let skipped = 0;
    for await (const entry of scanStore<string>(this.store, ns.checkOrder, `${monitorId}/`)) {
      const check = await this.getCheck(monitorId, entry.value);
      if (!check || (status !== undefined && check.status !== status)) continue;
      if (skipped < offset) {
        skipped += 1;
        continue;
      }
      found.push(check);
      if (found.length === limit) break;
    }
    return found;
  }

  /** Checks of a monitor created before `before`, oldest last (for retention). */
  async *checksBefore(
    monitorId: string,
    before: string,
  ): AsyncGenerator<{ key: string; id: string }> {
    // Newest-first keys: everything older than `before` sorts after its key.
    const after = `${monitorId}/${newestFirst(before)}`;
    for await (const entry of scanStore<string>(this.store, ns.checkOrder, `${monitorId}/`)) {
      if (entry.key > after) yield { key: entry.key, id: entry.value };
    }
  }

  /** Removes a check and its pages. */
  async deleteCheck(monitorId: string, checkId: string, orderKey: string): Promise<void> {
    await this.store.delete(ns.checkOrder, orderKey);
    for await (const entry of scanStore(this.store, ns.pages, `${checkId}/`)) {
      await this.store.delete(ns.pages, entry.key);
    }
    await this.store.delete(ns.checks, `${monitorId}/${checkId}`);
  }

  /**
   * Records a page of a check as its `index`-th page overall and `statusIndex`-th of its status
   * (both from 0; the check's summary counts give them).
   */
  async putPage(
    checkId: string,
    page: MonitorCheckPage,
    index: number,
    statusIndex: number,
  ): Promise<void> {
    await this.store.set(ns.pages, `${checkId}/a/${seq(index)}`, page);
    await this.store.set(ns.pages, `${checkId}/s/${page.status}/${seq(statusIndex)}`, page);
  }

  /** Up to `limit` pages of a check from `skip`, and whether more follow. */
  async listPages(
    checkId: string,
    skip: number,
    limit: number,
    status?: PageStatus,
  ): Promise<{ pages: MonitorCheckPage[]; more: boolean }> {
    const prefix = status === undefined ? `${checkId}/a/` : `${checkId}/s/${status}/`;
    const entries = await this.store.list<MonitorCheckPage>(ns.pages, {
      prefix,
      ...(skip > 0 ? { after: `${prefix}${seq(skip - 1)}` } : {}),
      limit: limit + 1,
    });
    return {
      pages: entries.slice(0, limit).map((entry) => entry.value),
      more: entries.length > limit,
    };
  }

  /** Every page of a check in order. */
  async *allPages(checkId: string): AsyncGenerator<MonitorCheckPage> {
    for await (const entry of scanStore<MonitorCheckPage>(this.store, ns.pages, `${checkId}/a/`)) {
      yield entry.value;
    }
  }

  snapshotKey(monitorId: string, targetId: string, url: string): string {
    return `${monitorId}/${targetId}/${part(url)}`;
  }

  getSnapshot(monitorId: string, targetId: string, url: string): Promise<Snapshot | undefined> {
    return this.store.get<Snapshot>(ns.snapshots, this.snapshotKey(monitorId, targetId, url));
  }

  async putSnapshot(monitorId: string, targetId: string, url: string, snapshot: Snapshot) {
    await this.store.set(ns.snapshots, this.snapshotKey(monitorId, targetId, url), snapshot);
  }

  /** Every baseline of one target, with its URL. */
  async *targetSnapshots(
    monitorId: string,
    targetId: string,
  ): AsyncGenerator<{ url: string; snapshot: Snapshot }> {
    const prefix = `${monitorId}/${targetId}/`;
    for await (const entry of scanStore<Snapshot>(this.store, ns.snapshots, prefix)) {
      yield { url: decodeURIComponent(entry.key.slice(prefix.length)), snapshot: entry.value };
    }
  }

  /** Every baseline of a monitor, with its key (for retention). */
  allSnapshots(monitorId: string): AsyncGenerator<{ key: string; value: Snapshot }> {
    return scanStore<Snapshot>(this.store, ns.snapshots, `${monitorId}/`);
  }

  async putSnapshotKey(key: string, snapshot: Snapshot): Promise<void> {
    await this.store.set(ns.snapshots, key, snapshot);
  }

  deleteSnapshotKey(key: string): Promise<boolean> {
    return this.store.delete(ns.snapshots, key);
  }
}
