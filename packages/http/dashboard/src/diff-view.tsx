/**
 * A changed page's diff, side by side (before | after) or inline, with the changed words of a
 * replaced line marked. Removed and added text are `<del>`/`<ins>` with a +/− sign, so the change
 * reads without colour too.
 */
import { useState } from 'preact/hooks';
import { changedWords, diffHunks, type DiffLine } from './diff-rows.ts';

const sign = { context: ' ', removed: '−', added: '+' } as const;

function Words({
  line,
  other,
  side,
}: {
  line: DiffLine;
  other?: DiffLine;
  side: 'left' | 'right';
}) {
  if (!other || line.kind === 'context') return <>{line.text}</>;
  return (
    <>
      {changedWords(line.text, other.text, side).map((part, index) =>
        part.changed ? (
          <mark key={index} class="word">
            {part.text}
          </mark>
        ) : (
          part.text
        ),
      )}
    </>
  );
}

function Cell({
  line,
  other,
  side,
}: {
  line?: DiffLine;
  other?: DiffLine;
  side: 'left' | 'right';
}) {
  if (!line) return <td class="diff-empty" colSpan={2} />;
  const Tag = line.kind === 'removed' ? 'del' : line.kind === 'added' ? 'ins' : 'span';
  return (
    <>
      <td class="diff-number">{line.number}</td>
      <td class={`diff-${line.kind}`}>
        <Tag>
          <span class="diff-sign" aria-hidden="true">
            {sign[line.kind]}
          </span>
          <Words line={line} {...(other ? { other } : {})} side={side} />
        </Tag>
      </td>
    </>
  );
}

/** The diff of one page; `text` is the unified diff a check stored. */
export function DiffView({ text }: { text: string }) {
  const [mode, setMode] = useState<'split' | 'inline'>('split');
  const hunks = diffHunks(text);
  if (hunks.length === 0)
    return (
      <pre class="raw" tabIndex={0}>
        {text}
      </pre>
    );
  return (
    <div class="diff">
      <div class="tabs" role="group" aria-label="Diff layout">
        <button aria-pressed={mode === 'split'} onClick={() => setMode('split')}>
          Side by side
        </button>
        <button aria-pressed={mode === 'inline'} onClick={() => setMode('inline')}>
          Inline
        </button>
      </div>
      {hunks.map((hunk) => (
        <div class="hunk" key={hunk.header}>
          <div class="hunk-header">{hunk.header}</div>
          {mode === 'split' ? (
            <table class="diff-split" data-testid="diff-split">
              <colgroup>
                <col class="number" />
                <col />
                <col class="number" />
                <col />
              </colgroup>
              <thead>
                <tr>
                  <th scope="col" colSpan={2}>
                    Before
                  </th>
                  <th scope="col" colSpan={2}>
                    After
                  </th>
                </tr>
              </thead>
              <tbody>
                {hunk.rows.map((row, index) => (
                  <tr key={index}>
                    <Cell
                      {...(row.left ? { line: row.left } : {})}
                      {...(row.right ? { other: row.right } : {})}
                      side="left"
                    />
                    <Cell
                      {...(row.right ? { line: row.right } : {})}
                      {...(row.left ? { other: row.left } : {})}
                      side="right"
                    />
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <table class="diff-inline" data-testid="diff-inline">
              <colgroup>
                <col class="number" />
                <col />
              </colgroup>
              <thead>
                <tr>
                  <th scope="col">Line</th>
                  <th scope="col">Text</th>
                </tr>
              </thead>
              <tbody>
                {hunk.lines.map((line, index) => (
                  <tr key={index}>
                    <Cell line={line} side={line.kind === 'removed' ? 'left' : 'right'} />
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      ))}
    </div>
  );
}
