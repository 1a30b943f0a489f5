/**
 * Passages of a page ranked for a query without a model (issue 18, `highlights`): Okapi BM25
 * (k1 = 1.2, b = 0.75) over the page's paragraphs, with light suffix folding so 'prices' meets
 * 'price'. Written out here (as monitor/judge.ts does) because the small npm packages build
 * regular expressions from query words, which user text must never be.
 */
import { words } from '../../internal/words.ts';

const stopWords = new Set(
  (
    'a an and any are as at be been but by can do does did for from has have how i if in into is ' +
    'it its me my no not of on or our so than that the their them then there these they this to ' +
    'up us was we were what when where which while who whom why will with would you your'
  ).split(' '),
);

const stem = (word: string) =>
  word.length > 3 ? word.replace(/(?:ies|es|s|ing|ed|e)$/, '') : word;
const terms = (text: string) =>
  words(text)
    .filter((word) => !stopWords.has(word))
    .map(stem);

/** The paragraphs of markdown worth showing: blank-line separated, not bare headings or rules. */
export function paragraphsOf(markdown: string): string[] {
  return markdown
    .split(/\n{2,}/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => words(paragraph).length >= 4 && !/^#{1,6}\s[^\n]*$/.test(paragraph));
}

/** Paragraphs ordered by BM25 score for `query`, best first; those scoring 0 are left out. */
export function rankPassages(markdown: string, query: string): { text: string; score: number }[] {
  const passages = paragraphsOf(markdown);
  const docs = passages.map(terms);
  const queryTerms = [...new Set(terms(query))];
  const averageLength = docs.reduce((sum, doc) => sum + doc.length, 0) / Math.max(1, docs.length);
  const k1 = 1.2;
  const b = 0.75;
  const idf = new Map(
    queryTerms.map((term) => {
      const containing = docs.filter((doc) => doc.includes(term)).length;
      return [term, Math.log((docs.length - containing + 0.5) / (containing + 0.5) + 1)];
    }),
  );
  return passages
    .map((text, index) => {
      const doc = docs[index] ?? [];
      const norm = k1 * (1 - b + (b * doc.length) / Math.max(1, averageLength));
      const score = queryTerms.reduce((sum, term) => {
        const frequency = doc.filter((word) => word === term).length;
        return frequency === 0
          ? sum
          : sum + ((idf.get(term) ?? 0) * frequency * (k1 + 1)) / (frequency + norm);
      }, 0);
      return { text, score };
    })
    .filter((passage) => passage.score > 0)
    .sort((a, b) => b.score - a.score);
}
