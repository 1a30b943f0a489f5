/**
 * Several providers' answers as one: reciprocal rank fusion (Cormack et al. 2009), which needs
 * only ranks, so scores that mean different things in each provider never get compared.
 */
import type { ProviderResult } from '../interfaces/search-provider.ts';

/** The fusion's damping constant; 60 is the value of the original paper. */
const k = 60;

/** A URL in the form two providers' copies of one page share. */
export function normaliseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.hash = '';
    parsed.hostname = parsed.hostname.replace(/^www\./, '');
    for (const name of [...parsed.searchParams.keys()])
      if (/^utm_/i.test(name)) parsed.searchParams.delete(name);
    const path = parsed.pathname.replace(/\/+$/, '') || '/';
    return `${parsed.hostname}${parsed.port ? `:${parsed.port}` : ''}${path}${parsed.search}`;
  } catch {
    return url;
  }
}

/** Fuses ranked lists, best first, one result per normalised URL (the best-ranked copy). */
export function fuseRanked(lists: readonly (readonly ProviderResult[])[]): ProviderResult[] {
  const fused = new Map<string, { result: ProviderResult; score: number; first: number }>();
  let order = 0;
  for (const list of lists) {
    list.forEach((result, rank) => {
      const key = normaliseUrl(result.url);
      const entry = fused.get(key);
      const score = 1 / (k + rank + 1);
      if (entry) entry.score += score;
      else fused.set(key, { result, score, first: order++ });
    });
  }
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || a.first - b.first)
    .map((entry) => entry.result);
}
