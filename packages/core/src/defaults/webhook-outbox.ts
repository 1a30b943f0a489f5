/**
 * The webhook deliveries not yet settled, kept in the Store as crawls are: a delivery is written
 * here before it is first tried and removed once it is delivered or out of retries. Each entry
 * carries a lease (a `Store.claim` beside it) held by the sender trying it and renewed while it
 * tries: another process sharing the store takes over an entry only once its lease has expired
 * (its sender died) or was released (its sender stopped), so two processes never deliver one
 * entry at once, and nothing a crash cut short is lost (`WebhookOutboxDrain` sends it again).
 * A job's webhook `metadata` is kept once, beside the entries, which name it: every event of a
 * job carries the same object, and a copy in each would multiply it by the job's pages.
 */
import { createHash } from 'node:crypto';
import { scanStore, type Store } from '../interfaces/store.ts';
import { daysMs } from '../internal/time.ts';
import type { WebhookConfig, WebhookPayload } from './webhook-notifier.ts';

const namespace = 'webhook-outbox';
/** The leases of the entries, under the entries' keys. */
const leases = 'webhook-outbox-leases';

/** The webhook metadata of the jobs, once each, by job and the object's hash. */
const metadataNamespace = 'webhook-outbox-metadata';
/** Metadata outlives any delivery of its job (retries end within hours; jobs are kept 30 days). */
const metadataRetentionMs = daysMs(31);
/** Metadata keys this process knows are stored; past this many, the oldest are forgotten. */
const rememberedMetadata = 1000;

/** An entry as stored: the delivery, its metadata replaced by the key it is stored under. */
type StoredDelivery = PendingDelivery & { metadataKey?: string };

/** A delivery waiting to be (re)tried. */
export interface PendingDelivery {
  config: WebhookConfig;
  event: string;
  jobId: string;
  payload: WebhookPayload;
}

/** The pending deliveries of one store, keyed in send order. */
export class WebhookOutbox {
  readonly #store: Store;
  readonly #metadataStored = new Set<string>();
  #sequence = 0;

  constructor(store: Store) {
    this.#store = store;
  }

  /**
   * Records a delivery, leased to `owner` for `leaseMs` (the lease first, so that no other
   * process sees it unleased); resolves with its key, or undefined when the store could not keep
   * it (the delivery is still tried, it just would not survive a restart).
   */
  async add(
    delivery: PendingDelivery,
    owner: string,
    leaseMs: number,
  ): Promise<string | undefined> {
    this.#sequence += 1;
    // Time, then a per-process counter: keys sort in send order (scanStore reads in key order).
    const key = `${Date.now().toString().padStart(15, '0')}-${process.pid}-${this.#sequence.toString().padStart(9, '0')}`;
    try {
      await this.#store.claim(leases, key, owner, leaseMs);
      await this.#store.set(namespace, key, await this.#stored(delivery));
      return key;
    } catch {
      return undefined;
    }
  }

  /** Takes or renews the lease of an entry; false when another live owner holds it. */
  async lease(key: string, owner: string, leaseMs: number): Promise<boolean> {
    return this.#store.claim(leases, key, owner, leaseMs).catch(() => false);
  }

  /** Gives a lease up, so the next process takes the entry at once. Never throws. */
  async release(key: string): Promise<void> {
    await this.#store.delete(leases, key).catch(() => undefined);
  }

  /** Forgets a settled delivery and its lease. Never throws (a closed store leaves it for the next start). */
  async remove(key: string | undefined): Promise<void> {
    if (key === undefined) return;
    await this.#store.delete(namespace, key).catch(() => undefined);
    await this.release(key);
  }

  /** The pending deliveries, oldest first, each with its metadata. */
  async *pending(): AsyncGenerator<{ key: string; value: PendingDelivery }> {
    for await (const { key, value } of scanStore<StoredDelivery>(this.#store, namespace)) {
      const { metadataKey, ...delivery } = value;
      if (metadataKey === undefined) {
        yield { key, value: delivery };
        continue;
      }
      const metadata =
        (await this.#store.get<Record<string, unknown>>(metadataNamespace, metadataKey)) ?? {};
      yield { key, value: { ...delivery, config: { ...delivery.config, metadata } } };
    }
  }

  /** The entry to store: metadata, if any, stored once for the job and named. */
  async #stored(delivery: PendingDelivery): Promise<StoredDelivery> {
    const { metadata } = delivery.config;
    if (Object.keys(metadata).length === 0) return delivery;
    const json = JSON.stringify(metadata);
    const metadataKey = `${delivery.jobId}/${createHash('sha256').update(json).digest('hex')}`;
    if (!this.#metadataStored.has(metadataKey)) {
      await this.#store.set(metadataNamespace, metadataKey, metadata, {
        ttlMs: metadataRetentionMs,
      });
      this.#metadataStored.add(metadataKey);
      if (this.#metadataStored.size > rememberedMetadata)
        this.#metadataStored.delete(this.#metadataStored.values().next().value as string);
    }
    return { ...delivery, config: { ...delivery.config, metadata: {} }, metadataKey };
  }
}
