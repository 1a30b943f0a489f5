/**
 * Webhook `metadata` as an attacker sends it: a body far larger than any event needs is refused
 * with a 400 naming the limit (8 KB of JSON, the spec's feedback metadata limit), and metadata
 * within it is stored once per job, not copied into each of the job's pending events (a batch of
 * 30 URLs whose receiver keeps failing holds 30+ events in the outbox).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver.ts';
import { serveProcess, type KeyedServeProcess } from './serve-process.ts';
import { freshDatabase, type FreshDatabase } from './shared-services.ts';

const fixture = inject('fixtureUrl');
let database: FreshDatabase;
let receiver: WebhookReceiver;
let server: KeyedServeProcess;

beforeAll(async () => {
  database = await freshDatabase('webhook_metadata');
  receiver = await startWebhookReceiver(503);
  server = await serveProcess({ TRAWL_STORE: 'postgres', TRAWL_DATABASE_URL: database.url });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
  await database?.drop();
});

/** Bytes of JSON the store holds in `namespace`. */
async function storedBytes(namespace: string): Promise<number> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const rows = await client.query(
      'SELECT coalesce(sum(octet_length(value::text)), 0)::int AS n FROM trawl_kv WHERE namespace = $1',
      [namespace],
    );
    return (rows.rows[0] as { n: number }).n;
  } finally {
    await client.end();
  }
}

const urls = Array.from({ length: 30 }, (_, index) => `${fixture}/?metadata=${index}`);

describe('webhook metadata', () => {
  it('refuses metadata over 8 KB with a 400 naming the limit, on every route that takes it', async () => {
    const metadata = { blob: 'x'.repeat(9000) };
    const webhook = { url: receiver.url, metadata };
    for (const [path, body] of [
      ['/v2/batch/scrape', { urls, webhook }],
      ['/v2/crawl', { url: `${fixture}/`, webhook }],
    ] as const) {
      const answer = await server.call('POST', path, body);
      expect(answer.status).toBe(400);
      expect(JSON.stringify(answer.body)).toContain('8 KB (8192 bytes of JSON)');
    }
  });

  it('keeps a job’s metadata once, however many of its events wait in the outbox', async () => {
    const metadata = { note: 'y'.repeat(7000) };
    const started = await server.call('POST', '/v2/batch/scrape', {
      urls,
      webhook: { url: receiver.url, metadata },
    });
    expect(started.status).toBe(200);
    const id = String(started.body['id']);
    for (const end = Date.now() + 60_000; Date.now() < end;) {
      const status = await server.call('GET', `/v2/batch/scrape/${id}`);
      if (status.body['status'] !== 'scraping' && receiver.received.length >= 30) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // Every page event failed once and waits for its retry, each naming the metadata.
    expect(receiver.received.length).toBeGreaterThanOrEqual(30);
    const outbox = await storedBytes('webhook-outbox');
    expect(outbox).toBeGreaterThan(0);
    // A copy in each of the 30+ entries would be 210 KB and more.
    expect(outbox).toBeLessThan(7000 * 10);
    const kept = await storedBytes('webhook-outbox-metadata');
    expect(kept).toBeGreaterThan(7000);
    expect(kept).toBeLessThan(7000 * 2);
  }, 120_000);
});
