/**
 * Two rules the keyword judge (judge.ts) applies beside its BM25 relevance score.
 *
 * **Volatile noise.** A changed line that differs from a removed line only in masked noise
 * (date-times, clock times, relative times, copyright years, tracking parameters: diff.ts) is set
 * aside before judging, unless the goal itself is about such things ('date', 'time', 'year',
 * 'copyright', 'updated', 'tracking' …). The page stays `changed`; a change that is all noise is
 * judged not meaningful.
 *
 * **Amounts.** A goal about money — a word stemming like price, cost, fee, rate, salary, pay, wage,
 * budget, charge, discount, tariff, fare, rent, tax, revenue, income, cheap, expensive — finds a
 * changed page meaningful when a currency amount or a percentage differs between its removed and
 * added lines (`$9` → `$12`, `10 EUR` → `12 EUR`, `15%` → `20%`); a goal about numbers — amount,
 * number, count, quantity, total, sum, figure, percent — when any number does (`3 seats` →
 * `5 seats`). That holds whether or not a changed line names the goal's words: a pricing table
 * rarely repeats the word 'price' on the line that moved. Masked noise (a copyright year, a time
 * stamp) is never an amount, and a number glued to letters (`H2`, `mp3`) is a name. A currency
 * amount gives high confidence, another number medium.
 */
import { words } from '../internal/words.ts';
import { comparableContent } from '../diff/content-diff.ts';
import type { MeaningfulChange } from './types.ts';

/**
 * A crude suffix stem, applied to goal and page words alike, so that 'prices', 'priced' and
 * 'pricing' meet 'price', and 'hiring' meets 'hire'.
 */
export const stem = (word: string) =>
  word.length > 3 ? word.replace(/(?:ies|es|s|ing|ed|e)$/, '') : word;

const stemSet = (list: string) => new Set(list.split(' ').map(stem));

/** Goal words about masked noise: with one, noise is judged like any other text. */
const noiseStems = stemSet(
  'date dates dated time times timestamp timestamps clock year years copyright updated update updates tracking utm hour hours minute minutes second seconds',
);

/** Goal words about money and about numbers (see the module comment). */
const moneyStems = stemSet(
  'price prices pricing priced cost costs costing fee fees rate rates salary salaries pay paid ' +
    'wage wages budget budgets charge charges discount discounts tariff tariffs fare fares rent ' +
    'rents tax taxes revenue income cheap cheaper expensive',
);
const numberStems = stemSet(
  'amount amounts number numbers count counts quantity quantities total totals sum sums figure ' +
    'figures percent percentage percentages',
);

const goalStems = (goal: string) => words(goal).map(stem);

/** Which changed numbers a goal cares about: any, only money (amounts and percentages), none. */
export function numbersOfGoal(goal: string): 'any' | 'money' | undefined {
  const stems = goalStems(goal);
  if (stems.some((word) => numberStems.has(word))) return 'any';
  return stems.some((word) => moneyStems.has(word)) ? 'money' : undefined;
}

/** The changed lines left to judge, and how many line pairs were only noise. */
export interface RelevantLines {
  added: string[];
  removed: string[];
  /** Pairs of a removed and an added line that differ only in masked noise. */
  noisePairs: number;
}

/** Sets aside pairs of changed lines whose only differences are masked noise (see above). */
export function withoutNoise(
  goal: string,
  added: readonly string[],
  removed: readonly string[],
): RelevantLines {
  if (goalStems(goal).some((word) => noiseStems.has(word)))
    return { added: [...added], removed: [...removed], noisePairs: 0 };
  // Removed lines not paired yet, by their masked text.
  const pool = new Map<string, number[]>();
  removed.forEach((line, index) => {
    const masked = comparableContent(line);
    pool.set(masked, [...(pool.get(masked) ?? []), index]);
  });
  const paired = new Set<number>();
  const keptAdded: string[] = [];
  for (const line of added) {
    const indices = pool.get(comparableContent(line)) ?? [];
    // A line that only moved (the same raw text) is not noise: it is judged as before.
    const at = indices.findIndex((index) => removed[index] !== line);
    if (at < 0) {
      keptAdded.push(line);
      continue;
    }
    paired.add(indices[at] as number);
    indices.splice(at, 1);
  }
  return {
    added: keptAdded,
    removed: removed.filter((_, index) => !paired.has(index)),
    noisePairs: paired.size,
  };
}

/**
 * Numbers and currency amounts of a line, masked noise left out: `$9`, `12 EUR`, `15%`, `1,299.00`,
 * `120k`. A number glued to letters (`H2`, `mp3`, `v10`) is a name, not an amount.
 */
const amountPattern =
  /(?<![\p{L}\p{N}_.,])(?:[$€£¥₹]\s?)?\d+(?:[.,]\d{3})*(?:[.,]\d+)?(?:k|m|bn)?(?:\s?(?:%|[$€£¥₹]|(?:usd|eur|gbp|chf|jpy|cad|aud|inr)(?!\p{L})))?(?![\p{L}\p{N}])/giu;
const currencyMark = /[$€£¥₹]|usd|eur|gbp|chf|jpy|cad|aud|inr/i;

function amountsOf(line: string, kind: 'any' | 'money'): string[] {
  return [...comparableContent(line).matchAll(amountPattern)]
    .map((match) => match[0].replace(/\s+/g, '').toLowerCase())
    .filter((amount) => kind === 'any' || currencyMark.test(amount) || amount.endsWith('%'));
}

/** Removes one occurrence of each of `take` from `from` (a multiset difference). */
function minus(from: readonly string[], take: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const item of take) counts.set(item, (counts.get(item) ?? 0) + 1);
  return from.filter((item) => {
    const count = counts.get(item) ?? 0;
    if (count > 0) counts.set(item, count - 1);
    return count === 0;
  });
}

/** What the amounts rule found: the lines whose numbers changed, and whether money moved. */
export interface AmountChanges {
  changes: MeaningfulChange[];
  currency: boolean;
}

/** Lines whose numbers (of the `kind` the goal cares about) differ between the two sides. */
export function amountChanges(
  kind: 'any' | 'money',
  added: readonly string[],
  removed: readonly string[],
): AmountChanges | undefined {
  const amountsIn = (line: string) => amountsOf(line, kind);
  const before = removed.flatMap(amountsIn);
  const after = added.flatMap(amountsIn);
  const gone = minus(before, after);
  const come = minus(after, before);
  if (gone.length === 0 && come.length === 0) return undefined;
  const hasAny = (line: string, set: ReadonlySet<string>) =>
    amountsIn(line).some((amount) => set.has(amount));
  const removedLines = removed.filter((line) => hasAny(line, new Set(gone)));
  const addedLines = added.filter((line) => hasAny(line, new Set(come)));
  const reason = `amount changed: ${gone.join(', ') || '—'} → ${come.join(', ') || '—'}`;
  const changes: MeaningfulChange[] = [];
  const pairs = Math.max(removedLines.length, addedLines.length);
  for (let index = 0; index < pairs; index++) {
    const beforeLine = removedLines[index] ?? null;
    const afterLine = addedLines[index] ?? null;
    changes.push({
      type: beforeLine !== null && afterLine !== null ? 'changed' : afterLine ? 'added' : 'removed',
      before: beforeLine,
      after: afterLine,
      reason,
    });
  }
  return {
    changes: changes.slice(0, 10),
    currency: [...gone, ...come].some((amount) => currencyMark.test(amount)),
  };
}
