/**
 * EmailNotifier runs the Notifier contract through nodemailer against a real SMTP server
 * (smtp-server) on 127.0.0.1, and against a port where nothing listens.
 */
import { EmailNotifier } from '@trawl/adapters';
import { describeNotifierContract } from '../../../../test/contracts/notifier.contract.ts';
import { startSmtpReceiver } from '../../../../test/fakes/smtp-receiver.ts';

describeNotifierContract('EmailNotifier', async (destination) => {
  const smtp = await startSmtpReceiver();
  const notifier = new EmailNotifier({
    url: destination === 'live' ? smtp.url : 'smtp://user:secret@127.0.0.1:1',
  });
  return {
    notifier,
    aim: (monitor) => ({
      ...monitor,
      notification: {
        email: { enabled: true, recipients: ['ops@example.com'], includeDiffs: true },
      },
    }),
    received: () => smtp.messages.length,
    waitForReceived: (count) => smtp.waitFor(count),
    async close() {
      await notifier.close();
      await smtp.close();
    },
  };
});
