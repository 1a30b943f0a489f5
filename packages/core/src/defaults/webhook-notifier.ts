/**
 * Webhooks as the hosted service sends them (reference-behaviour (e)): the envelope
 * `{ success, type, id, webhookId, data, error?, metadata? }`, the `X-Firecrawl-*` headers, and
 * an HMAC-SHA256 signature of the raw body; plus what it lacks: retries with exponential backoff
 * and a delivery log per job (or monitor check) in the store.
 *
 * `WebhookSender` delivers any event (crawls and batch scrapes use it through the server);
 * `WebhookNotifier` is the monitors' Notifier on top of it: `monitor.page` once per page of
 * every check, `monitor.check.completed` once per check, to the monitor's own `webhook`.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, fetch as undiciFetch, type Dispatcher } from 'undici';
import { defaultTeam } from '../config.ts';
import type { Store } from '../interfaces/store.ts';
import { deadlineOrSignal, startDeadline } from '../internal/deadline.ts';
import type {
  MonitorCheckEvent,
  MonitorPageEvent,
  NotificationResult,
  Notifier,
} from '../interfaces/notifier.ts';
import {
  assertPublicUrl,
  guardedLookup,
  type AddressGuardOptions,
} from '../internal/address-guard.ts';
import type { MonitorWebhook } from '../monitor/types.ts';
import { WebhookOutbox, type PendingDelivery } from './webhook-outbox.ts';
import { signatureOf } from './webhook-signing.ts';

export { webhookSigningKey } from './webhook-signing.ts';

/** Where a job's events go, normalised. */
export interface WebhookConfig {
  /**
   * The team whose job sends the events: they are signed with its key (`webhookSigningKey`).
   * @default 'default'
   */
  team?: string;
  url: string;
  headers: Record<string, string>;
  metadata: Record<string, unknown>;
  /** Event filter; empty: every event. */
  events: string[];
}

/** One delivery as the log keeps it. */
export interface WebhookDelivery {
  webhookId: string;
  event: string;
  url: string;
  attempts: number;
  delivered: boolean;
  /** HTTP status of the last attempt, when there was an answer. */
  status?: number;
  error?: string;
  at: string;
  /** When the receiver accepted it. */
  deliveredAt?: string;
}

/** What one event carries besides its name and job id. */
export interface WebhookPayload {
  success: boolean;
  data: unknown[];
  error?: string | undefined;
  /** Sent as `X-Firecrawl-Scrape-Id` (page events). */
  scrapeId?: string | undefined;
}

/** Settings of the sender. */
export interface WebhookSettings {
  /**
   * The server's webhook secret: each team's events are signed with a key derived from it and
   * the team (`webhookSigningKey`), never with the secret itself; no header without it.
   */
  secret?: string;
  /** Attempts after the first. @default 3 */
  retries?: number;
  /** Wait before the first retry, doubled each time, in ms. @default 1000 */
  retryBaseMs?: number;
  /** Per attempt, in ms (as the hosted service). @default 10000 */
  timeoutMs?: number;
  /**
   * How long a pending delivery stays this sender's after its last renewal (renewed every third
   * of it while the sender holds it): another process sharing the store takes over a delivery
   * whose sender died once this has passed. @default 30000
   */
  leaseMs?: number;
  /** Deliver to loopback and private addresses too; otherwise such deliveries are skipped. @default false */
  allowPrivateTargets?: boolean;
  /**
   * Adjusts the private-address guard: a resolver to use instead of DNS (its answers are checked
   * like DNS answers), and exempt addresses. The resolver is used with private targets allowed too.
   */
  guard?: AddressGuardOptions;
}

/**
 * Whether `event` (`crawl.page`) passes a filter: no filter passes all; otherwise the full name,
 * its second dot-segment (`page`), or what follows the first dot (`check.completed`).
 */
export function eventMatches(filter: readonly string[], event: string): boolean {
  if (filter.length === 0) return true;
  const afterFirstDot = event.slice(event.indexOf('.') + 1);
  return filter.some(
    (entry) => entry === event || entry === event.split('.')[1] || entry === afterFirstDot,
  );
}

const logNamespace = (jobId: string) => `webhooks:${jobId}`;

