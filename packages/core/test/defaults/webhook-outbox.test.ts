/**
 * Webhook deliveries that outlive their process (issue 23, point 7): close() ends retries at
 * once instead of waiting out their backoff, what was not delivered stays in the store, and a
 * sender on the same store sends it, in order, with resumePending().
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteStore, WebhookSender } from '@trawl/core';
import { type WebhookConfig } from '@trawl/core/server';
import {
  startWebhookReceiver,
  until,
  type WebhookReceiver,
} from '../../../../test/fakes/webhook-receiver.ts';

let receiver: WebhookReceiver;
let config: WebhookConfig;
beforeAll(async () => {
  receiver = await startWebhookReceiver(503);
  config = { url: receiver.url, headers: {}, metadata: {}, events: [] };
});
afterAll(() => receiver.close());

describe('the webhook outbox', () => {
  it('keeps undelivered events through close() and sends them from the next sender', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'trawl-outbox-')), 'trawl.db');
    const store = new SqliteStore({ path });
    // A minute of backoff between attempts: close() must not wait for it.
    const first = new WebhookSender(store, {
      retries: 5,
      retryBaseMs: 60_000,
      allowPrivateTargets: true,
    });
    const started = first.send(config, 'crawl.started', 'job-1', { success: true, data: [] });
    const completed = first.send(config, 'crawl.completed', 'job-1', { success: true, data: [] });
    await until(() => receiver.received.length === 1, 10_000, 'the first attempt');

    await first.close();
    // Cut short, not failed: neither delivery is reported, and none is logged as given up.
    expect(await started).toBeUndefined();
    expect(await completed).toBeUndefined();
    expect(await first.log('job-1')).toEqual([]);
    expect(await store.list('webhook-outbox')).toHaveLength(2);
    await store.close();

    receiver.status = 200;
    const again = new SqliteStore({ path });
    const second = new WebhookSender(again, { allowPrivateTargets: true });
    expect(await second.resumePending()).toBe(2);
    await second.idle();
    expect(
      receiver.received.filter((entry) => entry.status === 200).map((entry) => entry.event),
    ).toEqual(['crawl.started', 'crawl.completed']);
    const log = await second.log('job-1');
    expect(log.map((delivery) => [delivery.event, delivery.delivered])).toEqual([
      ['crawl.started', true],
      ['crawl.completed', true],
    ]);
    expect(await again.list('webhook-outbox')).toEqual([]);
    // Nothing is sent twice by a later start.
    expect(await second.resumePending()).toBe(0);
    await again.close();
  });
});
