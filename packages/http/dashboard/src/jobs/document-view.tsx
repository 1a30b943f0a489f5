/** One document of a crawl: rendered markdown (sanitised), raw markdown, metadata. */
import { useState } from 'preact/hooks';
import type { ScrapedDocument } from '../types.ts';
import { Markdown, Tabs } from '../ui.tsx';

const views = ['Rendered', 'Markdown', 'Metadata'] as const;

export function DocumentView({ document }: { document: ScrapedDocument }) {
  const [view, setView] = useState<string>('Rendered');
  return (
    <article
      class="document"
      aria-label={document.metadata?.title ?? 'Document'}
      data-testid="document"
    >
      <h3>{document.metadata?.title ?? document.metadata?.sourceURL}</h3>
      <Tabs label="Document as" tabs={[...views]} selected={view} onSelect={setView} />
      <div class="panel">
        {view === 'Rendered' && <Markdown text={document.markdown ?? ''} />}
        {view === 'Markdown' && (
          <pre class="raw" tabIndex={0}>
            {document.markdown ?? ''}
          </pre>
        )}
        {view === 'Metadata' && (
          <pre class="raw" tabIndex={0}>
            {JSON.stringify(document.metadata ?? {}, null, 2)}
          </pre>
        )}
      </div>
    </article>
  );
}
