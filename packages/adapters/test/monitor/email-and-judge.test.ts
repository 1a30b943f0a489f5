/**
 * Monitors with their real notifiers and model: digests sent by EmailNotifier through nodemailer
 * to a real SMTP server (smtp-server), one per check and only when something (meaningful)
 * changed; judging and JSON extraction by OpenAiLlmProvider against a fake OpenAI-compatible
 * server, with a failing judge leaving pages unjudged and e-mail failing open.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  MonitorService,
  resolveEngineConfig,
  SqliteStore,
  type MonitorCheck,
  type MonitorCheckPage,
} from '@trawl/core';
import { EmailNotifier, OpenAiLlmProvider } from '@trawl/adapters';
import {
  startChangingSite,
  type ChangingSite,
} from '../../../../test/fixture-site/changing-site.ts';
import {
  startFakeOpenAi,
  type ChatRequest,
  type FakeOpenAi,
} from '../../../../test/fakes/openai-server.ts';
import { startSmtpReceiver, type SmtpReceiver } from '../../../../test/fakes/smtp-receiver.ts';

let site: ChangingSite;
let smtp: SmtpReceiver;
let fake: FakeOpenAi;
let store: SqliteStore;
let email: EmailNotifier;
const config = resolveEngineConfig({ allowPrivateAddresses: true });

beforeAll(async () => {
  site = await startChangingSite();
  smtp = await startSmtpReceiver();
  fake = await startFakeOpenAi();
  store = new SqliteStore({
    path: join(mkdtempSync(join(tmpdir(), 'trawl-monitor-mail-')), 'trawl.db'),
  });
  email = new EmailNotifier({ url: smtp.url, from: 'Trawl <monitors@trawl.test>' });
});
beforeEach(() => {
  smtp.messages.length = 0;
  fake.requests.length = 0;
});
afterAll(async () => {
  await email.close();
  await store.close();
  await Promise.all([site.close(), smtp.close(), fake.close()]);
});

let counter = 0;
function page(text: string): string {
  const path = `/mail${++counter}`;
  site.set(path, { title: 'Pricing', text });
  return path;
}

async function check(service: MonitorService, monitorId: string): Promise<MonitorCheck> {
  const started = await service.run(monitorId);
  return service.waitForCheck(monitorId, started.id);
}

async function pages(
  service: MonitorService,
  monitorId: string,
  checkId: string,
): Promise<MonitorCheckPage[]> {
  return (await service.check(monitorId, checkId, { limit: 100 })).pages;
}

/** The judge's answer the fake gives, by what the diff mentions. */
function judgeByDiff(request: ChatRequest) {
  const user = request.messages.find((message) => message.role === 'user')?.content ?? '';
  const meaningful = /price|EUR/i.test(user.split('Diff')[1] ?? '');
  return {
    content: JSON.stringify({
      meaningful,
      confidence: 'high',
      reason: meaningful ? 'The price of a plan changed.' : 'Only cosmetic text changed.',
      meaningfulChanges: meaningful
        ? [{ type: 'changed', before: 'Basic: 10 EUR', after: 'Basic: 12 EUR', reason: 'price' }]
        : [],
    }),
  };
}

