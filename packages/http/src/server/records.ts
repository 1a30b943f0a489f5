/**
 * A record of every request that does work — scrape, map, crawl, batch scrape — with its team,
 * status, credits and times, kept in the store. The feedback endpoint reads them to check that a
 * job exists and belongs to the team before it accepts feedback on it.
 */
import type { Store } from '@trawl/core';
import { daysMs, withoutUserinfo } from '@trawl/core/server';

/** The endpoints that leave a record (feedback finds any of them by id, whatever the endpoint). */
export type RecordedEndpoint =
  'scrape' | 'map' | 'crawl' | 'batch_scrape' | 'parse' | 'search' | 'agent';

/** One request's record. */
export interface RequestRecord {
  id: string;
  team: string;
  endpoint: RecordedEndpoint;
  url: string;
  status: 'scraping' | 'completed' | 'failed' | 'cancelled';
  creditsUsed: number;
  createdAt: string;
  finishedAt?: string;
  /** `CODE: message` of a failure. */
  error?: string;
}

const namespace = 'records';
/** Records are kept for 30 days, long enough for feedback on a job. */
const retentionMs = daysMs(30);

export class RequestRecords {
  readonly #store: Store;

  constructor(store: Store) {
    this.#store = store;
  }

  /** Records the start of a request; returns the record (its id names the job or scrape). */
  async start(
    team: string,
    endpoint: RecordedEndpoint,
    url: string,
    id: string = crypto.randomUUID(),
  ): Promise<RequestRecord> {
    const record: RequestRecord = {
      id,
      team,
      endpoint,
      // A password given in the URL opened the work; the record must not keep it.
      url: withoutUserinfo(url),
      status: 'scraping',
      creditsUsed: 0,
      createdAt: new Date().toISOString(),
    };
    await this.#store.set(namespace, id, record, { ttlMs: retentionMs });
    return record;
  }

  /** Records how a request ended. */
  async finish(
    id: string,
    outcome: { status: RequestRecord['status']; creditsUsed: number; error?: string },
  ): Promise<void> {
    const record = await this.#store.get<RequestRecord>(namespace, id);
    if (!record) return;
    Object.assign(record, outcome, { finishedAt: new Date().toISOString() });
    await this.#store.set(namespace, id, record, { ttlMs: retentionMs });
  }

  /** The record of `id` if `team` made the request. */
  async get(team: string, id: string): Promise<RequestRecord | undefined> {
    const record = await this.#store.get<RequestRecord>(namespace, id);
    return record?.team === team ? record : undefined;
  }
}
