/**
 * The playground: scrape one URL with the options the API takes, see every form of the result
 * (rendered markdown, raw markdown, HTML, links, the whole JSON answer, the screenshot), and copy
 * the same request as curl, JS SDK or Python SDK code.
 */
import { useState } from 'preact/hooks';
import { api, apiUrl, messageOf, storedKey } from '../api.ts';
import type { ScrapedDocument } from '../types.ts';
import { ErrorNote, Markdown, Tabs } from '../ui.tsx';
import { snippets, type RequestOptions } from './code-snippets.ts';
import {
  ScrapeOptionsFields,
  optionsOf,
  defaultDraft,
  type OptionsDraft,
} from './scrape-options.tsx';

const views = ['Rendered', 'Markdown', 'HTML', 'Links', 'JSON', 'Screenshot'] as const;
type View = (typeof views)[number];

function Result({ document, view }: { document: ScrapedDocument; view: View }) {
  switch (view) {
    case 'Rendered':
      return <Markdown text={document.markdown ?? ''} />;
    case 'Markdown':
      return (
        <pre class="raw" tabIndex={0} data-testid="raw-markdown">
          {document.markdown ?? ''}
        </pre>
      );
    case 'HTML':
      // Shown as text: scraped HTML is never put into the page as markup.
      return (
        <pre class="raw" tabIndex={0}>
          {document.html ?? document.rawHtml ?? 'Ask for the html format.'}
        </pre>
      );
    case 'Links':
      return (
        <ul class="links">
          {(document.links ?? []).map((link) => (
            <li key={link}>
              {/^https?:/i.test(link) ? (
                <a href={link} target="_blank" rel="noopener noreferrer nofollow">
                  {link}
                </a>
              ) : (
                link
              )}
            </li>
          ))}
        </ul>
      );
    case 'JSON':
      return (
        <pre class="raw" tabIndex={0}>
          {JSON.stringify(document, null, 2)}
        </pre>
      );
    case 'Screenshot':
      return document.screenshot ? (
        <img
          class="screenshot"
          src={document.screenshot}
          alt={`Screenshot of ${document.metadata?.sourceURL ?? 'the page'}`}
        />
      ) : (
        <p>Ask for the screenshot format.</p>
      );
  }
}

function CopyAs({ url, options }: { url: string; options: RequestOptions }) {
  const all = snippets(apiUrl(), url, options, storedKey() === undefined);
  const [language, setLanguage] = useState<keyof typeof all>('curl');
  const [copied, setCopied] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(all[language]);
      setCopied(`${language} copied`);
    } catch (error) {
      setCopied(`Could not copy: ${messageOf(error)}`);
    }
  };
  return (
    <section aria-labelledby="copy-as">
      <h2 id="copy-as">Copy as</h2>
      <Tabs
        label="Language"
        tabs={Object.keys(all)}
        selected={language}
        onSelect={(tab) => setLanguage(tab as keyof typeof all)}
      />
      <pre class="raw code" tabIndex={0} data-testid="snippet">
        {all[language]}
      </pre>
      <button type="button" onClick={() => void copy()}>
        Copy {language}
      </button>{' '}
      <span role="status">{copied}</span>
    </section>
  );
}

export function PlaygroundView() {
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
      <h1>Playground</h1>
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
          <CopyAs url={result.url} options={result.options} />
        </section>
      )}
    </section>
  );
}