/** Sends the events of each job in order, each with retries, and logs every delivery. */
export class WebhookSender {
  readonly #store: Store;
  readonly #settings: Required<Omit<WebhookSettings, 'secret' | 'guard'>> & { secret?: string };
  /**
   * Connections to receivers. With private targets refused, its sockets resolve a name once,
   * through the guard, and connect to the address that was checked: a rebinding DNS answer
   * cannot slip a private address between a check and the connection.
   */
  readonly #dispatcher: Dispatcher;
  readonly #guard: AddressGuardOptions;
  readonly #queues = new Map<string, Promise<unknown>>();
  /** Pending deliveries in the store, so a stop or a crash does not lose them. */
  readonly #outbox: WebhookOutbox;
  /** Outbox keys this sender queued itself (resumePending() skips them). */
  readonly #queued = new Set<string>();
  /** This sender's name on the leases of the deliveries it holds. */
  readonly #owner = randomUUID();
  /** Renews the leases of the held deliveries while there are any. */
  #renewing: NodeJS.Timeout | undefined;
  /** Aborts on close(): retries waiting and attempts in flight stop at once. */
  readonly #closing = new AbortController();
  #sequence = 0;

  constructor(store: Store, settings: WebhookSettings = {}) {
    this.#store = store;
    this.#outbox = new WebhookOutbox(store);
    this.#settings = {
      retries: settings.retries ?? 3,
      retryBaseMs: settings.retryBaseMs ?? 1000,
      timeoutMs: settings.timeoutMs ?? 10_000,
      leaseMs: settings.leaseMs ?? 30_000,
      allowPrivateTargets: settings.allowPrivateTargets ?? false,
      ...(settings.secret ? { secret: settings.secret } : {}),
    };
    this.#guard = settings.guard ?? {};
    const lookup = this.#settings.allowPrivateTargets
      ? this.#guard.lookup
      : guardedLookup(this.#guard);
    this.#dispatcher = new Agent(lookup ? { connect: { lookup } } : {});
  }

  /**
   * Queues `event` of a job; deliveries of one job go out one after another, in order. Resolves
   * with the delivery once tried, or undefined when the filter leaves the event out.
   */
  send(
    config: WebhookConfig,
    event: string,
    jobId: string,
    payload: WebhookPayload,
  ): Promise<WebhookDelivery | undefined> {
    return this.#queue(config, event, jobId, payload).delivered;
  }

  /**
   * Queues `event` as `send` does, resolving as soon as the outbox in the store holds it (or
   * could not keep it: it is still tried), not when it is delivered: what acknowledges an event
   * (a job's start answer, its final status) waits for this, so a crash after it loses nothing.
   */
  async post(
    config: WebhookConfig,
    event: string,
    jobId: string,
    payload: WebhookPayload,
  ): Promise<void> {
    await this.#queue(config, event, jobId, payload).recorded;
  }

