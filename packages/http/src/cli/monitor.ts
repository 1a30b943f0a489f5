/**
 * `trawl monitor`: monitors of the data folder's store from the command line — create, list, run
 * a check now (and wait for it), and read checks and their pages. The same monitors `trawl serve`
 * schedules and serves under `/v2/monitor` (team `default` unless `--team` says otherwise).
 */
import type { parseArgs } from 'node:util';
import {
  MonitorService,
  SearxngProvider,
  WebhookNotifier,
  WebhookSender,
  type Monitor,
  type MonitorCheck,
  type MonitorCheckPage,
  type MonitorCreateInput,
} from '@trawl/core';
import { loadConfig } from '../config.ts';
import { monitorSettingsFrom } from '../server/monitor-settings.ts';
import { withSettingNames } from '../setting-names.ts';
import { parseFlags, UsageError } from './args.ts';
import type { CliIo, Command } from './index.ts';
import { quietable, quietFlagOption, quietHelp, toInteger } from './page-flags.ts';
import { openStore } from './store.ts';

const usage = `Usage: trawl monitor create --name <name> --schedule <when> [options] <url>...
       trawl monitor list [--limit n] [--offset n]
       trawl monitor run <monitorId>
       trawl monitor checks <monitorId> [<checkId>] [--limit n]
       trawl monitor pause|resume|delete <monitorId>

create   watch pages (or, with --crawl, the site each URL starts) on a schedule
list     the monitors, newest first
run      run a check now, wait for it, and print what changed: each page's diff and judgment
checks   a monitor's checks, newest first; with a check id, that check's pages
pause    stop scheduled checks until resumed (the monitor and its checks are kept)
resume   schedule checks again
delete   remove the monitor, its checks and its baselines

Options:
  --name <name>          name of the monitor (create)
  --schedule <when>      'every day at 9am', 'hourly', 'weekdays at 18:30' … or a cron (create)
  --timezone <zone>      IANA timezone of the schedule (default UTC)
  --crawl                each URL starts a crawl of its site: pages found are new, pages gone removed
  --limit <n>            pages per crawl (create --crawl), or entries listed (list, checks)
  --offset <n>           entries skipped (list, checks)
  --goal <text>          judge changes against this goal (an LLM when TRAWL_LLM_MODEL is set)
  --email <address>      send digests to this address (repeatable; needs TRAWL_SMTP_URL)
  --webhook <url>        send monitor.page and monitor.check.completed events here
  --team <name>          the team the monitors belong to (default 'default')
  --json                 print JSON instead of text
${quietHelp}

Monitors live in the SQLite store of $TRAWL_DATA_DIR; 'trawl serve' runs them on schedule.

Examples:
  trawl monitor create --name pricing --schedule 'every day at 9am' https://example.com/pricing
  trawl monitor run mon_… --json
`;

const options = {
  name: { type: 'string' },
  schedule: { type: 'string' },
  timezone: { type: 'string' },
  crawl: { type: 'boolean' },
  limit: { type: 'string' },
  offset: { type: 'string' },
  goal: { type: 'string' },
  email: { type: 'string', multiple: true },
  webhook: { type: 'string' },
  team: { type: 'string' },
  json: { type: 'boolean' },
  ...quietFlagOption,
} as const;

type Values = ReturnType<
  typeof parseArgs<{ options: typeof options; allowPositionals: true }>
>['values'];

/** The schedule flag as cron when it looks like one, as text otherwise. */
function scheduleOf(when: string, timezone: string | undefined): MonitorCreateInput['schedule'] {
  const cron = /^\S+ \S+ \S+ \S+ \S+$/.test(when.trim()) && /^[\d*/,\- ]+$/.test(when.trim());
  return { ...(cron ? { cron: when } : { text: when }), ...(timezone ? { timezone } : {}) };
}

/** How many lines of a page's diff the text output shows; `--json` has all of it. */
const diffLinesShown = 40;

