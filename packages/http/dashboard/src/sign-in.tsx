/** Sign in with an API key; the key stays in this tab's session only (see api.ts). */
import { useState } from 'preact/hooks';
import { messageOf } from './api.ts';
import { ErrorNote } from './ui.tsx';

export function SignIn({
  onSignIn,
  error,
}: {
  onSignIn: (key: string) => Promise<void>;
  error?: string | undefined;
}) {
  const [key, setKey] = useState('');
  const [failure, setFailure] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    try {
      await onSignIn(key.trim());
    } catch (caught) {
      setFailure(messageOf(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="sign-in">
      <h1>Sign in</h1>
      <p>
        This server has API keys. Give one of them: it is kept in this browser tab only, and sent
        with each call to the API.
      </p>
      <form onSubmit={(event) => void submit(event)}>
        <label for="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autoComplete="off"
          required
          value={key}
          onInput={(event) => setKey(event.currentTarget.value)}
        />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
      <ErrorNote error={failure ?? error} />
    </section>
  );
}
