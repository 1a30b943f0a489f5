/** The targets of a monitor form: pages to watch, a site to crawl, or search queries. */
import type { Target } from '../types.ts';

/** A target as the form edits it; `urls` holds the URLs, the crawl's start URL, or queries. */
export interface TargetDraft {
  type: Target['type'];
  urls: string;
  limit: number;
  /** The target as the server has it, so what the form does not show is kept. */
  original?: Target;
}

const labels = {
  scrape: 'Pages to watch (one URL per line)',
  crawl: 'Site to crawl (start URL)',
  search: 'Search queries (one per line)',
} as const;

export function TargetFields({
  targets,
  onChange,
}: {
  targets: TargetDraft[];
  onChange: (targets: TargetDraft[]) => void;
}) {
  const update = (index: number, change: Partial<TargetDraft>) =>
    onChange(targets.map((target, at) => (at === index ? { ...target, ...change } : target)));
  return (
    <fieldset>
      <legend>Targets</legend>
      {targets.map((target, index) => (
        <div class="target" key={index}>
          <label for={`target-type-${index}`}>Target {index + 1}</label>
          <select
            id={`target-type-${index}`}
            value={target.type}
            onChange={(event) =>
              update(index, { type: event.currentTarget.value as TargetDraft['type'] })
            }
          >
            <option value="scrape">Pages</option>
            <option value="crawl">Whole site (crawl)</option>
            <option value="search">Search results</option>
          </select>
          <label for={`target-urls-${index}`}>{labels[target.type]}</label>
          {target.type === 'crawl' ? (
            <input
              id={`target-urls-${index}`}
              type="url"
              required
              value={target.urls}
              onInput={(event) => update(index, { urls: event.currentTarget.value })}
            />
          ) : (
            <textarea
              id={`target-urls-${index}`}
              required
              rows={3}
              value={target.urls}
              onInput={(event) => update(index, { urls: event.currentTarget.value })}
            />
          )}
          {target.type === 'crawl' && (
            <>
              <label for={`target-limit-${index}`}>Most pages per check</label>
              <input
                id={`target-limit-${index}`}
                type="number"
                min={1}
                value={target.limit}
                onInput={(event) => update(index, { limit: Number(event.currentTarget.value) })}
              />
            </>
          )}
          {targets.length > 1 && (
            <button
              type="button"
              class="secondary"
              onClick={() => onChange(targets.filter((_, at) => at !== index))}
            >
              Remove target {index + 1}
            </button>
          )}
        </div>
      ))}
      <button
        type="button"
        class="secondary"
        onClick={() => onChange([...targets, { type: 'scrape', urls: '', limit: 50 }])}
      >
        Add a target
      </button>
    </fieldset>
  );
}
