/**
 * Escaping of a string written between two others (`before`, `after`) inside a stack of
 * constructs: each character some rule matches is backslash-escaped when it is ASCII
 * punctuation, else written as a character reference, and backslashes that would escape what
 * follows are doubled — what mdast-util-to-markdown's `safe` writes, so that our writer's output
 * is byte for byte the library's.
 *
 * Two of the library's refinements are kept because they change bytes: an underscore run inside
 * a word (`snake_case`) is left alone, as it cannot make emphasis there; and of two neighbouring
 * matches, one that only exists because of the other's character is dropped.
 */
import { classifyCharacter } from 'micromark-util-classify-character';
import type { CompiledRule } from './markdown-rules.ts';
import { characterReference } from './markdown-syntax.ts';
import { rulesThatMayApply } from './markdown-escape-filter.ts';

export interface EscapeOptions {
  before: string;
  after: string;
  /** Characters written as references rather than backslash-escaped (code fence info). */
  encode?: string;
}

// Per matched position: whether every rule that matched there needed a character before it,
// or after it. Reused between calls: the positions found are few.
const flagBefore = 1;
const flagAfter = 2;

/** `value`, escaped for where it is written. */
export function escape(stack: readonly string[], value: string, options: EscapeOptions): string {
  const rules = rulesThatMayApply(stack, value, options.before, options.after);
  if (rules === undefined) return value;
  return escapeWith(rules, stack.includes('autolink'), value, options);
}

const punctuation = /[!-/:-@[-`{-~]/;
const emphasisMarker = /[*_]/;

function escapeWith(
  rules: readonly CompiledRule[],
  percentEncode: boolean,
  input: string,
  { before, after, encode }: EscapeOptions,
): string {
  const value = before + input + after;
  const offset = before.length;
  const end = value.length - after.length;
  const found = new Map<number, number>();
  for (const rule of rules) {
    const pattern = rule.pattern;
    pattern.lastIndex = 0;
    const flags = (rule.before || rule.atBreak ? flagBefore : 0) | (rule.after ? flagAfter : 0);
    for (let match = pattern.exec(value); match; match = pattern.exec(value)) {
      const position = match.index + (rule.hasPrefix ? match[1]!.length : 0);
      const known = found.get(position);
      // A position matched by several rules needs what all of them need.
      found.set(position, known === undefined ? flags : known & flags);
    }
  }
  if (found.size === 0) return escapeBackslashes(input, after);
  const positions = [...found.keys()].sort((a, b) => a - b);
  let result = '';
  let start = offset;
  for (let index = 0; index < positions.length; index++) {
    const position = positions[index]!;
    if (position < start || position >= end) continue;
    const flags = found.get(position)!;
    // An underscore run inside a word: intraword underscores make no emphasis.
    if (
      value.charCodeAt(position) === 95 &&
      position > 0 &&
      classifyCharacter(value.charCodeAt(position - 1)) === undefined &&
      !found.has(position - 1) &&
      !(position - 1 === offset && emphasisMarker.test(value.charAt(offset - 1)))
    ) {
      let sequenceEnd = position + 1;
      while (sequenceEnd < end && value.charCodeAt(sequenceEnd) === 95) sequenceEnd++;
      const skip = sequenceEnd - position - 1;
      if (
        positions[index + skip] === sequenceEnd - 1 &&
        sequenceEnd < value.length &&
        classifyCharacter(value.charCodeAt(sequenceEnd)) === undefined &&
        !found.has(sequenceEnd) &&
        !(sequenceEnd === end - 1 && emphasisMarker.test(value.charAt(end)))
      ) {
        index += skip;
        continue;
      }
    }
    // A match that needed its neighbour, when the neighbour is escaped on its own account.
    if (
      (position + 1 < end &&
        positions[index + 1] === position + 1 &&
        flags & flagAfter &&
        found.get(position + 1) === 0) ||
      (position - 1 >= offset &&
        positions[index - 1] === position - 1 &&
        flags & flagBefore &&
        found.get(position - 1) === 0)
    )
      continue;
    if (start !== position) {
      const slice = value.slice(start, position);
      result += percentEncode ? slice : escapeBackslashes(slice, '\\');
    }
    start = position + 1;
    const character = value.charAt(position);
    if (percentEncode) {
      result += `%${value.charCodeAt(position).toString(16).toUpperCase().padStart(2, '0')}`;
    } else if (punctuation.test(character) && !encode?.includes(character)) {
      result += `\\${character}`;
    } else {
      result += characterReference(value.charCodeAt(position));
    }
  }
  const rest = value.slice(start, end);
  return result + (percentEncode ? rest : escapeBackslashes(rest, after));
}

const escapingBackslash = /\\(?=[!-/:-@[-`{-~])/g;

/** Doubles each backslash of `value` that, with `after` behind it, would escape punctuation. */
export function escapeBackslashes(value: string, after: string): string {
  if (!value.includes('\\') && !after.includes('\\')) return value;
  const whole = value + after;
  let result = '';
  let start = 0;
  escapingBackslash.lastIndex = 0;
  for (let match = escapingBackslash.exec(whole); match; match = escapingBackslash.exec(whole)) {
    // A backslash found in `after` still gets its double, at the end of `value`.
    if (start !== match.index) result += value.slice(start, match.index);
    result += '\\';
    start = match.index;
  }
  return result + value.slice(start);
}
