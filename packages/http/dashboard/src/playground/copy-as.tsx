/** "Copy as": the playground's last call as code (see code-snippets.ts), copied with one button. */
import { useState } from 'preact/hooks';
import { apiUrl, messageOf, storedKey } from '../api.ts';
import { Tabs } from '../ui.tsx';
import { snippets, type SnippetCall } from './code-snippets.ts';

/** The call as curl, JS SDK and Python SDK code, one at a time, with a button that copies it. */
export function CopyAs({ call }: { call: SnippetCall }) {
  const all = snippets(apiUrl(), call, storedKey() === undefined);
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
