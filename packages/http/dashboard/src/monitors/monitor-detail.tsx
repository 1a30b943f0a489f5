/** One monitor: what it watches and when, its actions, and its checks as a timeline. */
import { useEffect, useState } from 'preact/hooks';
import { api, messageOf } from '../api.ts';
import { go, href } from '../router.ts';
import type { Monitor, MonitorCheck } from '../types.ts';
import { ErrorNote, Loading, Time, useLoad } from '../ui.tsx';
import { Summary } from './summary.tsx';

const unfinished = (check: MonitorCheck) => check.status === 'queued' || check.status === 'running';

function targetText(target: Monitor['targets'][number]): string {
  if (target.type === 'scrape') return target.urls.join(', ');
  if (target.type === 'crawl') return `crawl of ${target.url}`;
  return `search: ${target.queries.join('; ')}`;
}

export function MonitorDetail({ id }: { id: string }) {
  const [error, setError] = useState<string>();
  const monitor = useLoad(
    () => api<{ data: Monitor }>('GET', `/v2/monitor/${id}`).then((answer) => answer.data),
    [id],
  );
  const checks = useLoad(
    () =>
      api<{ data: MonitorCheck[] }>('GET', `/v2/monitor/${id}/checks?limit=50`).then(
        (answer) => answer.data,
      ),
    [id],
    // Follow a running check closely; otherwise look for scheduled ones now and then.
    (list) => (list.some(unfinished) ? 1000 : 15_000),
  );
  const running = checks.value?.some(unfinished) ?? false;
  // A check that ends moves the monitor's last run and summary.
  useEffect(() => monitor.reload(), [running]);

  const act = async (work: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await work();
      monitor.reload();
      checks.reload();
    } catch (failure) {
      setError(messageOf(failure));
    }
  };
  const value = monitor.value;
  if (!value) return monitor.error ? <ErrorNote error={monitor.error} /> : <Loading />;
  const email = value.notification.email;
  return (
    <section>
      <p class="crumbs">
        <a href={href('monitors')}>Monitors</a> ›
      </p>
      <div class="heading">
        <h1>{value.name}</h1>
        <span class={`badge status-${value.status}`}>{value.status}</span>
      </div>
      <div class="actions">
        <button
          type="button"
          onClick={() => void act(() => api('POST', `/v2/monitor/${id}/run`, {}))}
          disabled={value.status === 'paused' || running}
        >
          Run now
        </button>
        <button
          type="button"
          class="secondary"
          onClick={() =>
            void act(() =>
              api('PATCH', `/v2/monitor/${id}`, {
                status: value.status === 'active' ? 'paused' : 'active',
              }),
            )
          }
        >
          {value.status === 'active' ? 'Pause' : 'Resume'}
        </button>
        <a class="button secondary" href={href('monitors', id, 'edit')}>
          Edit
        </a>
        <button
          type="button"
          class="danger"
          onClick={() => {
            if (!confirm(`Delete the monitor “${value.name}” and its checks?`)) return;
            void act(async () => {
              await api('DELETE', `/v2/monitor/${id}`);
              go('monitors');
            });
          }}
        >
          Delete
        </button>
      </div>
      <ErrorNote error={error} />
      <dl class="facts">
        <dt>Schedule</dt>
        <dd>
          <code data-testid="cron">{value.schedule.cron}</code> ({value.schedule.timezone})
        </dd>
        <dt>Next run</dt>
        <dd>
          <Time at={value.status === 'paused' ? null : value.nextRunAt} />
        </dd>
        <dt>Last run</dt>
        <dd>
          <Time at={value.lastRunAt} />
        </dd>
        <dt>Targets</dt>
        <dd>
          <ul class="plain">
            {value.targets.map((target, index) => (
              <li key={target.id ?? index}>{targetText(target)}</li>
            ))}
          </ul>
        </dd>
        <dt>Goal</dt>
        <dd>
          {value.goal ?? '—'} {value.goal && (value.judgeEnabled ? '(judged)' : '(not judged)')}
        </dd>
        <dt>Webhook</dt>
        <dd>
          {value.webhook
            ? `${value.webhook.url} (${(value.webhook.events ?? []).join(', ')})`
            : '—'}
        </dd>
        <dt>E-mail</dt>
        <dd>{email?.enabled ? email.recipients.join(', ') : 'off'}</dd>
        <dt>Credits a month</dt>
        <dd>about {value.estimatedCreditsPerMonth}</dd>
      </dl>

      <h2>Checks</h2>
      <ErrorNote error={checks.error} />
      {checks.value?.length === 0 && <p>No check yet: run one now, or wait for the schedule.</p>}
      <ol class="timeline" aria-label="Checks, newest first">
        {checks.value?.map((check) => (
          <li key={check.id} class={`check-${check.status}`}>
            <a href={href('monitors', id, 'checks', check.id)}>
              <Time at={check.startedAt ?? check.createdAt} />
            </a>{' '}
            <span class={`badge check-status-${check.status}`}>{check.status}</span>{' '}
            <span class="muted">{check.trigger}</span> <Summary summary={check.summary} />
            {check.error && <span class="error-text"> {check.error}</span>}
          </li>
        ))}
      </ol>
    </section>
  );
}
