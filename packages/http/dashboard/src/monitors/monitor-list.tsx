/** The team's monitors: status, schedule, next and last run, last check's summary. */
import { api } from '../api.ts';
import { href } from '../router.ts';
import type { Monitor } from '../types.ts';
import { ErrorNote, Loading, Time, useLoad } from '../ui.tsx';
import { Summary } from './summary.tsx';

export function MonitorList() {
  const monitors = useLoad(
    () => api<{ data: Monitor[] }>('GET', '/v2/monitor?limit=100').then((answer) => answer.data),
    [],
    10_000,
  );
  return (
    <section>
      <div class="heading">
        <h1>Monitors</h1>
        <a class="button" href={href('monitors', 'new')}>
          New monitor
        </a>
      </div>
      <ErrorNote error={monitors.error} />
      {!monitors.value && !monitors.error && <Loading />}
      {monitors.value?.length === 0 && (
        <p>No monitor yet. A monitor re-checks pages on a schedule and reports what changed.</p>
      )}
      {monitors.value && monitors.value.length > 0 && (
        <div class="scroll" tabIndex={0} role="region" aria-label="Table">
          <table class="list">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Schedule</th>
                <th scope="col">Next run</th>
                <th scope="col">Last run</th>
                <th scope="col">Last check</th>
              </tr>
            </thead>
            <tbody>
              {monitors.value.map((monitor) => (
                <tr key={monitor.id}>
                  <td>
                    <a href={href('monitors', monitor.id)}>{monitor.name}</a>
                  </td>
                  <td>
                    <span class={`badge status-${monitor.status}`}>{monitor.status}</span>
                  </td>
                  <td>
                    <code>{monitor.schedule.cron}</code> {monitor.schedule.timezone}
                  </td>
                  <td>
                    <Time at={monitor.status === 'paused' ? null : monitor.nextRunAt} />
                  </td>
                  <td>
                    <Time at={monitor.lastRunAt} />
                  </td>
                  <td>
                    <Summary summary={monitor.lastCheckSummary} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
