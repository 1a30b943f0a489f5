/**
 * The Trawl dashboard: sign in (or none on a keyless server), then monitors, the playground,
 * jobs and usage, each a view of the /v2 API. The whole app is this bundle and its stylesheet,
 * served by `trawl serve` at `/`.
 */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, messageOf, storedKey, storeKey } from './api.ts';
import { JobsView } from './jobs/jobs-view.tsx';
import { MonitorsView } from './monitors/monitors-view.tsx';
import { PlaygroundView } from './playground/playground-view.tsx';
import { href, useRoute } from './router.ts';
import { SignIn } from './sign-in.tsx';
import { UsageView } from './usage-view.tsx';

type Session =
  { state: 'checking' } | { state: 'out'; error?: string } | { state: 'in'; keyless: boolean };

/** Whether `key` (or no key) opens this server's API. */
async function opens(key: string | undefined): Promise<boolean> {
  try {
    await api('GET', '/v2/team/credit-usage', undefined, key);
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return false;
    throw error;
  }
}

const sections = [
  ['monitors', 'Monitors'],
  ['playground', 'Playground'],
  ['jobs', 'Jobs'],
  ['usage', 'Usage'],
] as const;

function App() {
  const [session, setSession] = useState<Session>({ state: 'checking' });
  const route = useRoute();
  useEffect(() => {
    // A key this tab signed in with, else no key at all: a keyless server needs none.
    const key = storedKey();
    opens(key).then(
      (open) => {
        if (open) return setSession({ state: 'in', keyless: key === undefined });
        storeKey(undefined);
        setSession({ state: 'out' });
      },
      (error: unknown) => setSession({ state: 'out', error: messageOf(error) }),
    );
  }, []);

  const signIn = async (key: string) => {
    if (!(await opens(key))) throw new Error('This key is not a key of this server');
    storeKey(key);
    setSession({ state: 'in', keyless: false });
  };
  const signOut = () => {
    storeKey(undefined);
    setSession({ state: 'out' });
  };

  const section = route[0] ?? 'monitors';
  useEffect(() => {
    const name = sections.find(([id]) => id === section)?.[1] ?? 'Dashboard';
    document.title = `${name} · Trawl`;
  }, [section]);

  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Trawl</span>
        {session.state === 'in' && (
          <nav aria-label="Sections">
            {sections.map(([id, name]) => (
              <a key={id} href={href(id)} aria-current={section === id ? 'page' : undefined}>
                {name}
              </a>
            ))}
            {session.keyless ? (
              <span
                class="keyless"
                title="This server has no API keys and listens on loopback only"
              >
                keyless
              </span>
            ) : (
              <button type="button" class="link" onClick={signOut}>
                Sign out
              </button>
            )}
          </nav>
        )}
      </header>
      <main id="main" tabIndex={-1}>
        {session.state === 'checking' && <p aria-live="polite">Connecting…</p>}
        {session.state === 'out' && <SignIn onSignIn={signIn} error={session.error} />}
        {session.state === 'in' && section === 'monitors' && (
          <MonitorsView route={route.slice(1)} />
        )}
        {session.state === 'in' && section === 'playground' && (
          <PlaygroundView route={route.slice(1)} />
        )}
        {session.state === 'in' && section === 'jobs' && <JobsView route={route.slice(1)} />}
        {session.state === 'in' && section === 'usage' && <UsageView />}
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