/** A changed page's judgment and diff, indented under its status line. */
function pageDetailText(page: MonitorCheckPage): string {
  const lines: string[] = [];
  const { judgment } = page;
  if (judgment) {
    const verdict = judgment.meaningful ? 'meaningful' : 'not meaningful';
    lines.push(`    judged ${verdict} (${judgment.confidence}): ${judgment.reason}`);
  }
  const diff = page.diff?.text?.trimEnd().split('\n') ?? [];
  for (const line of diff.slice(0, diffLinesShown)) lines.push(`    ${line}`);
  if (diff.length > diffLinesShown)
    lines.push(`    … ${diff.length - diffLinesShown} more lines (--json has the whole diff)`);
  return lines.map((line) => `${line}\n`).join('');
}

const summaryText = (check: MonitorCheck) => {
  const { summary } = check;
  return `${check.status}: ${summary.totalPages} pages — ${summary.changed} changed, ${summary.new} new, ${summary.removed} removed, ${summary.error} failed, ${summary.same} same`;
};

function printMonitor(io: CliIo, monitor: Monitor): void {
  const last = monitor.lastCheckSummary;
  io.stdout(
    [
      monitor.id,
      monitor.name,
      monitor.status,
      `${monitor.schedule.cron} ${monitor.schedule.timezone}`,
      `next ${monitor.nextRunAt ?? '—'}`,
      last
        ? `last: ${last.changed} changed, ${last.new} new, ${last.error} failed`
        : 'never checked',
    ].join('\t') + '\n',
  );
}

async function create(service: MonitorService, values: Values, urls: string[], team: string) {
  if (!values.name) throw new UsageError('monitor create needs --name <name>');
  if (!values.schedule)
    throw new UsageError("monitor create needs --schedule (e.g. 'every day at 9am')");
  if (urls.length === 0) throw new UsageError('monitor create needs at least one URL');
  const limit =
    values.limit === undefined ? undefined : toInteger(values.limit, '--limit', 'limit');
  const targets: MonitorCreateInput['targets'] = values.crawl
    ? urls.map((url) => ({ type: 'crawl', url, ...(limit ? { crawlOptions: { limit } } : {}) }))
    : [{ type: 'scrape', urls }];
  return service.create(
    {
      name: values.name,
      schedule: scheduleOf(values.schedule, values.timezone),
      targets,
      ...(values.goal ? { goal: values.goal } : {}),
      ...(values.webhook ? { webhook: values.webhook } : {}),
      ...(values.email?.length
        ? {
            notification: {
              email: { enabled: true, recipients: values.email, includeDiffs: true },
            },
          }
        : {}),
    },
    { team },
  );
}

const actions = ['create', 'list', 'run', 'checks', 'pause', 'resume', 'delete'];

