/**
 * Map (the URLs of a site) and search (the web providers and the built-in index of everything
 * scraped) in the playground, each with its "copy as" code.
 */
import { useState } from 'preact/hooks';
import { api, messageOf } from '../api.ts';
import { ErrorNote } from '../ui.tsx';
import type { RequestOptions, SnippetCall } from './code-snippets.ts';
import { CopyAs } from './copy-as.tsx';

/** A link or result as the API lists it. */
interface Listed {
  url: string;
  title?: string;
  description?: string;
}

function ListedLinks({ items, label }: { items: Listed[]; label: string }) {
  if (items.length === 0) return <p>Nothing found.</p>;
  return (
    <ol class="links" aria-label={label} data-testid="listed">
      {items.map((item) => (
        <li key={item.url}>
          {/^https?:/i.test(item.url) ? (
            <a href={item.url} target="_blank" rel="noopener noreferrer nofollow">
              {item.title || item.url}
            </a>
          ) : (
            item.url
          )}
          {item.title && <div class="muted url">{item.url}</div>}
          {item.description && <div>{item.description}</div>}
        </li>
      ))}
    </ol>
  );
}

/** Runs a playground call; keeps its answer, its error and the call for "copy as". */
function useCall<T>() {
  const [answer, setAnswer] = useState<{ value: T; call: SnippetCall }>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const run = async (call: SnippetCall, field: 'url' | 'query') => {
    setError(undefined);
    setBusy(true);
    try {
      const value = await api<T>('POST', `/v2/${call.endpoint}`, {
        [field]: call.target,
        ...call.options,
      });
      setAnswer({ value, call });
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  };
  return { answer, error, busy, run };
}

export function MapPlayground() {
  const [url, setUrl] = useState('');
  const [search, setSearch] = useState('');
  const [limit, setLimit] = useState(100);
  const map = useCall<{ links: (Listed | string)[] }>();
  const submit = (event: Event) => {
    event.preventDefault();
    const options: RequestOptions = { limit, ...(search.trim() ? { search: search.trim() } : {}) };
    void map.run({ endpoint: 'map', target: url, options }, 'url');
  };
  return (
    <section>
      <form class="form" onSubmit={submit}>
        <label for="map-url">Site URL</label>
        <input
          id="map-url"
          type="url"
          required
          value={url}
          onInput={(event) => setUrl(event.currentTarget.value)}
        />
        <label for="map-search">Rank by words (optional)</label>
        <input
          id="map-search"
          value={search}
          onInput={(event) => setSearch(event.currentTarget.value)}
        />
        <label for="map-limit">Most URLs</label>
        <input
          id="map-limit"
          type="number"
          min={1}
          value={limit}
          onInput={(event) => setLimit(Number(event.currentTarget.value))}
        />
        <div class="actions">
          <button type="submit" disabled={map.busy}>
            Map
          </button>
        </div>
        <ErrorNote error={map.error} />
      </form>
      {map.answer && (
        <>
          <h2>{map.answer.value.links.length} URLs</h2>
          <ListedLinks
            label="URLs of the site"
            items={map.answer.value.links.map((link) =>
              typeof link === 'string' ? { url: link } : link,
            )}
          />
          <CopyAs call={map.answer.call} />
        </>
      )}
    </section>
  );
}

export function SearchPlayground() {
  const [query, setQuery] = useState('');
  const [source, setSource] = useState('default');
  const [limit, setLimit] = useState(5);
  const search = useCall<{ data: { web?: Listed[] }; warning?: string }>();
  const submit = (event: Event) => {
    event.preventDefault();
    const options: RequestOptions = {
      limit,
      ...(source === 'local' ? { sources: ['local'] } : {}),
    };
    void search.run({ endpoint: 'search', target: query, options }, 'query');
  };
  return (
    <section>
      <form class="form" onSubmit={submit}>
        <label for="search-query">Query</label>
        <input
          id="search-query"
          required
          value={query}
          onInput={(event) => setQuery(event.currentTarget.value)}
        />
        <label for="search-source">Where</label>
        <select
          id="search-source"
          value={source}
          onChange={(event) => setSource(event.currentTarget.value)}
        >
          <option value="default">
            The web (or the built-in index when no web provider is set)
          </option>
          <option value="local">The built-in index of pages scraped here</option>
        </select>
        <label for="search-limit">Most results</label>
        <input
          id="search-limit"
          type="number"
          min={1}
          max={100}
          value={limit}
          onInput={(event) => setLimit(Number(event.currentTarget.value))}
        />
        <div class="actions">
          <button type="submit" disabled={search.busy}>
            Search
          </button>
        </div>
        <ErrorNote error={search.error} />
      </form>
      {search.answer && (
        <>
          <h2>Results</h2>
          {search.answer.value.warning && <p class="warning">{search.answer.value.warning}</p>}
          <ListedLinks label="Search results" items={search.answer.value.data.web ?? []} />
          <CopyAs call={search.answer.call} />
        </>
      )}
    </section>
  );
}
