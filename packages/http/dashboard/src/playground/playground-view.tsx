/**
 * The playground: scrape one URL with the options the API takes, see every form of the result
 * (rendered markdown, raw markdown, HTML, links, the whole JSON answer, the screenshot), and copy
 * the same request as curl, JS SDK or Python SDK code.
 */
import { useState } from 'preact/hooks';
import { api, messageOf } from '../api.ts';
import type { ScrapedDocument } from '../types.ts';
import { href } from '../router.ts';
import { ErrorNote, Tabs } from '../ui.tsx';
import { MapPlayground, SearchPlayground } from './map-search.tsx';
import { ParsePlayground } from './parse-playground.tsx';
import type { RequestOptions } from './code-snippets.ts';
import { CopyAs } from './copy-as.tsx';
import { Result, views, type View } from './result-view.tsx';
import {
  ScrapeOptionsFields,
  optionsOf,
  defaultDraft,
  type OptionsDraft,
} from './scrape-options.tsx';

/** Scrape one URL with the scrape options. */
function ScrapePlayground() {
  const [url, setUrl] = useState('');
  const [draft, setDraft] = useState<OptionsDraft>(defaultDraft);
  const [result, setResult] = useState<{
    document: ScrapedDocument;
    options: RequestOptions;
    url: string;
  }>();
  const [view, setView] = useState<View>('Rendered');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setBusy(true);
    try {
      const options = optionsOf(draft);
      const answer = await api<{ data: ScrapedDocument }>('POST', '/v2/scrape', {
        url,
        ...options,
      });
      setResult({ document: answer.data, options, url });
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section>
      <form class="form" onSubmit={(event) => void submit(event)}>
        <label for="playground-url">URL</label>
        <input
          id="playground-url"
          type="url"
          required
          placeholder="https://example.com"
          value={url}
          onInput={(event) => setUrl(event.currentTarget.value)}
        />
        <ScrapeOptionsFields draft={draft} onChange={setDraft} />
        <div class="actions">
          <button type="submit" disabled={busy}>
            {busy ? 'Scraping…' : 'Scrape'}
          </button>
        </div>
        <ErrorNote error={error} />
      </form>
      {result && (
        <section aria-labelledby="result" class="result">
          <h2 id="result">Result</h2>
          <Tabs
            label="Result as"
            tabs={[...views]}
            selected={view}
            onSelect={(tab) => setView(tab as View)}
          />
          <div class="panel" data-testid="result-panel">
            <Result document={result.document} view={view} />
          </div>
          <CopyAs call={{ endpoint: 'scrape', target: result.url, options: result.options }} />
        </section>
      )}
    </section>
  );
}

const modes = [
  ['scrape', 'Scrape'],
  ['map', 'Map'],
  ['search', 'Search'],
  ['parse', 'Parse'],
] as const;

/** The playground: one mode per endpoint, each its own route (`#/playground/map`). */
export function PlaygroundView({ route }: { route: string[] }) {
  const mode = route[0] ?? 'scrape';
  return (
    <section>
      <h1>Playground</h1>
      <nav class="tabs" aria-label="Endpoint">
        {modes.map(([id, name]) => (
          <a
            key={id}
            class="button secondary"
            href={href('playground', id)}
            aria-current={mode === id ? 'page' : undefined}
          >
            {name}
          </a>
        ))}
      </nav>
      {mode === 'scrape' && <ScrapePlayground />}
      {mode === 'map' && <MapPlayground />}
      {mode === 'search' && <SearchPlayground />}
      {mode === 'parse' && <ParsePlayground />}
    </section>
  );
}
