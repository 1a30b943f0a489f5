/**
 * Hash routes (`#/monitors/ID`): the server serves one page at `/`, so a reload or a shared link
 * lands on the right view without the server knowing the app's paths.
 */
import { useEffect, useState } from 'preact/hooks';

/** The current route's path segments (`#/monitors/abc` → `['monitors', 'abc']`). */
export function useRoute(): string[] {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const onChange = () => setHash(location.hash);
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
}

/** The href of a route. */
export const href = (...segments: string[]): string =>
  `#/${segments.map(encodeURIComponent).join('/')}`;

/** Goes to a route. */
export function go(...segments: string[]): void {
  location.hash = href(...segments);
}
