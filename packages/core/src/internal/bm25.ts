/**
 * Okapi BM25 (k1 = 1.2, b = 0.75), the ranking both keyword judging of monitors and the
 * `highlights` passages use without a model. Written out (a dozen lines) rather than taken from
 * npm: the small packages on offer build regular expressions from the query words, which user text
 * must never be.
 */

/** English function words that say nothing about what a query cares for. */
export const englishStopWords: ReadonlySet<string> = new Set(
  (
    'a an and any are as at be been but by can do does did for from has have how i if in into is ' +
    'it its let me my no not of on or our so than that the their them then there these they this ' +
    'to up us was we were what when where which while who whom why will with would you your'
  ).split(' '),
);

const k1 = 1.2;
const b = 0.75;

/**
 * The BM25 score of each of `documents` for `query`; term frequencies in the idf come from
 * `corpus` (the documents themselves unless given). Query, documents and corpus are lists of
 * already normalised terms (stems).
 */
export function bm25Scores(
  query: readonly string[],
  documents: readonly (readonly string[])[],
  corpus: readonly (readonly string[])[] = documents,
): number[] {
  const averageLength =
    corpus.reduce((sum, doc) => sum + doc.length, 0) / Math.max(1, corpus.length);
  const idf = new Map(
    query.map((term) => {
      const containing = corpus.filter((doc) => doc.includes(term)).length;
      return [term, Math.log((corpus.length - containing + 0.5) / (containing + 0.5) + 1)];
    }),
  );
  return documents.map((doc) => {
    const norm = k1 * (1 - b + (b * doc.length) / Math.max(1, averageLength));
    return query.reduce((score, term) => {
      const frequency = doc.filter((word) => word === term).length;
      return frequency === 0
        ? score
        : score + ((idf.get(term) ?? 0) * frequency * (k1 + 1)) / (frequency + norm);
    }, 0);
  });
}
