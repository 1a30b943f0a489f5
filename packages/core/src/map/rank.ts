/**
 * Orders map results by relevance to a search text. A small lexical score is enough here: the
 * words of a URL's path and host, and of its title and description when the page was read,
 * against the words of the query.
 */
import { words } from '../internal/words.ts';

/** One map result. */
export interface MapLink {
  url: string;
  title?: string;
  description?: string;
}

function score(link: MapLink, query: readonly string[]): number {
  const url = new URL(link.url);
  const urlWords = words(`${url.hostname} ${decodeURIComponent(url.pathname)}`);
  const textWords = words(`${link.title ?? ''} ${link.description ?? ''}`);
  let total = 0;
  for (const term of query) {
    // A whole word in the URL says most; a word starting with the term, or text on the page
    // that matches, a little less.
    if (urlWords.includes(term)) total += 4;
    else if (
      urlWords.some((word) => word.startsWith(term) || (term.startsWith(word) && word.length > 3))
    )
      total += 2;
    if (textWords.includes(term)) total += 2;
    else if (textWords.some((word) => word.startsWith(term))) total += 1;
  }
  return total;
}

/** Sorts links by relevance to `search`, best first; ties and non-matches keep their order. */
export function rankBySearch(links: readonly MapLink[], search: string): MapLink[] {
  const query = words(search);
  if (query.length === 0) return [...links];
  return links
    .map((link, index) => ({ link, index, score: score(link, query) }))
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .map((entry) => entry.link);
}
