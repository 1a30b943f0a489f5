/**
 * Passages of a page ranked for a query without a model (`highlights`): Okapi BM25
 * (k1 = 1.2, b = 0.75) over the page's paragraphs, with light suffix folding so 'prices' meets
 * 'price'. BM25 itself is internal/bm25.ts, shared with monitors' keyword judging.
 */
import { bm25Scores, englishStopWords } from '../../internal/bm25.ts';
import { words } from '../../internal/words.ts';

const stem = (word: string) =>
  word.length > 3 ? word.replace(/(?:ies|es|s|ing|ed|e)$/, '') : word;
const terms = (text: string) =>
  words(text)
    .filter((word) => !englishStopWords.has(word))
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
  const scores = bm25Scores(queryTerms, docs);
  return passages
    .map((text, index) => ({ text, score: scores[index] ?? 0 }))
    .filter((passage) => passage.score > 0)
    .sort((a, b) => b.score - a.score);
}
