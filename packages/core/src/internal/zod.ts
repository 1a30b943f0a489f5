import type { z } from 'zod';
import { ValidationError, type FieldIssue } from '../errors.ts';

/** Turns zod issues into the field issues our errors carry (no zod types leak out of core). */
export function zodIssuesToFieldIssues(issues: readonly z.core.$ZodIssue[]): FieldIssue[] {
  return issues.map((issue) => ({
    path: issue.path.map((segment) => (typeof segment === 'symbol' ? String(segment) : segment)),
    message: issue.message,
    code: issue.code,
  }));
}

/**
 * Parses `input` with `schema`, throwing a ValidationError whose message names the first bad
 * field, so a caller sees what to fix without reading the details.
 */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  input: unknown,
  what: string,
): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues = zodIssuesToFieldIssues(parsed.error.issues);
  const first = issues[0];
  const where = first && first.path.length > 0 ? ` at '${first.path.join('.')}'` : '';
  throw new ValidationError(`Invalid ${what}${where}: ${first?.message ?? 'invalid input'}`, {
    details: issues,
  });
}
