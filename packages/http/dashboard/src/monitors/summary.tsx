/** A check's page counts as a short line: "3 pages: 1 changed, 2 same". */
import type { CheckSummary } from '../types.ts';

const order = ['changed', 'new', 'removed', 'error', 'same'] as const;

export function Summary({ summary }: { summary: CheckSummary | null }) {
  if (!summary) return <span>no check yet</span>;
  const parts = order
    .filter((state) => summary[state] > 0)
    .map((state) => (
      <span key={state} class={`count state-${state}`}>
        {summary[state]} {state}
      </span>
    ));
  return (
    <span class="summary">
      {summary.totalPages} page{summary.totalPages === 1 ? '' : 's'}
      {parts.length > 0 && ': '}
      {parts}
    </span>
  );
}
