/**
 * The webhook deliveries not yet settled, kept in the Store as crawls are: a delivery is written
 * here before it is first tried and removed once it is delivered or out of retries. What is left
 * when a process stops (a shutdown cuts retries short, a crash cuts everything) is sent again by
 * the next process on the same store (`WebhookSender.resumePending()`), in the order it was sent.
 */
import { scanStore, type Store } from '../interfaces/store.ts';
import type { WebhookConfig, WebhookPayload } from './webhook-notifier.ts';

const namespace = 'webhook-outbox';

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
  #sequence = 0;

  constructor(store: Store) {
    this.#store = store;
  }

  /**
   * Records a delivery; resolves with its key, or undefined when the store could not keep it
   * (the delivery is still tried, it just would not survive a restart).
   */
  async add(delivery: PendingDelivery): Promise<string | undefined> {
    this.#sequence += 1;
    // Time, then a per-process counter: keys sort in send order (scanStore reads in key order).
    const key = `${Date.now().toString().padStart(15, '0')}-${process.pid}-${this.#sequence.toString().padStart(9, '0')}`;
    try {
      await this.#store.set(namespace, key, delivery);
      return key;
    } catch {
      return undefined;
    }
  }

  /** Forgets a settled delivery. Never throws (a closed store leaves it for the next start). */
  async remove(key: string | undefined): Promise<void> {
    if (key !== undefined) await this.#store.delete(namespace, key).catch(() => undefined);
  }

  /** The pending deliveries, oldest first. */
  pending(): AsyncGenerator<{ key: string; value: PendingDelivery }> {
    return scanStore<PendingDelivery>(this.#store, namespace);
  }
}
