/**
 * Which escaping rules can match a string between its neighbours, found cheaply, so that the
 * escaping (markdown-escape.ts) runs only those, and returns most text untouched without
 * running any. Running all ~90 rules over every text node was the largest cost of writing
 * markdown. A rule is left out only when it provably matches nothing: out of scope
 * of the construct stack; needing a line ending when the text and its neighbours have none;
 * its character absent from the text (its matches would fall on the neighbours, which are
 * never escaped; only an underscore in the text looks at them); or its pattern matching
 * nowhere.
 */
import { escapeRules, isInScope, type CompiledRule } from './markdown-rules.ts';

/** The rules that may apply in one construct stack, by whether a line ending is at hand. */
interface ScopedRules {
  withLineEnding: CandidateRules;
  withoutLineEnding: CandidateRules;
  /** Per ASCII code, whether some rule in scope escapes that character. */
  escapable: Uint8Array;
}

interface CandidateRules {
  rules: CompiledRule[];
  /** Per rule, whether all its matches are a line ending and its character side by side. */
  besideLineEnding: boolean[];
}

/**
 * The rules that may escape something in `value` between its neighbours, or undefined when the
 * value is written as it is.
 */
export function rulesThatMayApply(
  stack: readonly string[],
  value: string,
  before: string,
  after: string,
): CompiledRule[] | undefined {
  const scoped = scopedRulesOf(stack);
  const stamp = nextStamp();
  markSeen(value, stamp);
  // The parts are tested apart: joined, the text would be copied once more for every test.
  const lineEndingInValue = wasSeen(lineFeed, stamp) || wasSeen(carriageReturn, stamp);
  const lineEnding = lineEndingInValue || hasLineEnding(before) || hasLineEnding(after);
  const candidates = lineEnding ? scoped.withLineEnding : scoped.withoutLineEnding;
  const backslash = wasSeen(backslashCode, stamp);
  // An underscore in the text looks at its neighbours' characters too.
  if (wasSeen(underscoreCode, stamp)) {
    markSeen(before, stamp);
    markSeen(after, stamp);
  }
  let rules: CompiledRule[] | undefined;
  let subject: string | undefined;
  // With the line endings only in the neighbours, a match of two characters beside one lies
  // within the neighbours and two characters of the text's ends: only those are searched,
  // instead of the whole text for every space rule of the first and last text of each block.
  const edgesOnly = !lineEndingInValue && value.length >= 2;
  const { rules: all, besideLineEnding } = candidates;
  let head: string | undefined;
  for (let index = 0; index < all.length; index++) {
    const rule = all[index]!;
    if (!wasSeen(rule.code, stamp)) continue;
    let found: boolean;
    if (edgesOnly && besideLineEnding[index]) {
      found =
        matchesAnywhere(rule, before + value.slice(0, 2)) ||
        matchesAnywhere(rule, value.slice(-2) + after);
    } else if (!lineEndingInValue && rule.atBreak) {
      // Every paragraph's first text follows a line ending, and its prose holds a dot: the
      // list-number rule then read every paragraph to the end.
      found = matchesAnywhere(rule, (head ??= breakHead(before, value, after)));
    } else {
      found = matchesAnywhere(rule, (subject ??= before + value + after));
    }
    if (found) (rules ??= []).push(rule);
  }
  // With no rule left the value is written as is, unless a backslash needs escaping.
  if (!rules && !backslash && !before.includes('\\') && !after.includes('\\')) return undefined;
  return rules ?? [];
}

/**
 * Whether escaping may change the first character of `value`: only a character some rule in
 * scope names, or a backslash, is ever changed.
 */
export function mayChangeFirst(stack: readonly string[], value: string): boolean {
  const code = value.charCodeAt(0);
  return code === backslashCode || (code < 128 && scopedRulesOf(stack).escapable[code] === 1);
}

/**
 * The ASCII characters of the text in hand, found in one pass over it: one search per rule
 * character read each text node some twenty times. A character's slot takes the
 * stamp of the call that saw it, so nothing is cleared between calls.
 */
const seenAt = new Uint32Array(128);
let lastStamp = 0;
const lineFeed = 10;
const carriageReturn = 13;
const backslashCode = 92;
const underscoreCode = 95;

