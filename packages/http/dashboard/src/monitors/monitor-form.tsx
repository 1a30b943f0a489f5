/**
 * Create or edit a monitor: its targets (pages, or a site to crawl), a plain-language schedule
 * (the server turns it into the cron it shows back), the goal its changes are judged against,
 * and where its events go (webhook, e-mail).
 */
import { useEffect, useState } from 'preact/hooks';
import { api, messageOf } from '../api.ts';
import { go } from '../router.ts';
import type { Monitor, Target } from '../types.ts';
import { ErrorNote, Loading } from '../ui.tsx';
import { TargetFields, type TargetDraft } from './target-fields.tsx';

interface Draft {
  name: string;
  targets: TargetDraft[];
  schedule: string;
  timezone: string;
  goal: string;
  judgeEnabled: boolean;
  webhookUrl: string;
  pageEvents: boolean;
  checkEvents: boolean;
  emailEnabled: boolean;
  recipients: string;
  includeDiffs: boolean;
  retentionDays: number;
}

const blank: Draft = {
  name: '',
  targets: [{ type: 'scrape', urls: '', limit: 50 }],
  schedule: 'every day at 9am',
  timezone: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC',
  goal: '',
  judgeEnabled: true,
  webhookUrl: '',
  pageEvents: true,
  checkEvents: true,
  emailEnabled: false,
  recipients: '',
  includeDiffs: true,
  retentionDays: 30,
};

function draftOf(monitor: Monitor): Draft {
  const events = monitor.webhook?.events ?? ['monitor.page', 'monitor.check.completed'];
  const email = monitor.notification.email;
  return {
    name: monitor.name,
    targets: monitor.targets.map((target) => ({
      type: target.type,
      urls:
        target.type === 'scrape'
          ? target.urls.join('\n')
          : target.type === 'crawl'
            ? target.url
            : target.queries.join('\n'),
      limit: Number(target.type === 'crawl' ? (target.crawlOptions?.['limit'] ?? 50) : 50),
      original: target,
    })),
    // A cron literal is valid schedule text: saving unchanged keeps the schedule.
    schedule: monitor.schedule.cron,
    timezone: monitor.schedule.timezone,
    goal: monitor.goal ?? '',
    judgeEnabled: monitor.judgeEnabled,
    webhookUrl: monitor.webhook?.url ?? '',
    pageEvents: events.includes('monitor.page'),
    checkEvents: events.includes('monitor.check.completed'),
    emailEnabled: email?.enabled ?? false,
    recipients: email?.recipients.join(', ') ?? '',
    includeDiffs: email?.includeDiffs ?? false,
    retentionDays: monitor.retentionDays,
  };
}

const lines = (text: string) =>
  text
    .split(/[\n,]/)
    .map((line) => line.trim())
    .filter(Boolean);

/** A target as the API takes it; what the form does not show of an existing one is kept. */
function targetOf(draft: TargetDraft): Target {
  // A target whose type changed keeps nothing of what it was.
  const kept: Record<string, unknown> =
    draft.original?.type === draft.type ? { ...draft.original } : {};
  if (draft.type === 'scrape') return { ...kept, type: 'scrape', urls: lines(draft.urls) };
  if (draft.type === 'crawl') {
    const crawlOptions = { ...(kept['crawlOptions'] ?? {}), limit: draft.limit };
    return { ...kept, type: 'crawl', url: draft.urls.trim(), crawlOptions };
  }
  return { ...kept, type: 'search', queries: lines(draft.urls) };
}

function bodyOf(draft: Draft) {
  const events = [
    ...(draft.pageEvents ? ['monitor.page'] : []),
    ...(draft.checkEvents ? ['monitor.check.completed'] : []),
  ];
  return {
    name: draft.name.trim(),
    targets: draft.targets.map(targetOf),
    schedule: { text: draft.schedule.trim(), timezone: draft.timezone.trim() || 'UTC' },
    goal: draft.goal.trim() || null,
    judgeEnabled: draft.judgeEnabled && draft.goal.trim() !== '',
    webhook: draft.webhookUrl.trim() ? { url: draft.webhookUrl.trim(), events } : null,
    notification: {
      email: {
        enabled: draft.emailEnabled,
        recipients: lines(draft.recipients),
        includeDiffs: draft.includeDiffs,
      },
    },
    retentionDays: draft.retentionDays,
  };
}

