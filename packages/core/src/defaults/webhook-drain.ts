/**
 * The loop that drains the webhook outbox: every process that should deliver webhooks (`trawl
 * serve`, and a `trawl worker`) runs one over its `WebhookSender`. It takes over the pending
 * deliveries nobody holds — those of a process that was killed once their lease has expired, and
 * those a stopped process released — so each is delivered at least once, by one process at a
 * time.
 */
import type { WebhookSender } from './webhook-notifier.ts';

/** Options of {@link WebhookOutboxDrain}. */
export interface WebhookOutboxDrainOptions {
  /**
   * Time between two passes over the outbox, in ms. @default a third of the sender's lease, so
   * an abandoned delivery waits at most about a lease and a third.
   */
  intervalMs?: number;
  /** Told when a pass fails (the store is unreachable); the next pass tries again. */
  onError?: (error: unknown) => void;
}

/** Drains a store's webhook outbox through one sender, until stopped. */
export class WebhookOutboxDrain {
  readonly #sender: WebhookSender;
  readonly #intervalMs: number;
  readonly #onError: ((error: unknown) => void) | undefined;
  #timer: NodeJS.Timeout | undefined;
  #pass: Promise<number> = Promise.resolve(0);

  constructor(sender: WebhookSender, options: WebhookOutboxDrainOptions = {}) {
    this.#sender = sender;
    this.#intervalMs = options.intervalMs ?? Math.max(1, Math.round(sender.leaseMs / 3));
    this.#onError = options.onError;
  }

  /** Whether the loop runs. */
  get started(): boolean {
    return this.#timer !== undefined;
  }

  /**
   * Runs a first pass now and the next ones every interval. Resolves, once the first pass has
   * queued what it found, with how many deliveries it queued. Idempotent.
   */
  start(): Promise<number> {
    if (this.#timer) return Promise.resolve(0);
    this.#timer = setInterval(() => {
      // One pass at a time: a slow store must not stack passes up.
      this.#pass = this.#pass.then(() => this.#drain());
    }, this.#intervalMs);
    this.#timer.unref();
    this.#pass = this.#pass.then(() => this.#drain());
    return this.#pass;
  }

  /** Stops the loop and waits for a pass in progress; deliveries already queued go on. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#pass;
  }

  async #drain(): Promise<number> {
    if (!this.#timer) return 0;
    try {
      return await this.#sender.resumePending();
    } catch (error) {
      this.#onError?.(error);
      return 0;
    }
  }
}
