/**
 * A webhook receiver on 127.0.0.1 for the tests of deliveries that fail and are sent again: it
 * answers every request with the status the test sets, and keeps which event came with which
 * answer.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running receiver. */
export interface WebhookReceiver {
  /** `http://127.0.0.1:PORT/hook`. */
  url: string;
  /** The status every delivery is answered with from now on. */
  status: number;
  /** Each delivery: its `x-firecrawl-event` and the status it was answered with. */
  received: { event: string; status: number }[];
  close(): Promise<void>;
}

/** Starts a receiver on a free port that answers `status` until the test sets another. */
export async function startWebhookReceiver(status: number): Promise<WebhookReceiver> {
  const server = createServer((request, response) => {
    request.resume();
    receiver.received.push({
      event: String(request.headers['x-firecrawl-event']),
      status: receiver.status,
    });
    response.writeHead(receiver.status).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const receiver: WebhookReceiver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    status,
    received: [],
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return receiver;
}

/** Polls `check` every 20 ms until it holds; rejects, naming `what`, after `ms`. */
export async function until(check: () => boolean, ms: number, what = 'a condition'): Promise<void> {
  for (const end = Date.now() + ms; !check();) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
