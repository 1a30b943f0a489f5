/**
 * WebhookNotifier runs the Notifier contract against a real HTTP receiver on 127.0.0.1, and
 * against a port where nothing listens (one attempt, so the failure is reported at once).
 */
import { MemoryStore, WebhookNotifier, WebhookSender } from '@trawl/core';
import { describeNotifierContract } from '../../../../test/contracts/notifier.contract.ts';
import { startWebhookReceiver, until } from '../../../../test/fakes/webhook-receiver.ts';

describeNotifierContract('WebhookNotifier', async (destination) => {
  const receiver = await startWebhookReceiver(200);
  const url = destination === 'live' ? receiver.url : 'http://127.0.0.1:1/hook';
  const store = new MemoryStore();
  const sender = new WebhookSender(store, {
    allowPrivateTargets: true,
    retries: 0,
    retryBaseMs: 10,
    timeoutMs: 5_000,
  });
  const completed = () =>
    receiver.received.filter((entry) => entry.event === 'monitor.check.completed').length;
  return {
    notifier: new WebhookNotifier(sender),
    aim: (monitor) => ({ ...monitor, webhook: { url } }),
    received: completed,
    waitForReceived: (count) => until(() => completed() >= count, 10_000, `${count} webhook(s)`),
    async close() {
      await sender.close();
      await store.close();
      await receiver.close();
    },
  };
});
