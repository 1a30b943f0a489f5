// Token-level F1 on multisets, the usual score for main-content extraction (as in the CleanEval and
// Mozilla/trafilatura comparisons): order is ignored, repetitions count.

export interface F1Score {
  precision: number;
  recall: number;
  f1: number;
  overlap: number;
  predicted: number;
  expected: number;
}

function counts(tokens: readonly string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const t of tokens) m.set(t, (m.get(t) ?? 0) + 1);
  return m;
}

export function f1(predicted: readonly string[], expected: readonly string[]): F1Score {
  const want = counts(expected);
  let overlap = 0;
  for (const [tok, n] of counts(predicted)) overlap += Math.min(n, want.get(tok) ?? 0);
  // Two empty texts agree perfectly; otherwise an empty side scores 0 rather than NaN.
  if (predicted.length === 0 && expected.length === 0)
    return { precision: 1, recall: 1, f1: 1, overlap: 0, predicted: 0, expected: 0 };
  const precision = predicted.length === 0 ? 0 : overlap / predicted.length;
  const recall = expected.length === 0 ? 0 : overlap / expected.length;
  const f = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return {
    precision,
    recall,
    f1: f,
    overlap,
    predicted: predicted.length,
    expected: expected.length,
  };
}

export interface TokenDiff {
  /** Expected tokens the prediction lacks, with how many occurrences are missing. */
  missed: [string, number][];
  /** Predicted tokens beyond what is expected. */
  extra: [string, number][];
}

export function tokenDiff(predicted: readonly string[], expected: readonly string[]): TokenDiff {
  const p = counts(predicted);
  const e = counts(expected);
  const missed: [string, number][] = [];
  const extra: [string, number][] = [];
  for (const [tok, n] of e) if (n > (p.get(tok) ?? 0)) missed.push([tok, n - (p.get(tok) ?? 0)]);
  for (const [tok, n] of p) if (n > (e.get(tok) ?? 0)) extra.push([tok, n - (e.get(tok) ?? 0)]);
  const byCount = (a: [string, number], b: [string, number]): number =>
    b[1] - a[1] || (a[0] < b[0] ? -1 : 1);
  return { missed: missed.sort(byCount), extra: extra.sort(byCount) };
}
