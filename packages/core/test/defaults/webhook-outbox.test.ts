/**
 * Webhook deliveries that outlive their process: close() ends retries at
 * once instead of waiting out their backoff, what was not delivered stays in the store, and a
 * sender on the same store sends it, in order, with resumePending().
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteStore, WebhookSender } from '@trawl/core';
import { WebhookOutboxDrain, type WebhookConfig } from '@trawl/core/server';
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

  it('leaves a delivery leased by a live process alone, and takes it over once the lease expires', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'trawl-outbox-lease-')), 'trawl.db');
    const store = new SqliteStore({ path });
    receiver.status = 200;
    const before = receiver.received.length;
    // What a process killed with SIGKILL leaves: the entry, and its lease for a second more.
    const key = '000000000000001-1-000000001';
    await store.claim('webhook-outbox-leases', key, 'a process that died', 1000);
    await store.set('webhook-outbox', key, {
      config,
      event: 'crawl.completed',
      jobId: 'job-leased',
      payload: { success: true, data: [] },
    });
    const sender = new WebhookSender(store, { allowPrivateTargets: true, leaseMs: 1500 });
    expect(await sender.resumePending()).toBe(0);
    const drain = new WebhookOutboxDrain(sender);
    expect(await drain.start()).toBe(0);
    try {
      await until(
        () => receiver.received.slice(before).some((entry) => entry.event === 'crawl.completed'),
        10_000,
        'the delivery after its lease expired',
      );
      await sender.idle();
      expect(await store.list('webhook-outbox')).toEqual([]);
      expect((await sender.log('job-leased')).map((delivery) => delivery.delivered)).toEqual([
        true,
      ]);
    } finally {
      await drain.stop();
      await sender.close();
      await store.close();
    }
  });

  it('renews the leases it holds, so a second sender does not deliver them at the same time', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'trawl-outbox-renew-')), 'trawl.db');
    const store = new SqliteStore({ path });
    receiver.status = 503;
    const holder = new WebhookSender(store, {
      retries: 5,
      retryBaseMs: 60_000,
      allowPrivateTargets: true,
      leaseMs: 1000,
    });
    const other = new WebhookSender(store, { allowPrivateTargets: true, leaseMs: 1000 });
    try {
      const before = receiver.received.length;
      void holder.send(config, 'crawl.started', 'job-held', { success: true, data: [] });
      await until(() => receiver.received.length > before, 10_000, 'the first attempt');
      // Past the lease: only renewal keeps it with the holder.
      await new Promise((resolve) => setTimeout(resolve, 1600));
      expect(await other.resumePending()).toBe(0);
    } finally {
      await holder.close();
      // Released on close: the other sender takes it at once.
      expect(await other.resumePending()).toBe(1);
      await other.close();
      await store.close();
    }
  });
});
