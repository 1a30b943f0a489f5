/**
 * Webhooks and DNS rebinding: a receiver whose name resolves first to an
 * allowed address and then to a private one is never contacted at the private one. The old
 * sender resolved the name to check it, then let `fetch` resolve it again to connect; a
 * rebinding DNS server answers the two differently.
 *
 * On a loopback-only machine the "public" address is a loopback address made reachable by the
 * guard's `allowedAddresses` exemption (127.0.0.3); the private receiver is 127.0.0.1 on the same
 * port. The name's resolver is injected (`guard.lookup`) and answers by a script.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryStore, WebhookSender } from '@trawl/core';
import { type WebhookConfig } from '@trawl/core/server';

/** A receiver on one address that records the requests it gets and answers `status`. */
async function receiver(host: string, port: number, status: number) {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(req.url ?? '');
    // A fresh connection per attempt, so that every retry resolves the name again.
    res.writeHead(status, { connection: 'close' }).end();
  });
  server.listen(port, host);
  await once(server, 'listening');
  return { hits, server, port: (server.address() as AddressInfo).port };
}

/**
 * Two receivers on the same port: the allowed one at 127.0.0.3, the private one at 127.0.0.1.
 * The port is free on 127.0.0.3 but may be taken on 127.0.0.1 by another socket of the run (an
 * outgoing connection's ephemeral port): then another port is tried.
 */
async function receiverPair(allowedStatus: number) {
  for (let attempt = 1; ; attempt++) {
    const allowed = await receiver('127.0.0.3', 0, allowedStatus);
    try {
      const privateOne = await receiver('127.0.0.1', allowed.port, 200);
      return { allowed, privateOne, port: allowed.port };
    } catch (error) {
      allowed.server.close();
      if ((error as { code?: string }).code !== 'EADDRINUSE' || attempt === 20) throw error;
    }
  }
}

/** Answers the scripted addresses in turn (the last one from then on), counting calls. */
function rebindingLookup(answers: string[]): LookupFunction & { calls: number } {
  const lookup = ((_hostname, options, callback) => {
    const address = answers[Math.min(lookup.calls, answers.length - 1)] ?? '';
    lookup.calls++;
    if (options.all) callback(null, [{ address, family: 4 }]);
    else callback(null, address, 4);
  }) as LookupFunction & { calls: number };
  lookup.calls = 0;
  return lookup;
}

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

const hook = (port: number): WebhookConfig => ({
  url: `http://hooks.rebind.test:${port}/hook`,
  headers: {},
  metadata: {},
  events: [],
});

describe('webhook delivery and DNS rebinding', () => {
  it('never contacts a receiver whose name resolves first public, then private', async () => {
    // The allowed receiver fails, so the sender retries, and the name now answers 127.0.0.1.
    const { allowed, privateOne, port } = await receiverPair(500);
    servers.push(allowed.server, privateOne.server);
    const lookup = rebindingLookup(['127.0.0.3', '127.0.0.1']);
    const sender = new WebhookSender(new MemoryStore(), {
      retries: 3,
      retryBaseMs: 1,
      timeoutMs: 5000,
      guard: { lookup, allowedAddresses: ['127.0.0.3'] },
    });
    const delivery = await sender.send(hook(port), 'crawl.page', 'job-1', {
      success: true,
      data: [],
    });
    expect(allowed.hits).toEqual(['/hook']);
    expect(privateOne.hits).toEqual([]);
    expect(delivery).toMatchObject({ delivered: false });
    expect(delivery?.error).toContain('127.0.0.1');
    // One resolution per connection: the check and the connection used the same answer.
    expect(lookup.calls).toBe(2);
  });

  it('never contacts the private receiver when the first answer is already private', async () => {
    const { allowed, privateOne, port } = await receiverPair(200);
    servers.push(allowed.server, privateOne.server);
    const sender = new WebhookSender(new MemoryStore(), {
      retries: 2,
      retryBaseMs: 1,
      guard: { lookup: rebindingLookup(['127.0.0.1']), allowedAddresses: ['127.0.0.3'] },
    });
    const delivery = await sender.send(hook(port), 'crawl.page', 'job-2', {
      success: true,
      data: [],
    });
    expect(privateOne.hits).toEqual([]);
    // A refused address is not retried.
    expect(delivery).toMatchObject({ delivered: false, attempts: 1 });
  });

  it('delivers to the address the name resolves to when it is allowed (the lookup is the one used)', async () => {
    const { allowed, privateOne, port } = await receiverPair(200);
    servers.push(allowed.server, privateOne.server);
    const sender = new WebhookSender(new MemoryStore(), {
      retryBaseMs: 1,
      guard: { lookup: rebindingLookup(['127.0.0.3']), allowedAddresses: ['127.0.0.3'] },
    });
    const delivery = await sender.send(hook(port), 'crawl.page', 'job-3', {
      success: true,
      data: [],
    });
    expect(delivery).toMatchObject({ delivered: true, status: 200 });
    expect(allowed.hits).toEqual(['/hook']);
    expect(privateOne.hits).toEqual([]);
  });
});
