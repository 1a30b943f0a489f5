/** Routes of the monitors section: list, new, one monitor, its edit form, one check. */
import { CheckView } from './check-view.tsx';
import { MonitorDetail } from './monitor-detail.tsx';
import { MonitorForm } from './monitor-form.tsx';
import { MonitorList } from './monitor-list.tsx';

export function MonitorsView({ route }: { route: string[] }) {
  const [id, part, checkId] = route;
  if (id === undefined) return <MonitorList />;
  if (id === 'new') return <MonitorForm />;
  if (part === 'edit') return <MonitorForm id={id} />;
  if (part === 'checks' && checkId) return <CheckView monitorId={id} checkId={checkId} />;
  return <MonitorDetail id={id} />;
}
