/**
 * A real SMTP server on 127.0.0.1 (the `smtp-server` package) that keeps every message it
 * receives, parsed with `mailparser`: e-mail tests send through nodemailer to it, never to a mock
 * transport. It accepts any user and password over plain SMTP.
 */
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** A running receiver. */
export interface SmtpReceiver {
  /** `smtp://user:pass@127.0.0.1:PORT`. */
  url: string;
  /** Messages received, parsed, with the envelope's recipients. */
  messages: (ParsedMail & { envelopeTo: string[] })[];
  /** Resolves when `count` messages have arrived (or rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts a receiver on a free port. */
export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const messages: SmtpReceiver['messages'] = [];
  const server = new SMTPServer({
    secure: false,
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(_auth, _session, callback) {
      callback(null, { user: 'test' });
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((mail) => {
          messages.push(
            Object.assign(mail, {
              envelopeTo: session.envelope.rcptTo.map((recipient) => recipient.address),
            }),
          );
          callback();
        })
        .catch((error: unknown) => callback(error as Error));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://user:secret@127.0.0.1:${port}`,
    messages,
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (messages.length < count) {
        if (Date.now() > deadline)
          throw new Error(`expected ${count} message(s), got ${messages.length}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