function nextStamp(): number {
  lastStamp = lastStamp === 0xffff_ffff ? 1 : lastStamp + 1;
  if (lastStamp === 1) seenAt.fill(0);
  return lastStamp;
}

function markSeen(text: string, stamp: number): void {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 128) seenAt[code] = stamp;
  }
}

function wasSeen(code: number, stamp: number): boolean {
  return seenAt[code] === stamp;
}

/**
 * Where a rule that matches only after a line ending can match when the text has none: from a
 * line ending in `before` on. Such a rule is a line ending, spaces or tabs, digits (the
 * list-number rules), its character and at most one more, so a match from `before` ends within
 * two characters of the text's first other character. A match starting in `after` lies past the
 * text's end, where nothing is escaped, and its character two or more places past it, where no
 * underscore of the text looks.
 */
function breakHead(before: string, value: string, after: string): string {
  let prefix = 0;
  while (prefix < value.length && isSpaceTabOrDigit(value.charCodeAt(prefix))) prefix++;
  return prefix + 2 <= value.length ? before + value.slice(0, prefix + 2) : before + value + after;
}

function isSpaceTabOrDigit(code: number): boolean {
  return code === 32 || code === 9 || (code >= 48 && code <= 57);
}

function matchesAnywhere(rule: CompiledRule, subject: string): boolean {
  const pattern = rule.pattern;
  // The pattern is global and shared with the escaping, which expects it to start at 0.
  pattern.lastIndex = 0;
  const found = pattern.test(subject);
  pattern.lastIndex = 0;
  return found;
}

function hasLineEnding(value: string): boolean {
  return value.includes('\n') || value.includes('\r');
}

/**
 * The rules of each construct stack met, in a tree of the stacks' names: looking a stack up is a
 * map lookup per name, where joining the names into a key for one map, at every change of stack
 * (paragraph, link label, destination …), was a twentieth of the writing.
 */
interface StackNode {
  scoped?: ScopedRules;
  next: Map<string, StackNode>;
}
const stacks: StackNode = { next: new Map() };

function scopedRulesOf(stack: readonly string[]): ScopedRules {
  let node = stacks;
  for (const name of stack) {
    let next = node.next.get(name);
    if (!next) {
      next = { next: new Map() };
      node.next.set(name, next);
    }
    node = next;
  }
  return (node.scoped ??= scopedRules(stack));
}

function scopedRules(stack: readonly string[]): ScopedRules {
  const inScope = escapeRules.filter((rule) => isInScope(stack, rule));
  const escapable = new Uint8Array(128);
  for (const rule of inScope) escapable[rule.code] = 1;
  return {
    withLineEnding: candidateRules(inScope),
    withoutLineEnding: candidateRules(inScope.filter((rule) => !needsLineEnding(rule))),
    escapable,
  };
}

function candidateRules(rules: CompiledRule[]): CandidateRules {
  for (const rule of rules) {
    if (rule.character.length !== 1 || rule.code >= 128)
      throw new Error(`Unexpected escaping rule character ${JSON.stringify(rule.character)}`);
  }
  return { rules, besideLineEnding: rules.map(isBesideLineEnding) };
}

// Conditions that only a line ending meets: `atBreak` compiles to `[\r\n][\t ]*`.
const lineEndingConditions = new Set(['[\\r\\n]', '\\r', '\\n']);

/**
 * True when every match of the rule is its character and a line ending next to it: a
 * one-character class of line endings on either side (nothing else, no `atBreak`) makes each
 * match two characters long.
 */
function isBesideLineEnding(rule: CompiledRule): boolean {
  if (rule.atBreak || (rule.before == null && rule.after == null)) return false;
  return (
    (rule.before == null || lineEndingConditions.has(rule.before)) &&
    (rule.after == null || lineEndingConditions.has(rule.after))
  );
}

/** True when the rule's pattern cannot match without a line ending beside its character. */
function needsLineEnding(rule: CompiledRule): boolean {
  if (rule.atBreak) return true;
  return (
    (rule.before != null && lineEndingConditions.has(rule.before)) ||
    (rule.after != null && lineEndingConditions.has(rule.after))
  );
}
