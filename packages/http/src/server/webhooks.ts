/**
 * Webhooks of crawls and batch scrapes, as the hosted service sends them (envelope, event names,
 * `X-Firecrawl-*` headers, HMAC-SHA256 signature of the raw body), plus what it lacks: retries
 * with exponential backoff, and a delivery log per job in the store.
 */
import { createHmac } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import {
  isPrivateAddress,
  ValidationError,
  type Document,
  type JobError,
  type Store,
} from '@trawl/core';
import type { WebhookInput } from './requests.ts';

/** A webhook as a request gives it, normalised. */
export interface WebhookConfig {
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
}

/** Settings of the sender. */
export interface WebhookSettings {
  /** HMAC-SHA256 key of `X-Firecrawl-Signature`; no header without it. */
  secret?: string;
  /** Attempts after the first (default 3). */
  retries?: number;
  /** Wait before the first retry, doubled each time (default 1000 ms). */
  retryBaseMs?: number;
  /** Per attempt (default 10,000 ms, as the hosted service). */
  timeoutMs?: number;
  /** Deliver to loopback and private addresses too (default false: such deliveries are skipped). */
  allowPrivateTargets?: boolean;
}

/** Reads the `webhook` field of a request: a URL string or `{ url, headers, metadata, events }`. */
export function webhookConfigOf(webhook: WebhookInput): WebhookConfig {
  const config =
    typeof webhook === 'string'
      ? { url: webhook, headers: {}, metadata: {}, events: [] }
      : {
          url: webhook.url,
          headers: webhook.headers ?? {},
          metadata: webhook.metadata ?? {},
          events: webhook.events ?? [],
        };
  const url = new URL(config.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ValidationError(`webhook.url must be http(s) (got '${url.protocol}')`, {
      details: [{ path: ['webhook', 'url'], message: 'must be an http(s) URL' }],
    });
  if (url.username || url.password)
    throw new ValidationError('webhook.url must not carry a user name or password', {
      details: [{ path: ['webhook', 'url'], message: 'credentials in the URL are not allowed' }],
    });
  return config;
}

/** Whether `event` (`crawl.page`) passes the filter: full name, `page`, or what follows the first dot. */
export function eventMatches(filter: readonly string[], event: string): boolean {
  if (filter.length === 0) return true;
  const afterFirstDot = event.slice(event.indexOf('.') + 1);
  return filter.some(
    (entry) => entry === event || entry === event.split('.')[1] || entry === afterFirstDot,
  );
}

const logNamespace = (jobId: string) => `webhooks:${jobId}`;

/** Sends the events of one job in order, each with retries, and logs every delivery. */
export class WebhookSender {
  readonly #store: Store;
  readonly #settings: Required<Omit<WebhookSettings, 'secret'>> & { secret?: string };
  readonly #queues = new Map<string, Promise<void>>();
  #sequence = 0;

  constructor(store: Store, settings: WebhookSettings = {}) {
    this.#store = store;
    this.#settings = {
      retries: settings.retries ?? 3,
      retryBaseMs: settings.retryBaseMs ?? 1000,
      timeoutMs: settings.timeoutMs ?? 10_000,
      allowPrivateTargets: settings.allowPrivateTargets ?? false,
      ...(settings.secret ? { secret: settings.secret } : {}),
    };
  }

  /** Queues `event` of a job; deliveries of one job go out one after another, in order. */
  send(
    config: WebhookConfig,
    event: string,
    jobId: string,
    payload: { success: boolean; data: unknown[]; error?: string; scrapeId?: string },
  ): Promise<void> {
    if (!eventMatches(config.events, event)) return Promise.resolve();
    const previous = this.#queues.get(jobId) ?? Promise.resolve();
    const next = previous.then(() => this.#deliver(config, event, jobId, payload));
    this.#queues.set(jobId, next);
    void next.then(() => {
      if (this.#queues.get(jobId) === next) this.#queues.delete(jobId);
    });
    return next;
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
    payload: { success: boolean; data: unknown[]; error?: string; scrapeId?: string },
  ): Promise<void> {
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
      headers['x-firecrawl-signature'] =
        `sha256=${createHmac('sha256', this.#settings.secret).update(body).digest('hex')}`;
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
      : await privateTarget(config.url);
    if (refused) delivery.error = refused;
    for (let attempt = 0; !refused && attempt <= this.#settings.retries; attempt++) {
      if (attempt > 0) {
        await new Promise((resolve) =>
          setTimeout(resolve, this.#settings.retryBaseMs * 2 ** (attempt - 1)),
        );
      }
      delivery.attempts = attempt + 1;
      try {
        const response = await fetch(config.url, {
          method: 'POST',
          headers,
          body,
          redirect: 'manual',
          signal: AbortSignal.timeout(this.#settings.timeoutMs),
        });
        await response.body?.cancel();
        delivery.status = response.status;
        delivery.delivered = response.status >= 200 && response.status < 300;
        delete delivery.error;
        if (delivery.delivered) break;
        delivery.error = `answered HTTP ${response.status}`;
      } catch (error) {
        delete delivery.status;
        delivery.error = (error as Error).message;
      }
    }
    this.#sequence += 1;
    const key = `${Date.now().toString().padStart(15, '0')}-${this.#sequence.toString().padStart(9, '0')}`;
    await this.#store.set(logNamespace(jobId), key, delivery).catch(() => undefined);
  }
}

/** The event payload of a page: the document, or the failure with its URL. */
export function pagePayload(outcome: { document: Document } | { error: JobError }): {
  success: boolean;
  data: unknown[];
  error?: string;
  scrapeId?: string;
} {
  if ('document' in outcome) {
    const scrapeId = outcome.document.metadata.scrapeId;
    return {
      success: true,
      data: [outcome.document],
      ...(typeof scrapeId === 'string' ? { scrapeId } : {}),
    };
  }
  return {
    success: false,
    error: outcome.error.error,
    data: [{ metadata: { sourceURL: outcome.error.url } }],
  };
}

/** Why a webhook URL may not be called from a served Trawl, if it points at a private address. */
async function privateTarget(url: string): Promise<string | undefined> {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  try {
    const addresses = await lookup(host, { all: true });
    const blocked = addresses.find((entry) => isPrivateAddress(entry.address));
    return blocked
      ? `skipped: ${host} resolves to the private address ${blocked.address} (set TRAWL_ALLOW_PRIVATE_ADDRESSES=true to allow)`
      : undefined;
  } catch (error) {
    return `skipped: cannot resolve ${host}: ${(error as Error).message}`;
  }
}
