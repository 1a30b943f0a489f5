/**
 * One crawl, live: the SDK's watcher WebSocket streams its documents as they are scraped, and
 * the status answer (polled while it runs) gives its counts. Cancel, errors, documents to read,
 * and the whole result as JSON lines or a zip of markdown files.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, messageOf, openWatcher } from '../api.ts';
import { href } from '../router.ts';
import type { CrawlStatus, ScrapedDocument } from '../types.ts';
import { ErrorNote, useLoad } from '../ui.tsx';
import { DocumentView } from './document-view.tsx';
import { downloadJsonLines, downloadMarkdownZip } from './downloads.ts';

type Counts = Omit<CrawlStatus, 'data' | 'next'>;
type WatchMessage =
  | { type: 'catchup'; data: CrawlStatus }
  | { type: 'document'; data: ScrapedDocument }
  | { type: 'done'; data: Counts }
  | { type: 'error'; error: string };

const running = (status: string | undefined) => status === undefined || status === 'scraping';

/** The documents of the crawl as they arrive, and its final status when the watcher says so. */
function useWatcher(id: string) {
  const [documents, setDocuments] = useState<ScrapedDocument[]>([]);
  const [final, setFinal] = useState<Counts>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    setDocuments([]);
    setFinal(undefined);
    const socket = openWatcher(`/v2/crawl/${id}`);
    socket.onmessage = (event: MessageEvent<string>) => {
      const message = JSON.parse(event.data) as WatchMessage;
      if (message.type === 'catchup' && message.data.data?.length) setDocuments(message.data.data);
      else if (message.type === 'document') setDocuments((known) => [...known, message.data]);
      else if (message.type === 'done') setFinal(message.data);
      else if (message.type === 'error') setError(message.error);
    };
    socket.onclose = (event) => {
      if (event.code === 1008) setError(event.reason || 'Crawl not found');
    };
    return () => socket.close();
  }, [id]);
  return { documents, final, error };
}

export function CrawlView({ id }: { id: string }) {
  const watcher = useWatcher(id);
  const status = useLoad(
    () => api<CrawlStatus>('GET', `/v2/crawl/${id}?limit=1`),
    [id, watcher.final],
    (answer) => (running(answer.status) ? 1000 : 0),
  );
  const errors = useLoad(
    () => api<{ errors: { url?: string; error?: string }[] }>('GET', `/v2/crawl/${id}/errors`),
    [id, watcher.final],
  );
  const [selected, setSelected] = useState<number>();
  const [actionError, setActionError] = useState<string>();
  const counts = watcher.final ?? status.value;
  const state = counts?.status;
  const done = Math.max(counts?.completed ?? 0, watcher.documents.length);
  const total = Math.max(counts?.total ?? 0, done);
  const cancel = async () => {
    try {
      await api('DELETE', `/v2/crawl/${id}`);
      status.reload();
    } catch (failure) {
      setActionError(messageOf(failure));
    }
  };
  const shown = selected === undefined ? undefined : watcher.documents[selected];
  return (
    <section>
      <p class="crumbs">
        <a href={href('jobs')}>Jobs</a> ›
      </p>
      <h1>Crawl</h1>
      <p>
        <code>{id}</code>
      </p>
      <p>
        <span class={`badge job-${state ?? 'unknown'}`} data-testid="crawl-status">
          {state ?? 'connecting'}
        </span>{' '}
        <span data-testid="crawl-count">
          {done} of {total} pages
        </span>
        {counts && ` · ${counts.creditsUsed} credits`}
      </p>
      <label for="crawl-progress">Progress</label>
      <progress id="crawl-progress" max={total || 1} value={done} />
      <div class="actions">
        {running(state) && (
          <button type="button" class="danger" onClick={() => void cancel()}>
            Cancel crawl
          </button>
        )}
        <button
          type="button"
          class="secondary"
          disabled={watcher.documents.length === 0}
          onClick={() => downloadJsonLines(`crawl-${id}`, watcher.documents)}
        >
          Download JSON lines
        </button>
        <button
          type="button"
          class="secondary"
          disabled={watcher.documents.length === 0}
          onClick={() => downloadMarkdownZip(`crawl-${id}`, watcher.documents)}
        >
          Download markdown (zip)
        </button>
      </div>
      <ErrorNote error={watcher.error ?? status.error ?? actionError} />
      {errors.value && errors.value.errors.length > 0 && (
        <>
          <h2>Errors</h2>
          <ul class="plain">
            {errors.value.errors.map((failure, index) => (
              <li key={index} class="error-text">
                {failure.url}: {failure.error}
              </li>
            ))}
          </ul>
        </>
      )}
      <h2>Documents</h2>
      <div class="split">
        <ol class="documents">
          {watcher.documents.map((scraped, index) => (
            <li key={index}>
              <button
                type="button"
                class="link"
                aria-pressed={selected === index}
                onClick={() => setSelected(index)}
              >
                {scraped.metadata?.title || scraped.metadata?.sourceURL || `Document ${index + 1}`}
              </button>
              <div class="muted url">{scraped.metadata?.sourceURL ?? scraped.metadata?.url}</div>
            </li>
          ))}
        </ol>
        {shown && <DocumentView document={shown} />}
      </div>
    </section>
  );
}
