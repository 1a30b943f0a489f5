/**
 * Merging the answers of a page's chunks into one: arrays are concatenated and
 * de-duplicated, objects merged key by key, and a scalar comes from the first chunk that has
 * one (the top of a page usually names the thing the page is about).
 */

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isEmpty = (value: unknown) =>
  value === null || value === undefined || value === '' || (Array.isArray(value) && !value.length);

/** Merges `next` into `merged`; `merged` wins for scalars it already has. */
export function mergeAnswers(merged: unknown, next: unknown): unknown {
  if (isEmpty(merged)) return next;
  if (isEmpty(next)) return merged;
  if (Array.isArray(merged) && Array.isArray(next)) {
    const seen = new Set(merged.map((item) => JSON.stringify(item)));
    const out: unknown[] = [...(merged as unknown[])];
    for (const item of next) {
      const key = JSON.stringify(item);
      if (!seen.has(key)) {
        seen.add(key);
        out.push(item);
      }
    }
    return out;
  }
  if (isRecord(merged) && isRecord(next)) {
    const out: Record<string, unknown> = { ...merged };
    for (const [key, value] of Object.entries(next)) out[key] = mergeAnswers(out[key], value);
    return out;
  }
  return merged;
}
