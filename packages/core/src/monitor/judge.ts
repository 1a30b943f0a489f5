/**
 * Judging a changed or new page against the monitor's goal: is the change meaningful?
 *
 * With an `LlmProvider`, the model reads the goal and the diff and answers in the reference's
 * judgment shape (`meaningful`, `confidence`, `reason`, `meaningfulChanges`). A model that fails
 * or answers out of shape leaves the page unjudged (`judgment: null`): judging never changes a
 * page's status, and e-mail then treats the page as meaningful (fail-open, monitoring.md).
 *
 * Without a model, judging falls back to keyword relevance: Okapi BM25 (k1 = 1.2, b = 0.75) of
 * the goal's content words (stop words and "change", "notify" … left out; plural and verb
 * endings folded) against each changed line, with the page's lines as the background corpus for
 * document frequencies. A change is meaningful when a changed line mentions a goal word (scores
 * above 0); the best-scoring lines (up to 10) become `meaningfulChanges`. Confidence is high when
 * a line scores `keywordThreshold` × 3 or more or mentions two goal words, medium from
 * `keywordThreshold`, low below: a rare goal word in a short line scores high, one that fills
 * the page scores low. Beside BM25 the judge applies two rules (judge-rules.ts): lines that
 * differ only in masked noise (time stamps, copyright years, tracking parameters) are set aside,
 * and for a goal about prices, amounts or numbers a changed number or currency amount is
 * meaningful. The model is told which changed lines are only noise.
 * BM25 itself is internal/bm25.ts, shared with the `highlights` passages.
 */
import { z } from 'zod';
import type { LlmProvider } from '../interfaces/llm-provider.ts';
import { bm25Scores, englishStopWords } from '../internal/bm25.ts';
import { words } from '../internal/words.ts';
import { amountChanges, numbersOfGoal, stem, withoutNoise } from './judge-rules.ts';
import type { MeaningfulChange, PageJudgment } from './types.ts';

/** Words that say nothing about what a goal cares for: function words, and the asking itself. */
const stopWords = new Set([
  ...englishStopWords,
  ...(
    'alert alerts change changed changes changing notify notified tell know page pages site ' +
    'something anything whenever please want wants watch track tracks'
  ).split(' '),
]);

/** Content words of a goal. */
export function goalTerms(goal: string): string[] {
  return [...new Set(words(goal).filter((word) => !stopWords.has(word) && word.length > 1))];
}

const stems = (text: string) => words(text).map(stem);

/** BM25 score from which a keyword match counts with medium confidence (three times: high). */
export const keywordThreshold = 0.5;

/** What a judge reads about one page. */
export interface JudgeInput {
  goal: string;
  url: string;
  status: 'changed' | 'new';
  /** Lines the change added and removed (a new page: all its lines, as added). */
  added: readonly string[];
  removed: readonly string[];
  /** The git diff text, for the model. */
  diffText?: string;
  /** Every line of the page now, as background for the keyword score. */
  context: readonly string[];
}

/** The keyword/BM25 verdict (see the module comment). */
export function judgeByKeywords(input: JudgeInput): PageJudgment {
  const terms = goalTerms(input.goal);
  const relevant = withoutNoise(input.goal, input.added, input.removed);
  const changed = [
    ...relevant.added.map((line) => ({ line, type: 'added' as const })),
    ...relevant.removed.map((line) => ({ line, type: 'removed' as const })),
  ].filter((entry) => entry.line.trim().length > 0);
  if (terms.length === 0 || changed.length === 0) {
    const onlyNoise = terms.length > 0 && relevant.noisePairs > 0;
    return {
      meaningful: false,
      confidence: onlyNoise ? 'high' : 'low',
      reason:
        terms.length === 0
          ? 'The goal has no content words to match (keyword judging).'
          : onlyNoise
            ? `Only volatile text changed: ${relevant.noisePairs} line(s) differ only in dates, times, copyright years or tracking parameters (keyword judging).`
            : 'No text changed (keyword judging).',
      meaningfulChanges: [],
      method: 'keywords',
    };
  }
  const termStems = [...new Set(terms.map(stem))];
  const documents = changed.map((entry) => stems(entry.line));
  const corpus = [...documents, ...input.context.map(stems)].filter((doc) => doc.length > 0);
  const scores = bm25Scores(termStems, documents, corpus);
  const best = Math.max(...scores);
  const matches = changed
    .map((entry, index) => ({ ...entry, score: scores[index] ?? 0 }))
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, 10);
  const mentions = (line: string, term: string) => stems(line).includes(stem(term));
  const matchedTerms = terms.filter((term) => matches.some((match) => mentions(match.line, term)));
  const numbers = input.status === 'changed' ? numbersOfGoal(input.goal) : undefined;
  const amounts = numbers ? amountChanges(numbers, relevant.added, relevant.removed) : undefined;
  const keywordConfidence =
    best >= 3 * keywordThreshold || matchedTerms.length >= 2
      ? 'high'
      : best >= keywordThreshold
        ? 'medium'
        : 'low';
  // A line BM25 already lists is not listed again for its numbers.
  const listed = new Set(matches.map((match) => match.line));
  const amountLines = (amounts?.changes ?? []).filter(
    (change) => !listed.has(change.before ?? '') && !listed.has(change.after ?? ''),
  );
  const reasons = [
    ...(amounts ? [`A number the goal cares about changed (${amounts.changes[0]?.reason})`] : []),
    ...(matches.length > 0
      ? [
          `Changed text mentions ${matchedTerms.map((term) => `'${term}'`).join(', ')} from the goal`,
        ]
      : []),
  ];
  return {
    meaningful: matches.length > 0 || amounts !== undefined,
    confidence:
      amounts?.currency || keywordConfidence === 'high'
        ? 'high'
        : amounts
          ? 'medium'
          : keywordConfidence,
    reason:
      reasons.length > 0
        ? `${reasons.join('; ')} (keyword judging${matches.length > 0 ? `, BM25 ${best.toFixed(2)}` : ''}).`
        : `No changed line mentions the goal's words ${terms.map((term) => `'${term}'`).join(', ')} (keyword judging).`,
    meaningfulChanges: [
      ...amountLines,
      ...matches.map((match): MeaningfulChange => ({
        type: match.type,
        before: match.type === 'removed' ? match.line : null,
        after: match.type === 'added' ? match.line : null,
        reason: `mentions ${matchedTerms.filter((term) => words(match.line).some((word) => stem(word) === stem(term))).join(', ')}`,
      })),
    ].slice(0, 10),
    method: 'keywords',
  };
}

