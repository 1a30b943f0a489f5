/** A scraped or parsed document in each of its forms; scraped HTML is shown as text, never run. */
import type { ScrapedDocument } from '../types.ts';
import { Markdown } from '../ui.tsx';

export const views = ['Rendered', 'Markdown', 'HTML', 'Links', 'JSON', 'Screenshot'] as const;
export type View = (typeof views)[number];

/** One form of a scraped or parsed document. */
export function Result({ document, view }: { document: ScrapedDocument; view: View }) {
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