  #queue(config: WebhookConfig, event: string, jobId: string, payload: WebhookPayload) {
    if (!eventMatches(config.events, event))
      return { recorded: Promise.resolve(), delivered: Promise.resolve(undefined) };
    const pending: PendingDelivery = { config, event, jobId, payload };
    // Recorded at once, before the job's earlier deliveries are done, so a stop loses nothing.
    const key = this.#outbox.add(pending, this.#owner, this.#settings.leaseMs).then((added) => {
      if (added !== undefined) this.#hold(added);
      return added;
    });
    const delivered = this.#enqueue(jobId, async () => this.#settle(await key, pending));
    return { recorded: key, delivered };
  }

  /**
   * Queues the deliveries pending in the store that no live sender holds (a previous process
   * stopped during a retry or crashed; another process sharing the store died), oldest first,
   * each with its full retry budget, leased to this sender. Resolves with how many.
   * `WebhookOutboxDrain` calls this now and then.
   */
  async resumePending(): Promise<number> {
    let count = 0;
    for await (const { key, value } of this.#outbox.pending()) {
      if (this.#closing.signal.aborted) break;
      if (this.#queued.has(key)) continue;
      if (!(await this.#outbox.lease(key, this.#owner, this.#settings.leaseMs))) continue;
      this.#hold(key);
      count += 1;
      void this.#enqueue(value.jobId, () => this.#settle(key, value));
    }
    return count;
  }

  /** The lease of a pending delivery, in ms (`WebhookOutboxDrain` drains at a third of it). */
  get leaseMs(): number {
    return this.#settings.leaseMs;
  }

  /** Marks a delivery as held here and keeps its lease alive until it is settled. */
  #hold(key: string): void {
    this.#queued.add(key);
    if (this.#renewing) return;
    this.#renewing = setInterval(() => {
      if (this.#queued.size === 0) {
        clearInterval(this.#renewing);
        this.#renewing = undefined;
        return;
      }
      for (const held of this.#queued)
        void this.#outbox.lease(held, this.#owner, this.#settings.leaseMs);
    }, this.#settings.leaseMs / 3);
    this.#renewing.unref();
  }

  /**
   * Stops delivering: retries waiting and attempts in flight end at once, and what was not
   * delivered stays in the store for `resumePending()` of the next start. Resolves within a
   * moment, whatever the receivers do.
   */
  async close(): Promise<void> {
    this.#closing.abort();
    await this.idle();
    clearInterval(this.#renewing);
    this.#renewing = undefined;
    // What was not delivered is left to the next process at once, not after the lease.
    await Promise.all([...this.#queued].map((key) => this.#outbox.release(key)));
    this.#queued.clear();
  }

  /** Runs `task` after the job's earlier deliveries: one job's events go out in order. */
  #enqueue(
    jobId: string,
    task: () => Promise<WebhookDelivery | undefined>,
  ): Promise<WebhookDelivery | undefined> {
    const previous = this.#queues.get(jobId) ?? Promise.resolve();
    const next = previous.then(task);
    this.#queues.set(jobId, next);
    void next.then(() => {
      if (this.#queues.get(jobId) === next) this.#queues.delete(jobId);
    });
    return next;
  }

  /**
   * Tries a pending delivery and forgets it once settled (delivered, or out of retries). A
   * delivery cut short by close(), or not begun, stays pending and resolves undefined.
   */
  async #settle(
    key: string | undefined,
    pending: PendingDelivery,
  ): Promise<WebhookDelivery | undefined> {
    if (this.#closing.signal.aborted) return undefined;
    const { config, event, jobId, payload } = pending;
    const delivery = await this.#deliver(config, event, jobId, payload);
    if (!delivery.delivered && this.#closing.signal.aborted) return undefined;
    await this.#outbox.remove(key);
    if (key !== undefined) this.#queued.delete(key);
    return delivery;
  }

  /** Resolves when the deliveries queued so far for one job have been tried. */
  async drain(jobId: string): Promise<void> {
    await this.#queues.get(jobId)?.catch(() => undefined);
  }

  /** Resolves when every queued delivery has been tried (for shutdown and tests). */
  async idle(): Promise<void> {
    while (this.#queues.size > 0) await Promise.allSettled([...this.#queues.values()]);
  }

  /** The delivery log of a job, oldest first. */
  async log(jobId: string): Promise<WebhookDelivery[]> {
    const entries = await this.#store.list<WebhookDelivery>(logNamespace(jobId), { limit: 1000 });
    return entries.map((entry) => entry.value);
  }

  async #deliver(
    config: WebhookConfig,
    event: string,
    jobId: string,
    payload: WebhookPayload,
  ): Promise<WebhookDelivery> {
    const webhookId = crypto.randomUUID();
    const body = JSON.stringify({
      success: payload.success,
      type: event,
      id: jobId,
      webhookId,
      data: payload.data,
      ...(payload.error !== undefined ? { error: payload.error } : {}),
      ...(Object.keys(config.metadata).length > 0 ? { metadata: config.metadata } : {}),
    });
    // Caller headers first: the managed ones below cannot be overridden.
    const headers: Record<string, string> = {
      ...config.headers,
      'content-type': 'application/json',
      'x-firecrawl-webhook-id': webhookId,
      'x-firecrawl-event': event,
      'x-firecrawl-job-id': jobId,
      'x-firecrawl-delivery-mode': 'direct',
      ...(payload.scrapeId ? { 'x-firecrawl-scrape-id': payload.scrapeId } : {}),
    };
    if (this.#settings.secret) {
      headers['x-firecrawl-signature'] = signatureOf(
        this.#settings.secret,
        config.team ?? defaultTeam,
        body,
      );
    }
    const delivery: WebhookDelivery = {
      webhookId,
      event,
      url: config.url,
      attempts: 0,
      delivered: false,
      at: new Date().toISOString(),
    };
    const refused = this.#settings.allowPrivateTargets
      ? undefined
      : literalRefusal(config.url, this.#guard);
    if (refused) delivery.error = refused;
    const closing = this.#closing.signal;
    for (let attempt = 0; !refused && attempt <= this.#settings.retries; attempt++) {
      if (attempt > 0) {
        const waitMs = this.#settings.retryBaseMs * 2 ** (attempt - 1);
        await sleep(waitMs, undefined, { signal: closing }).catch(() => undefined);
      }
      // Stopping: the delivery stays pending in the outbox rather than holding the process.
      if (closing.aborted) return delivery;
      delivery.attempts = attempt + 1;
      const deadline = startDeadline(this.#settings.timeoutMs);
      try {
        const response = await undiciFetch(config.url, {
          method: 'POST',
          headers,
          body,
          redirect: 'manual',
          signal: deadlineOrSignal(deadline, closing),
          dispatcher: this.#dispatcher,
        });
        await response.body?.cancel();
        delivery.status = response.status;
        delivery.delivered = response.status >= 200 && response.status < 300;
        delete delivery.error;
        if (delivery.delivered) {
          delivery.deliveredAt = new Date().toISOString();
          break;
        }
        delivery.error = `answered HTTP ${response.status}`;
      } catch (error) {
        delete delivery.status;
        const blocked = blockedReasonOf(error);
        if (blocked) {
          // A refused address stays refused: no retry.
          delivery.error = blocked;
          break;
        }
        delivery.error = (error as Error).message;
      } finally {
        deadline.release();
      }
    }
    if (!delivery.delivered && closing.aborted) return delivery;
    this.#sequence += 1;
    const key = `${Date.now().toString().padStart(15, '0')}-${this.#sequence.toString().padStart(9, '0')}`;
    await this.#store.set(logNamespace(jobId), key, delivery).catch(() => undefined);
    return delivery;
  }
}

/** Why a webhook URL may not be called without resolving it: a private IP literal, localhost. */
function literalRefusal(url: string, guard: AddressGuardOptions): string | undefined {
  try {
    assertPublicUrl(new URL(url), guard);
    return undefined;
  } catch (error) {
    return `skipped: ${(error as Error).message}`;
  }
}

/** The guard's refusal inside a failed delivery (fetch wraps the socket's error as its cause). */
function blockedReasonOf(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth++) {
    if ((current as { code?: unknown }).code === 'URL_BLOCKED') {
      return `skipped: ${(current as Error).message}`;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

const configOf = (webhook: MonitorWebhook, team: string | undefined): WebhookConfig => ({
  team: team ?? defaultTeam,
  url: webhook.url,
  headers: webhook.headers ?? {},
  metadata: webhook.metadata ?? {},
  events: webhook.events ?? [],
});

/**
 * The monitors' webhook: `monitor.page` (id = check id; `success` unless the page errored) and
 * `monitor.check.completed` (`success` when the check completed), to the monitor's `webhook`.
 * Page events go out in the background, in order; the completion waits for its delivery (and so
 * for the page events before it) and reports it as `notificationStatus.webhook`.
 */
export class WebhookNotifier implements Notifier {
  readonly name = 'webhook';
  readonly sender: WebhookSender;

  constructor(sender: WebhookSender) {
    this.sender = sender;
  }

  page({ monitor, check, page, team }: MonitorPageEvent): Promise<void> {
    if (!monitor.webhook) return Promise.resolve();
    const isMeaningful =
      page.status === 'changed' && page.judgment ? page.judgment.meaningful : null;
    void this.sender.send(configOf(monitor.webhook, team), 'monitor.page', check.id, {
      success: page.status !== 'error',
      data: [
        {
          monitorId: monitor.id,
          checkId: check.id,
          url: page.url,
          status: page.status,
          previousScrapeId: page.previousScrapeId,
          currentScrapeId: page.currentScrapeId,
          error: page.error,
          isMeaningful,
          judgment: page.judgment,
          diff: page.diff,
        },
      ],
      ...(page.currentScrapeId ? { scrapeId: page.currentScrapeId } : {}),
    });
    return Promise.resolve();
  }

  async checkCompleted({ monitor, check, team }: MonitorCheckEvent): Promise<NotificationResult> {
    const config = monitor.webhook ? configOf(monitor.webhook, team) : undefined;
    if (!config || !eventMatches(config.events, 'monitor.check.completed')) {
      // The check's record is final once its page events have been tried too.
      await this.sender.drain(check.id);
      return { attempted: false, success: false, delivered: false, queued: false };
    }
    const delivery = await this.sender.send(config, 'monitor.check.completed', check.id, {
      success: check.status === 'completed',
      data: [
        { monitorId: monitor.id, checkId: check.id, status: check.status, summary: check.summary },
      ],
      ...(check.error ? { error: check.error } : {}),
    });
    return {
      attempted: true,
      success: delivery?.delivered ?? false,
      delivered: delivery?.delivered ?? false,
      queued: false,
      attempts: delivery?.attempts ?? 0,
      ...(delivery?.status !== undefined ? { statusCode: delivery.status } : {}),
      ...(delivery?.error !== undefined ? { error: delivery.error } : {}),
      ...(delivery?.deliveredAt !== undefined ? { deliveredAt: delivery.deliveredAt } : {}),
    };
  }

  idle(): Promise<void> {
    return this.sender.idle();
  }
}
