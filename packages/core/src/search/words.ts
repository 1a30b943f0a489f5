/**
 * A user's query as plain words. Backends quote each word themselves, so FTS syntax in a query
 * (`"`, `*`, `NEAR`, `-`, `OR`, parentheses, unbalanced quotes) is only ever text to look for.
 */

/** Words kept from one query: enough for any real question, bounded for a 10 KB one. */
const maxWords = 32;
/** Longer runs of letters are not words anyone searches for. */
const maxWordLength = 64;
const wordPattern = /[\p{L}\p{N}_]+/gu;

/** The distinct lower-case words of a query, in order. */
export function queryWords(query: string): string[] {
  const words = new Set<string>();
  for (const match of query.toLowerCase().matchAll(wordPattern)) {
    words.add(match[0].slice(0, maxWordLength));
    if (words.size === maxWords) break;
  }
  return [...words];
}