/** The model's answer, checked before it becomes a judgment. */
const judgmentSchema = z.object({
  meaningful: z.boolean(),
  confidence: z.enum(['high', 'medium', 'low']),
  reason: z.string().max(2000),
  meaningfulChanges: z
    .array(
      z.object({
        type: z.enum(['added', 'removed', 'changed']),
        before: z.string().nullable(),
        after: z.string().nullable(),
        reason: z.string(),
      }),
    )
    .max(50),
});

/** The JSON Schema the model answers to (strict mode: every property required). */
const judgmentJsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['meaningful', 'confidence', 'reason', 'meaningfulChanges'],
  properties: {
    meaningful: { type: 'boolean' },
    confidence: { type: 'string', enum: ['high', 'medium', 'low'] },
    reason: { type: 'string' },
    meaningfulChanges: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['type', 'before', 'after', 'reason'],
        properties: {
          type: { type: 'string', enum: ['added', 'removed', 'changed'] },
          before: { type: ['string', 'null'] },
          after: { type: ['string', 'null'] },
          reason: { type: 'string' },
        },
      },
    },
  },
} as const;

/** Most characters of a diff a model is shown; the rest is cut with a note. */
const maxDiffChars = 24_000;

/**
 * The model's verdict, or undefined when the model failed or answered out of shape (the page
 * then stays unjudged; the caller logs `error`).
 */
export async function judgeWithLlm(
  llm: LlmProvider,
  input: JudgeInput,
  signal?: AbortSignal,
): Promise<{ judgment: PageJudgment } | { error: string }> {
  let diff = input.diffText ?? input.added.map((line) => `+${line}`).join('\n');
  const { noisePairs } = withoutNoise(input.goal, input.added, input.removed);
  const noiseNote =
    noisePairs > 0
      ? `\nNote: ${noisePairs} changed line(s) differ from their previous version only in volatile text (dates and times, copyright years, tracking parameters).`
      : '';
  if (diff.length > maxDiffChars)
    diff = `${diff.slice(0, maxDiffChars)}\n[… diff cut at ${maxDiffChars} characters]`;
  try {
    const response = await llm.complete({
      messages: [
        {
          role: 'system',
          content:
            'You judge changes to monitored web pages. Given the goal of the person watching and a diff, ' +
            'decide whether the change is meaningful for that goal. Ignore cosmetic changes, reordering, ' +
            'counters, timestamps and boilerplate unless the goal is about them. Answer in JSON only.',
        },
        {
          role: 'user',
          content: `Goal: ${input.goal}\nPage: ${input.url}\nThe page is ${input.status === 'new' ? 'new (seen for the first time)' : 'changed'}.\nDiff (lines starting with + were added, - removed):\n${diff}${noiseNote}`,
        },
      ],
      jsonSchema: { name: 'monitor_judgment', schema: judgmentJsonSchema },
      temperature: 0,
      maxTokens: 1000,
      ...(signal ? { signal } : {}),
    });
    const parsed = judgmentSchema.safeParse(response.json);
    if (!parsed.success)
      return {
        error: `the model's judgment is out of shape: ${parsed.error.issues[0]?.message ?? ''}`,
      };
    return { judgment: { ...parsed.data, method: 'llm' } };
  } catch (error) {
    return { error: (error as Error).message };
  }
}
