/**
 * EmailNotifier's digest of a big check: a real monitor whose 8 pages all changed, mailed through
 * nodemailer to a real SMTP server (smtp-server): the message describes 5 pages with their diffs
 * (the hosted service's cap) and counts the rest as "and 3 more".
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MonitorService, resolveEngineConfig, SqliteStore } from '@trawl/core';
import { EmailNotifier } from '@trawl/adapters';
import {
  startChangingSite,
  type ChangingSite,
} from '../../../../test/fixture-site/changing-site.ts';
import { startSmtpReceiver, type SmtpReceiver } from '../../../../test/fakes/smtp-receiver.ts';

let site: ChangingSite;
let smtp: SmtpReceiver;
let store: SqliteStore;
let email: EmailNotifier;
const config = resolveEngineConfig({ allowPrivateAddresses: true });
const paths = Array.from({ length: 8 }, (_, index) => `/plan${index}`);

beforeAll(async () => {
  site = await startChangingSite();
  smtp = await startSmtpReceiver();
  store = new SqliteStore({
    path: join(mkdtempSync(join(tmpdir(), 'trawl-email-cap-')), 'trawl.db'),
  });
  email = new EmailNotifier({ url: smtp.url });
});
afterAll(async () => {
  await email.close();
  await store.close();
  await Promise.all([site.close(), smtp.close()]);
});

describe('an e-mail of a check where 8 pages changed', () => {
  it('lists all 8 changed pages and carries 5 diffs', async () => {
    for (const [index, path] of paths.entries())
      site.set(path, { title: `Plan ${index}`, text: `Plan ${index}: ${10 + index} EUR` });
    const service = new MonitorService({ store, config, notifiers: [email] });
    try {
      const monitor = await service.create({
        name: 'Plans',
        schedule: { text: 'daily' },
        targets: [{ type: 'scrape', urls: paths.map((path) => `${site.url}${path}`) }],
        notification: {
          email: { enabled: true, recipients: ['ops@example.com'], includeDiffs: true },
        },
      });
      const first = await service.run(monitor.id);
      await service.waitForCheck(monitor.id, first.id);
      await smtp.waitFor(1);
      smtp.messages.length = 0;

      for (const [index, path] of paths.entries())
        site.set(path, { title: `Plan ${index}`, text: `Plan ${index}: ${20 + index} EUR` });
      const started = await service.run(monitor.id);
      const done = await service.waitForCheck(monitor.id, started.id);
      expect(done.summary.changed).toBe(8);
      await smtp.waitFor(1);
      const [mail] = smtp.messages;
      expect(mail?.subject).toBe('[Plans] 8 pages changed');
      const text = mail?.text ?? '';
      // Every changed page by its URL; a unified diff for the first five only.
      expect(text.match(/^\+\+\+ b\//gm)).toHaveLength(5);
      expect(text.match(/^CHANGED: /gm)).toHaveLength(8);
      for (const path of paths) expect(text).toContain(`CHANGED: ${site.url}${path}`);
      expect(text).toContain('Diffs of the first 5 pages only');
      expect(mail?.html?.toString().match(/<pre/g)).toHaveLength(5);
      expect(mail?.html?.toString().match(/<h3>changed: /g)).toHaveLength(8);
    } finally {
      await service.stop();
    }
  });
});
