/**
 * A webhook queued before a SIGKILL is delivered after it: the receiver fails
 * at first, so the delivery waits in the outbox of the shared PostgreSQL store for its retry; the
 * process is killed; a new process on the same store takes the delivery over once its lease has
 * expired, and the receiver gets it.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startWebhookReceiver, until, type WebhookReceiver } from '../fakes/webhook-receiver.ts';
import { serveProcess, type KeyedServeProcess } from './serve-process.ts';
import { freshDatabase, type FreshDatabase } from './shared-services.ts';

const fixture = inject('fixtureUrl');

let database: FreshDatabase;
let receiver: WebhookReceiver;
const started: KeyedServeProcess[] = [];

beforeAll(async () => {
  database = await freshDatabase('webhooks');
  receiver = await startWebhookReceiver(503);
});
afterAll(async () => {
  await Promise.all(started.splice(0).map((server) => server.stop()));
  await receiver.close();
  await database.drop();
});

async function serve(): Promise<KeyedServeProcess> {
  const server = await serveProcess({
    TRAWL_STORE: 'postgres',
    TRAWL_DATABASE_URL: database.url,
    // Long retries: the delivery is still pending when the process is killed.
    TRAWL_WEBHOOK_RETRIES: '6',
    // A short lease, so the next process takes the delivery over within seconds.
    TRAWL_WEBHOOK_LEASE_MS: '2000',
  });
  started.push(server);
  return server;
}

async function outboxSize(): Promise<number> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const rows = await client.query(
      "SELECT count(*)::int AS n FROM trawl_kv WHERE namespace = 'webhook-outbox'",
    );
    return (rows.rows[0] as { n: number }).n;
  } finally {
    await client.end();
  }
}

describe('a webhook delivery across a SIGKILL', () => {
  it('is delivered by the next process on the shared store', async () => {
    const first = await serve();
    const crawl = await first.call('POST', '/v2/crawl', {
      url: `${fixture}/`,
      limit: 1,
      webhook: { url: receiver.url, events: ['completed'] },
    });
    expect(crawl.status).toBe(200);
    await until(
      () => receiver.received.some((entry) => entry.event === 'crawl.completed'),
      20_000,
      'the first, failed, attempt',
    );
    expect(await outboxSize()).toBe(1);

    await first.kill();
    receiver.status = 200;
    const second = await serve();
    await until(
      () =>
        receiver.received.some(
          (entry) => entry.event === 'crawl.completed' && entry.status === 200,
        ),
      20_000,
      'the delivery by the process started after the kill',
    );
    // Removed from the outbox once delivered (a moment after the receiver answered).
    let left = await outboxSize();
    for (let attempt = 0; attempt < 100 && left > 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      left = await outboxSize();
    }
    expect(left).toBe(0);
    expect(receiver.received.every((entry) => entry.event === 'crawl.completed')).toBe(true);
    await second.stop();
  });

  it('is taken over by a process that was already running beside the killed one', async () => {
    receiver.status = 503;
    const before = receiver.received.length;
    const [doomed, survivor] = [await serve(), await serve()];
    const crawl = await doomed.call('POST', '/v2/crawl', {
      url: `${fixture}/`,
      limit: 1,
      webhook: { url: receiver.url, events: ['completed'] },
    });
    expect(crawl.status).toBe(200);
    await until(
      () => receiver.received.length > before,
      20_000,
      'the first, failed, attempt of the doomed process',
    );
    await doomed.kill();
    receiver.status = 200;
    // Nobody restarts: the survivor's drain finds the delivery once the dead one's lease expires.
    await until(
      () => receiver.received.slice(before).some((entry) => entry.status === 200),
      20_000,
      'the delivery by the process that kept running',
    );
    await survivor.stop();
  });
});
