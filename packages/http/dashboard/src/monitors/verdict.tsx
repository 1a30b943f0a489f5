/** The judge's verdict on a changed page: meaningful or not, how sure, and why. */
import type { Judgment } from '../types.ts';

export function Verdict({ judgment }: { judgment: Judgment }) {
  return (
    <div class="verdict" data-testid="verdict">
      <p>
        <strong>Verdict: {judgment.meaningful ? 'meaningful change' : 'not meaningful'}</strong>{' '}
        <span class="muted">
          ({judgment.confidence} confidence
          {judgment.method
            ? `, judged by ${judgment.method === 'llm' ? 'the model' : 'keywords'}`
            : ''}
          )
        </span>
      </p>
      <p data-testid="verdict-reason">{judgment.reason}</p>
      {judgment.meaningfulChanges.length > 0 && (
        <ul>
          {judgment.meaningfulChanges.map((change, index) => (
            <li key={index}>
              {change.type}: {change.before !== null && <del>{change.before}</del>}{' '}
              {change.after !== null && <ins>{change.after}</ins>} — {change.reason}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