/** The monitor command. */
export const monitorCommand: Command = {
  usage,
  async run(args, cliIo) {
    const { values, positionals } = parseFlags(args, options);
    const io = quietable(cliIo, values.quiet);
    const [action, ...rest] = positionals;
    if (!actions.includes(action ?? ''))
      throw new UsageError(`give ${actions.slice(0, -1).join(', ')} or ${actions.at(-1)}`);
    const config = loadConfig({ role: 'cli', env: io.env });
    // Refused before anything is created: a monitor whose digests cannot be sent would look
    // set up and mail nothing.
    if (action === 'create' && values.email?.length && !config.server.smtpUrl)
      throw new UsageError('--email needs an SMTP server to send from: set TRAWL_SMTP_URL');
    const settings = monitorSettingsFrom(config.server);
    const store = await openStore(config);
    const service = new MonitorService({
      store,
      config: config.engine,
      ...(settings.llm ? { llm: settings.llm } : {}),
      // Search targets search what the server's would: the index, and SearXNG when set.
      ...(config.server.searxngUrl
        ? { searchProviders: [new SearxngProvider({ url: config.server.searxngUrl })] }
        : {}),
      // The same news as a check the server runs: the monitor's webhook, and e-mail when set up.
      notifiers: [
        new WebhookNotifier(
          new WebhookSender(store, {
            retries: config.server.webhookRetries,
            allowPrivateTargets: config.engine.allowPrivateAddresses,
            ...(config.server.webhookSecret ? { secret: config.server.webhookSecret } : {}),
          }),
        ),
        ...(settings.notifiers ?? []),
      ],
      onWarning: (message) => io.stderr(`warning: ${message}\n`),
    });
    const team = values.team ?? 'default';
    const print = (value: unknown, text: () => void) =>
      values.json ? io.stdout(`${JSON.stringify(value, null, 2)}\n`) : text();
    const paging = {
      ...(values.limit !== undefined ? { limit: toInteger(values.limit, '--limit', 'limit') } : {}),
      ...(values.offset !== undefined
        ? { offset: toInteger(values.offset, '--offset', 'offset') }
        : {}),
    };
    try {
      if (action === 'create') {
        const monitor = await create(service, values, rest, team);
        print(monitor, () => {
          printMonitor(io, monitor);
          io.stderr(
            `Monitor created; 'trawl serve' checks it ${monitor.schedule.cron} (${monitor.schedule.timezone}).\n`,
          );
        });
        return 0;
      }
      if (action === 'list') {
        if (rest.length > 0) throw new UsageError('monitor list takes no arguments');
        const monitors = await service.list(paging, { team });
        print(monitors, () => monitors.forEach((monitor) => printMonitor(io, monitor)));
        return 0;
      }
      const [monitorId, checkId, ...extra] = rest;
      if (!monitorId || extra.length > 0 || (action !== 'checks' && checkId))
        throw new UsageError(`monitor ${action} needs one monitor id`);
      if (action === 'delete') {
        await service.delete(monitorId, { team });
        print({ id: monitorId, deleted: true }, () => io.stderr(`Monitor ${monitorId} deleted.\n`));
        return 0;
      }
      if (action === 'pause' || action === 'resume') {
        const status = action === 'pause' ? 'paused' : 'active';
        const monitor = await service.update(monitorId, { status }, { team });
        print(monitor, () => printMonitor(io, monitor));
        return 0;
      }
      if (action === 'run') {
        const started = await service.run(monitorId, { team });
        const done = await service.waitForCheck(monitorId, started.id, { team });
        const pages = (await service.check(monitorId, done.id, { limit: 100 }, { team })).pages;
        print({ ...done, pages }, () => {
          io.stdout(`${done.id}\t${summaryText(done)}\n`);
          for (const page of pages.filter((entry) => entry.status !== 'same')) {
            io.stdout(
              `  ${page.status}\t${page.url}${page.error ? `\t${withSettingNames(page.error)}` : ''}\n`,
            );
            io.stdout(pageDetailText(page));
          }
          if (done.warning) io.stderr(`warning: ${done.warning}\n`);
        });
        return done.status === 'failed' ? 1 : 0;
      }
      if (checkId) {
        const detail = await service.check(
          monitorId,
          checkId,
          { limit: paging.limit ?? 100 },
          { team },
        );
        print(detail, () => {
          io.stdout(`${detail.id}\t${summaryText(detail)}\n`);
          for (const page of detail.pages) io.stdout(`  ${page.status}\t${page.url}\n`);
        });
        return 0;
      }
      const checks = await service.checks(monitorId, paging, { team });
      print(checks, () =>
        checks.forEach((check) =>
          io.stdout(`${check.id}\t${check.trigger}\t${check.createdAt}\t${summaryText(check)}\n`),
        ),
      );
      return 0;
    } finally {
      await service.stop();
      for (const notifier of settings.notifiers ?? []) await notifier.close?.();
      await store.close();
    }
  },
};
