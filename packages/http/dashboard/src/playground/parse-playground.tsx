/**
 * Parse in the playground: upload a file (PDF, DOCX, XLSX, HTML…) as `POST /v2/parse` takes it,
 * multipart with the file and the options as JSON, and see the document it becomes.
 */
import { useState } from 'preact/hooks';
import { ApiError, messageOf, storedKey } from '../api.ts';
import type { ScrapedDocument } from '../types.ts';
import { ErrorNote, Tabs } from '../ui.tsx';
import { Result, views, type View } from './result-view.tsx';

async function parseFile(file: File, onlyMainContent: boolean): Promise<ScrapedDocument> {
  const form = new FormData();
  form.append('file', file, file.name);
  form.append('options', JSON.stringify({ formats: ['markdown', 'html'], onlyMainContent }));
  const key = storedKey();
  const response = await fetch('/v2/parse', {
    method: 'POST',
    body: form,
    credentials: 'omit',
    ...(key ? { headers: { authorization: `Bearer ${key}` } } : {}),
  });
  const answer = (await response.json()) as { data?: ScrapedDocument; error?: string };
  if (!response.ok || !answer.data)
    throw new ApiError(response.status, answer.error ?? `HTTP ${response.status}`);
  return answer.data;
}

export function ParsePlayground() {
  const [file, setFile] = useState<File>();
  const [onlyMainContent, setOnlyMainContent] = useState(true);
  const [document, setDocument] = useState<ScrapedDocument>();
  const [view, setView] = useState<View>('Rendered');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!file) return;
    setError(undefined);
    setBusy(true);
    try {
      setDocument(await parseFile(file, onlyMainContent));
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section>
      <form class="form" onSubmit={(event) => void submit(event)}>
        <label for="parse-file">File (PDF, DOCX, XLSX, PPTX, HTML, CSV, text…; up to 50 MB)</label>
        <input
          id="parse-file"
          type="file"
          required
          onChange={(event) => setFile(event.currentTarget.files?.[0])}
        />
        <label class="check">
          <input
            type="checkbox"
            checked={onlyMainContent}
            onChange={(event) => setOnlyMainContent(event.currentTarget.checked)}
          />
          Main content only
        </label>
        <div class="actions">
          <button type="submit" disabled={busy || !file}>
            Parse
          </button>
        </div>
        <ErrorNote error={error} />
      </form>
      {document && (
        <>
          <h2>Document</h2>
          <Tabs
            label="Document as"
            tabs={views.filter((name) => name !== 'Screenshot' && name !== 'Links')}
            selected={view}
            onSelect={(tab) => setView(tab as View)}
          />
          <div class="panel">
            <Result document={document} view={view} />
          </div>
        </>
      )}
    </section>
  );
}
