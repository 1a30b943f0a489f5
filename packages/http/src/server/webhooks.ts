/**
 * Webhooks of crawls and batch scrapes: reading the `webhook` field of a request, and the page
 * payloads. Delivery itself (envelope, `X-Firecrawl-*` headers, HMAC signature, retries, the
 * delivery log) is core's `WebhookSender`, which monitor webhooks use too.
 */
import { ValidationError, type Document, type JobError } from '@trawl/core';
import { type WebhookConfig, type WebhookPayload } from '@trawl/core/server';
import type { WebhookInput } from './requests.ts';

export { WebhookSender } from '@trawl/core';
export { eventMatches, WebhookOutboxDrain } from '@trawl/core/server';
export type { WebhookDelivery, WebhookSettings } from '@trawl/core';
export type { WebhookConfig } from '@trawl/core/server';

/**
 * Reads the `webhook` field of a request of `team`: a URL string or `{ url, headers, metadata,
 * events }`. The team is kept with it: its events are signed with the team's own key.
 */
export function webhookConfigOf(webhook: WebhookInput, team: string): WebhookConfig {
  const config =
    typeof webhook === 'string'
      ? { team, url: webhook, headers: {}, metadata: {}, events: [] }
      : {
          team,
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

/** The event payload of a page: the document, or the failure with its URL. */
export function pagePayload(outcome: { document: Document } | { error: JobError }): WebhookPayload {
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