export function MonitorForm({ id }: { id?: string }) {
  const [draft, setDraft] = useState<Draft | undefined>(id ? undefined : blank);
  const [cron, setCron] = useState<string>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (!id) return;
    api<{ data: Monitor }>('GET', `/v2/monitor/${id}`).then(
      ({ data }) => {
        setDraft(draftOf(data));
        setCron(`${data.schedule.cron} (${data.schedule.timezone})`);
      },
      (failure: unknown) => setError(messageOf(failure)),
    );
  }, [id]);
  if (!draft) return error ? <ErrorNote error={error} /> : <Loading />;

  const set = <K extends keyof Draft>(field: K, value: Draft[K]) =>
    setDraft({ ...draft, [field]: value });
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const body = bodyOf(draft);
      const { data } = id
        ? await api<{ data: Monitor }>('PATCH', `/v2/monitor/${id}`, body)
        : await api<{ data: Monitor }>('POST', '/v2/monitor', {
            ...body,
            ...(body.webhook ? {} : { webhook: undefined }),
          });
      go('monitors', data.id);
    } catch (failure) {
      setError(messageOf(failure));
      setBusy(false);
    }
  };

  return (
    <section>
      <h1>{id ? `Edit ${draft.name}` : 'New monitor'}</h1>
      <form class="form" onSubmit={(event) => void submit(event)}>
        <label for="monitor-name">Name</label>
        <input
          id="monitor-name"
          required
          maxLength={256}
          value={draft.name}
          onInput={(event) => set('name', event.currentTarget.value)}
        />

        <TargetFields targets={draft.targets} onChange={(targets) => set('targets', targets)} />

        <fieldset>
          <legend>Schedule</legend>
          <label for="monitor-schedule">When to check</label>
          <input
            id="monitor-schedule"
            required
            aria-describedby="schedule-help"
            value={draft.schedule}
            onInput={(event) => set('schedule', event.currentTarget.value)}
          />
          <p id="schedule-help" class="help">
            Plain language (“every 15 minutes”, “every weekday at 8:15”, “daily at 9am”) or a cron
            expression; the server turns it into the cron shown on the monitor.
            {cron && (
              <>
                {' '}
                Now: <code data-testid="current-cron">{cron}</code>.
              </>
            )}
          </p>
          <label for="monitor-timezone">Time zone</label>
          <input
            id="monitor-timezone"
            value={draft.timezone}
            onInput={(event) => set('timezone', event.currentTarget.value)}
          />
        </fieldset>

        <fieldset>
          <legend>Judging</legend>
          <label for="monitor-goal">Goal: what change matters</label>
          <textarea
            id="monitor-goal"
            maxLength={2000}
            rows={3}
            value={draft.goal}
            onInput={(event) => set('goal', event.currentTarget.value)}
          />
          <label class="check">
            <input
              type="checkbox"
              checked={draft.judgeEnabled}
              onChange={(event) => set('judgeEnabled', event.currentTarget.checked)}
            />
            Judge changed pages against the goal
          </label>
        </fieldset>

        <fieldset>
          <legend>Notifications</legend>
          <label for="monitor-webhook">Webhook URL</label>
          <input
            id="monitor-webhook"
            type="url"
            value={draft.webhookUrl}
            onInput={(event) => set('webhookUrl', event.currentTarget.value)}
          />
          <label class="check">
            <input
              type="checkbox"
              checked={draft.pageEvents}
              onChange={(event) => set('pageEvents', event.currentTarget.checked)}
            />
            Page events (<code>monitor.page</code>)
          </label>
          <label class="check">
            <input
              type="checkbox"
              checked={draft.checkEvents}
              onChange={(event) => set('checkEvents', event.currentTarget.checked)}
            />
            Check completed (<code>monitor.check.completed</code>)
          </label>
          <label class="check">
            <input
              type="checkbox"
              checked={draft.emailEnabled}
              onChange={(event) => set('emailEnabled', event.currentTarget.checked)}
            />
            E-mail a digest after each check
          </label>
          <label for="monitor-recipients">E-mail recipients (comma-separated)</label>
          <input
            id="monitor-recipients"
            value={draft.recipients}
            onInput={(event) => set('recipients', event.currentTarget.value)}
          />
          <label class="check">
            <input
              type="checkbox"
              checked={draft.includeDiffs}
              onChange={(event) => set('includeDiffs', event.currentTarget.checked)}
            />
            Put the diffs in the e-mail
          </label>
        </fieldset>

        <label for="monitor-retention">Keep checks for (days)</label>
        <input
          id="monitor-retention"
          type="number"
          min={1}
          max={365}
          value={draft.retentionDays}
          onInput={(event) => set('retentionDays', Number(event.currentTarget.value))}
        />

        <div class="actions">
          <button type="submit" disabled={busy}>
            {id ? 'Save' : 'Create monitor'}
          </button>
          <a class="button secondary" href={id ? `#/monitors/${id}` : '#/monitors'}>
            Cancel
          </a>
        </div>
        <ErrorNote error={error} />
      </form>
    </section>
  );
}