describe('e-mail digests over SMTP', () => {
  it('sends one digest per check with the diff when a page changed, and none when nothing did', async () => {
    const service = new MonitorService({ store, config, notifiers: [email] });
    const path = page('Basic: 10 EUR\nPro: 20 EUR');
    const monitor = await service.create({
      name: 'Pricing',
      schedule: { text: 'daily' },
      targets: [{ type: 'scrape', urls: [`${site.url}${path}`, `${site.url}${page('Static')}`] }],
      notification: {
        email: {
          enabled: true,
          recipients: ['ops@example.com', 'cto@example.com'],
          includeDiffs: true,
        },
      },
    });
    const first = await check(service, monitor.id);
    // The first check finds new pages: that is news too.
    await smtp.waitFor(1);
    expect(first.notificationStatus['email']).toMatchObject({
      attempted: true,
      success: true,
      recipients: 2,
    });
    smtp.messages.length = 0;

    const quiet = await check(service, monitor.id);
    expect(quiet.notificationStatus['email']).toMatchObject({
      attempted: false,
      reason: 'nothing changed',
    });
    expect(smtp.messages).toHaveLength(0);

    site.set(path, { title: 'Pricing', text: 'Basic: 12 EUR\nPro: 20 EUR' });
    const changed = await check(service, monitor.id);
    await smtp.waitFor(1);
    const [mail] = smtp.messages;
    expect(mail?.subject).toBe('[Pricing] 1 page changed');
    expect(mail?.envelopeTo.sort()).toEqual(['cto@example.com', 'ops@example.com']);
    expect(mail?.from?.text).toContain('monitors@trawl.test');
    expect(mail?.text).toContain(`CHANGED: ${site.url}${path}`);
    expect(mail?.text).toContain('-Basic: 10 EUR');
    expect(mail?.text).toContain('+Basic: 12 EUR');
    expect(mail?.html).toContain('<pre');
    expect(mail?.headers.get('x-trawl-check-id')).toBe(changed.id);
    expect(changed.notificationStatus['email']).toMatchObject({ attempted: true, success: true });
  });

  it('leaves the diff out without includeDiffs, and sends nothing while e-mail is off', async () => {
    const service = new MonitorService({ store, config, notifiers: [email] });
    const path = page('v1');
    const monitor = await service.create({
      name: 'No diffs',
      schedule: { text: 'daily' },
      targets: [{ type: 'scrape', urls: [`${site.url}${path}`] }],
      notification: { email: { enabled: true, recipients: ['ops@example.com'] } },
    });
    await check(service, monitor.id);
    await smtp.waitFor(1);
    smtp.messages.length = 0;
    site.set(path, { title: 'Pricing', text: 'v2' });
    await check(service, monitor.id);
    await smtp.waitFor(1);
    expect(smtp.messages[0]?.text).toContain('CHANGED');
    expect(smtp.messages[0]?.text).not.toContain('+v2');
    smtp.messages.length = 0;
    await service.update(monitor.id, {
      notification: { email: { enabled: false, recipients: ['ops@example.com'] } },
    });
    site.set(path, { title: 'Pricing', text: 'v3' });
    const off = await check(service, monitor.id);
    expect(off.notificationStatus['email']).toMatchObject({ attempted: false });
    expect(smtp.messages).toHaveLength(0);
  });

  it('reports a failed delivery when the SMTP server is gone', async () => {
    const unreachable = new EmailNotifier({ url: 'smtp://127.0.0.1:1' });
    const service = new MonitorService({ store, config, notifiers: [unreachable] });
    const monitor = await service.create({
      name: 'Lost mail',
      schedule: { text: 'daily' },
      targets: [{ type: 'scrape', urls: [`${site.url}${page('x')}`] }],
      notification: { email: { enabled: true, recipients: ['ops@example.com'] } },
    });
    const result = await check(service, monitor.id);
    expect(result.status).toBe('completed');
    expect(result.notificationStatus['email']).toMatchObject({ attempted: true, success: false });
    await unreachable.close();
  });

  it('refuses an SMTP URL of another scheme', () => {
    expect(() => new EmailNotifier({ url: 'http://127.0.0.1:25' })).toThrow(/smtp:\/\//);
  });
});

describe('judging with an LLM', () => {
  it('judges changed pages with the model and mails only the meaningful changes', async () => {
    fake.respond = judgeByDiff;
    const llm = new OpenAiLlmProvider({ baseUrl: fake.baseUrl, model: 'judge', retries: 0 });
    const service = new MonitorService({ store, config, llm, notifiers: [email] });
    const pricing = page('Basic: 10 EUR');
    const blurb = page('Welcome to our shop');
    const monitor = await service.create({
      name: 'Judged',
      schedule: { text: 'daily' },
      targets: [{ type: 'scrape', urls: [`${site.url}${pricing}`, `${site.url}${blurb}`] }],
      goal: 'Tell me when a plan price changes',
      notification: {
        email: { enabled: true, recipients: ['ops@example.com'], includeDiffs: true },
      },
    });
    expect(monitor.judgeEnabled).toBe(true);
    await check(service, monitor.id);
    await smtp.waitFor(0);
    smtp.messages.length = 0;

    site.set(blurb, { title: 'Pricing', text: 'Welcome to our lovely shop' });
    const cosmetic = await check(service, monitor.id);
    const judged = (await pages(service, monitor.id, cosmetic.id)).find(
      (entry) => entry.status === 'changed',
    );
    expect(judged?.judgment).toEqual({
      meaningful: false,
      confidence: 'high',
      reason: 'Only cosmetic text changed.',
      meaningfulChanges: [],
      method: 'llm',
    });
    expect(cosmetic.notificationStatus['email']).toMatchObject({
      attempted: false,
      reason: 'nothing changed meaningfully',
    });
    expect(smtp.messages).toHaveLength(0);
    const request = fake.requests.at(-1)?.body;
    expect(request?.response_format?.json_schema?.name).toBe('monitor_judgment');
    expect(request?.messages.at(-1)?.content).toContain('Goal: Tell me when a plan price changes');
    expect(request?.messages.at(-1)?.content).toContain('+Welcome to our lovely shop');

    site.set(pricing, { title: 'Pricing', text: 'Basic: 12 EUR' });
    const priced = await check(service, monitor.id);
    await smtp.waitFor(1);
    expect(smtp.messages[0]?.text).toContain('The price of a plan changed.');
    const changedPage = (await pages(service, monitor.id, priced.id)).find(
      (entry) => entry.status === 'changed',
    );
    expect(changedPage?.judgment?.meaningful).toBe(true);
  });

  it('leaves a page unjudged when the model fails, and mails it anyway (fail-open)', async () => {
    fake.respond = () => ({ status: 500, message: 'model overloaded' });
    const llm = new OpenAiLlmProvider({ baseUrl: fake.baseUrl, model: 'judge', retries: 0 });
    const warnings: string[] = [];
    const service = new MonitorService({
      store,
      config,
      llm,
      notifiers: [email],
      onWarning: (message) => warnings.push(message),
    });
    const path = page('Basic: 10 EUR');
    const monitor = await service.create({
      name: 'Judge down',
      schedule: { text: 'daily' },
      targets: [{ type: 'scrape', urls: [`${site.url}${path}`] }],
      goal: 'plan prices',
      notification: { email: { enabled: true, recipients: ['ops@example.com'] } },
    });
    const first = await check(service, monitor.id);
    expect((await pages(service, monitor.id, first.id))[0]).toMatchObject({
      status: 'new',
      judgment: null,
    });
    await smtp.waitFor(1);
    expect(warnings.some((warning) => warning.includes('model overloaded'))).toBe(true);
  });

  it('extracts JSON with the model and diffs it field by field', async () => {
    let price = 10;
    fake.respond = (request) =>
      request.response_format?.json_schema?.name === 'extraction'
        ? { content: JSON.stringify({ plan: 'Basic', price, currency: 'EUR' }) }
        : { content: '{}' };
    const llm = new OpenAiLlmProvider({ baseUrl: fake.baseUrl, model: 'extractor', retries: 0 });
    const service = new MonitorService({ store, config, llm });
    const path = page('Basic costs 10 EUR');
    const monitor = await service.create({
      name: 'JSON',
      schedule: { text: 'daily' },
      targets: [
        {
          type: 'scrape',
          urls: [`${site.url}${path}`],
          scrapeOptions: {
            formats: [
              {
                type: 'json',
                prompt: 'The plan and its price',
                schema: {
                  type: 'object',
                  properties: { plan: { type: 'string' }, price: { type: 'number' } },
                },
              },
            ],
          },
        },
      ],
    });
    expect(monitor.estimatedCreditsPerMonth).toBe(30 * 5);
    const first = await check(service, monitor.id);
    expect((await pages(service, monitor.id, first.id))[0]).toMatchObject({
      status: 'new',
      snapshot: { json: { plan: 'Basic', price: 10, currency: 'EUR' } },
    });
    const extraction = fake.requests.find(
      (entry) => entry.body.response_format?.json_schema?.name === 'extraction',
    );
    expect(extraction?.body.messages.at(-1)?.content).toContain(
      'Instructions: The plan and its price',
    );
    expect(extraction?.body.messages.at(-1)?.content).toContain('Basic costs 10 EUR');
    // Markdown that changes without changing the extraction is the same for a JSON monitor.
    site.set(path, { title: 'Pricing', text: 'Basic costs 10 EUR per month' });
    expect((await check(service, monitor.id)).summary.same).toBe(1);
    price = 12;
    const changed = await check(service, monitor.id);
    expect((await pages(service, monitor.id, changed.id))[0]).toMatchObject({
      status: 'changed',
      diff: { json: { price: { previous: 10, current: 12 } } },
      snapshot: { json: { price: 12 } },
    });
    expect(changed.actualCredits).toBe(5);
  });
});
