/** Small pieces every view uses: loading an API answer, errors, times, sanitised markdown. */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { messageOf } from './api.ts';
import { renderMarkdown } from './markdown.ts';

/** An API answer being loaded: its value, its error, and a way to load it again. */
export interface Loaded<T> {
  value: T | undefined;
  error: string | undefined;
  reload: () => void;
}

/**
 * Loads `load()` now and whenever `deps` change. `everyMs` loads it again that long after each
 * answer while the view is shown; as a function it decides from the answer (poll a running job
 * fast, a finished one not at all: 0).
 */
export function useLoad<T>(
  load: () => Promise<T>,
  deps: unknown[],
  everyMs?: number | ((value: T) => number),
): Loaded<T> {
  const [value, setValue] = useState<T>();
  const [error, setError] = useState<string>();
  const [tick, setTick] = useState(0);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const again = (ms: number) => {
      if (live && ms > 0) timer = setTimeout(reload, ms);
    };
    load().then(
      (answer) => {
        if (!live) return;
        setValue(answer);
        setError(undefined);
        again(typeof everyMs === 'function' ? everyMs(answer) : (everyMs ?? 0));
      },
      (failure: unknown) => {
        if (!live) return;
        setError(messageOf(failure));
        again(typeof everyMs === 'function' ? 5000 : (everyMs ?? 0));
      },
    );
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [...deps, tick]);
  return { value, error, reload };
}

/** An error line, announced to screen readers. */
export function ErrorNote({ error }: { error: string | undefined }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {error}
    </p>
  );
}

/** "Loading…" until there is something to show. */
export function Loading() {
  return <p aria-live="polite">Loading…</p>;
}

/** A time as the reader's local date and time, with the exact ISO value on hover. */
export function Time({ at }: { at: string | null | undefined }) {
  if (!at) return <span>—</span>;
  return (
    <time dateTime={at} title={at}>
      {new Date(at).toLocaleString()}
    </time>
  );
}

/** Scraped markdown, rendered sanitised (see markdown.ts). */
export function Markdown({ text }: { text: string }) {
  return <div class="markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(text) }} />;
}

/** Tabs over panels, keyboard-usable as buttons. */
export function Tabs({
  label,
  tabs,
  selected,
  onSelect,
}: {
  label: string;
  tabs: string[];
  selected: string;
  onSelect: (tab: string) => void;
}) {
  return (
    <div class="tabs" role="group" aria-label={label}>
      {tabs.map((tab) => (
        <button
          key={tab}
          type="button"
          aria-pressed={tab === selected}
          onClick={() => onSelect(tab)}
        >
          {tab}
        </button>
      ))}
    </div>
  );
}
