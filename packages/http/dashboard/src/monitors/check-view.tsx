/**
 * One check of a monitor: its pages by state, each changed page's diff (side by side or inline)
 * with the judge's verdict, and where the check's events went (webhook deliveries, e-mail).
 */
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { DiffView } from '../diff-view.tsx';
import { href } from '../router.ts';
import type { CheckDetail, CheckPage, WebhookDelivery } from '../types.ts';
import { ErrorNote, Loading, Tabs, Time, useLoad } from '../ui.tsx';
import { Summary } from './summary.tsx';
import { Verdict } from './verdict.tsx';

const states = ['all', 'changed', 'new', 'removed', 'error', 'same'] as const;
type State = (typeof states)[number];

function PageItem({ page }: { page: CheckPage }) {
  const interesting = page.status === 'changed' || page.status === 'new';
  return (
    <li class={`page page-${page.status}`} data-testid="check-page">
      <details open={page.status === 'changed'}>
        <summary>
          <span class={`badge state-${page.status}`}>{page.status}</span>{' '}
          <span class="url">
            {page.metadata?.title ? `${page.metadata.title} — ` : ''}
            {page.url}
          </span>
          {page.judgment && (
            <span class={`badge verdict-${page.judgment.meaningful ? 'yes' : 'no'}`}>
              {page.judgment.meaningful ? 'meaningful' : 'not meaningful'}
            </span>
          )}
        </summary>
        {page.error && <p class="error-text">{page.error}</p>}
        {page.statusCode !== null && <p class="muted">HTTP {page.statusCode}</p>}
        {page.judgment && <Verdict judgment={page.judgment} />}
        {interesting && page.diff?.text && <DiffView text={page.diff.text} />}
        {/* A JSON monitor's field changes; a text diff's own parsed form says nothing more. */}
        {page.diff?.json !== undefined && !page.diff.text && (
          <pre class="raw" tabIndex={0}>
            {JSON.stringify(page.diff.json, null, 2)}
          </pre>
        )}
      </details>
    </li>
  );
}

export function CheckView({ monitorId, checkId }: { monitorId: string; checkId: string }) {
  const [state, setState] = useState<State>('all');
  const [skip, setSkip] = useState(0);
  const query = new URLSearchParams({ limit: '50', skip: String(skip) });
  if (state !== 'all') query.set('status', state);
  const check = useLoad(
    () =>
      api<{ data: CheckDetail }>(
        'GET',
        `/v2/monitor/${monitorId}/checks/${checkId}?${query.toString()}`,
      ).then((answer) => answer.data),
    [monitorId, checkId, state, skip],
    (detail) => (detail.status === 'queued' || detail.status === 'running' ? 1000 : 0),
  );
  const deliveries = useLoad(
    () =>
      api<{ deliveries: WebhookDelivery[] }>(
        'GET',
        `/v2/monitor/${monitorId}/checks/${checkId}/webhooks`,
      ).then((answer) => answer.deliveries),
    [monitorId, checkId, check.value?.status],
  );
  const detail = check.value;
  if (!detail) return check.error ? <ErrorNote error={check.error} /> : <Loading />;
  const count = (name: State) =>
    name === 'all' ? detail.summary.totalPages : detail.summary[name];
  return (
    <section>
      <p class="crumbs">
        <a href={href('monitors')}>Monitors</a> › <a href={href('monitors', monitorId)}>Monitor</a>{' '}
        ›
      </p>
      <h1>
        Check of <Time at={detail.startedAt ?? detail.createdAt} />
      </h1>
      <p>
        <span class={`badge check-status-${detail.status}`}>{detail.status}</span> {detail.trigger}{' '}
        · <Summary summary={detail.summary} />
        {detail.actualCredits !== null && ` · ${detail.actualCredits} credits`}
      </p>
      {detail.warning && <p class="warning">{detail.warning}</p>}
      <ErrorNote error={detail.error ?? undefined} />
      <Tabs
        label="Pages by state"
        tabs={states.map((name) => `${name} (${count(name)})`)}
        selected={`${state} (${count(state)})`}
        onSelect={(tab) => {
          setState(tab.split(' ')[0] as State);
          setSkip(0);
        }}
      />
      <ul class="pages">
        {detail.pages.map((page) => (
          <PageItem key={page.id} page={page} />
        ))}
      </ul>
      {detail.pages.length === 0 && <p>No page in this state.</p>}
      <div class="actions">
        {skip > 0 && (
          <button type="button" class="secondary" onClick={() => setSkip(Math.max(0, skip - 50))}>
            Previous pages
          </button>
        )}
        {detail.next && (
          <button type="button" class="secondary" onClick={() => setSkip(skip + 50)}>
            More pages
          </button>
        )}
      </div>

      <h2>Notifications</h2>
      <ErrorNote error={deliveries.error} />
      {deliveries.value?.length === 0 && <p>No webhook delivery for this check.</p>}
      {deliveries.value && deliveries.value.length > 0 && (
        <div class="scroll" tabIndex={0} role="region" aria-label="Table">
          <table class="list">
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Delivered</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last answer</th>
                <th scope="col">When</th>
              </tr>
            </thead>
            <tbody>
              {deliveries.value.map((delivery, index) => (
                <tr key={index}>
                  <td>{delivery.event}</td>
                  <td>{delivery.delivered ? 'yes' : 'no'}</td>
                  <td>{delivery.attempts}</td>
                  <td>{delivery.error ?? (delivery.status ? `HTTP ${delivery.status}` : '—')}</td>
                  <td>
                    <Time at={delivery.at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {Object.keys(detail.notificationStatus).length > 0 && (
        <pre class="raw" tabIndex={0} aria-label="Notification status">
          {JSON.stringify(detail.notificationStatus, null, 2)}
        </pre>
      )}
    </section>
  );
}
