/**
 * The text handler of our markdown writer: mdast-util-to-markdown's own, run with only the
 * escaping rules that match the text in hand, and skipped when none does.
 *
 * mdast-util-to-markdown runs every one of its ~90 rules over every text node, and its general
 * escaping machinery was the largest cost of a crawl (issue 17). A rule is left out here only
 * when it provably adds no escape, so the output is byte-for-byte the library's: a rule out of
 * scope of the construct stack (the library skips it too); a rule that needs a line ending when
 * the text and its neighbours have none (folded text never has one); a rule whose character is
 * not in the text (its matches fall on the neighbours, which are never escaped, and only an
 * underscore in the text looks at them); and a rule whose pattern matches nowhere (except one
 * bound to the neighbouring nodes, which the library matches on the text alone).
 */
import type { Parents as MdastParents, Text } from 'mdast';
import {
  defaultHandlers,
  type Info,
  type SafeConfig,
  type State,
  type Unsafe,
} from 'mdast-util-to-markdown';

/** The rules that may apply in one construct stack, by whether a line ending is at hand. */
interface ScopedRules {
  withLineEnding: CandidateRules;
  withoutLineEnding: CandidateRules;
}

/** Rules with their distinct characters. */
interface CandidateRules {
  rules: Unsafe[];
  /** Per rule, whether all its matches are a line ending and its character side by side. */
  besideLineEnding: boolean[];
  /** Per rule, whether it matches only after a line ending (`atBreak`). */
  atBreak: boolean[];
  /** Per rule, its character's code. */
  codes: number[];
}

// Per rule list of a state (one per processor), then per construct stack.
const scopedByRules = new WeakMap<Unsafe[], Map<string, ScopedRules>>();

export function escapedText(
  node: Text,
  parent: MdastParents | undefined,
  state: State,
  info: Info,
): string {
  const all = state.unsafe;
  const rules = rulesThatMayApply(state, node.value, info);
  if (rules === undefined) return node.value;
  state.unsafe = rules;
  try {
    return defaultHandlers.text(node, parent, state, info);
  } finally {
    state.unsafe = all;
  }
}

/**
 * `state.safe(value, info)` with the same filter: what the library writes for a link's
 * destination or title, without running its ~90 rules over every URL.
 */
export function safeValue(state: State, value: string, info: SafeConfig): string {
  const all = state.unsafe;
  const rules = rulesThatMayApply(state, value, info);
  if (rules === undefined) return value;
  state.unsafe = rules;
  try {
    return state.safe(value, info);
  } finally {
    state.unsafe = all;
  }
}

/**
 * The rules that may escape something in `value` between its neighbours, or undefined when the
 * library would return `value` as it is.
 */
function rulesThatMayApply(state: State, value: string, info: SafeConfig): Unsafe[] | undefined {
  const { before, after } = info;
  const scoped = scopedRulesOf(state.unsafe, state.stack);
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
  let rules: Unsafe[] | undefined;
  let subject: string | undefined;
  // With the line endings only in the neighbours, a match of two characters beside one lies
  // within the neighbours and two characters of the text's ends: only those are searched,
  // instead of the whole text for every space rule of the first and last text of each block.
  const edgesOnly = !lineEndingInValue && value.length >= 2;
  const { rules: all, besideLineEnding, atBreak, codes } = candidates;
  let head: string | undefined;
  for (let index = 0; index < all.length; index++) {
    const rule = all[index]!;
    if (!wasSeen(codes[index]!, stamp)) continue;
    // A rule bound to the neighbouring nodes is matched by the library on the text without its
    // neighbours, where `$` can match at the text's end: only the library can rule it out.
    const boundToNodes = Boolean(rule.beforeNode ?? rule.afterNode);
    if (!boundToNodes) {
      let found: boolean;
      if (edgesOnly && besideLineEnding[index]) {
        found =
          matchesAnywhere(state, rule, before + value.slice(0, 2)) ||
          matchesAnywhere(state, rule, value.slice(-2) + after);
      } else if (!lineEndingInValue && atBreak[index]) {
        // Every paragraph's first text follows a line ending, and its prose holds a dot: the
        // list-number rule then read every paragraph to the end (issue 17).
        found = matchesAnywhere(state, rule, (head ??= breakHead(before, value, after)));
      } else {
        found = matchesAnywhere(state, rule, (subject ??= before + value + after));
      }
      if (!found) continue;
    }
    (rules ??= []).push(rule);
  }
  // With no rule left the library returns the text as is, unless a backslash needs escaping.
  if (!rules && !backslash && !before.includes('\\') && !after.includes('\\')) return undefined;
  return rules ?? [];
}

/**
 * The ASCII characters of the text in hand, found in one pass over it: one search per rule
 * character read each text node some twenty times, the largest cost of the escaping (issue 17).
 * A character's slot takes the stamp of the call that saw it, so nothing is cleared between calls.
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
 * line ending in `before` on. Such a rule compiles to a line ending, spaces or tabs, digits (the
 * list-number rules), its character and at most one more, so a match from `before` ends within
 * two characters of the text's first other character. A match starting in `after` lies past the
 * text's end, which the library skips, and its character two or more places past it, where no
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

/** Whether the rule's own pattern, as the library compiles it, matches the text with its neighbours. */
function matchesAnywhere(state: State, rule: Unsafe, subject: string): boolean {
  const pattern = state.compilePattern(rule);
  // The pattern is global and shared with the library, which expects it to start at 0.
  pattern.lastIndex = 0;
  const found = pattern.test(subject);
  pattern.lastIndex = 0;
  return found;
}

function hasLineEnding(value: string): boolean {
  return value.includes('\n') || value.includes('\r');
}

// The last construct stack asked about and its rules: the text nodes of a paragraph share one,
// and comparing a few names is cheaper than joining them into a key for the map (issue 17).
let lastRules: Unsafe[] | undefined;
let lastStack: string[] = [];
let lastScoped: ScopedRules | undefined;

function scopedRulesOf(all: Unsafe[], stack: readonly string[]): ScopedRules {
  if (lastScoped && all === lastRules && sameNames(stack, lastStack)) return lastScoped;
  let byStack = scopedByRules.get(all);
  if (!byStack) {
    byStack = new Map();
    scopedByRules.set(all, byStack);
  }
  const key = stack.join(' ');
  let scoped = byStack.get(key);
  if (!scoped) {
    const inScope = all.filter((rule) => isInScope(stack, rule));
    scoped = {
      withLineEnding: candidateRules(inScope),
      withoutLineEnding: candidateRules(inScope.filter((rule) => !needsLineEnding(rule))),
    };
    byStack.set(key, scoped);
  }
  lastRules = all;
  lastStack = stack.slice();
  lastScoped = scoped;
  return scoped;
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}

function candidateRules(rules: Unsafe[]): CandidateRules {
  const codes = rules.map((rule) => {
    const code = rule.character.charCodeAt(0);
    if (rule.character.length !== 1 || code >= 128) {
      throw new Error(
        `Unexpected markdown escaping rule character ${JSON.stringify(rule.character)}`,
      );
    }
    return code;
  });
  return {
    rules,
    besideLineEnding: rules.map(isBesideLineEnding),
    atBreak: rules.map((rule) => rule.atBreak === true),
    codes,
  };
}

/** The library's scope test (pattern-in-scope.js): any of `inConstruct`, none of `notInConstruct`. */
function isInScope(stack: readonly string[], rule: Unsafe): boolean {
  return (
    anyInStack(stack, rule.inConstruct, true) && !anyInStack(stack, rule.notInConstruct, false)
  );
}

function anyInStack(
  stack: readonly string[],
  list: Unsafe['inConstruct'],
  whenNone: boolean,
): boolean {
  const names = typeof list === 'string' ? [list] : list;
  if (!names || names.length === 0) return whenNone;
  return names.some((name) => stack.includes(name));
}

// Conditions that only a line ending meets: the library compiles `atBreak` to `[\r\n][\t ]*`.
const lineEndingConditions = new Set(['[\\r\\n]', '\\r', '\\n']);

/**
 * True when every match of the rule is its character and a line ending next to it: the library
 * compiles `before` and `after` around the character, and a one-character class of line endings
 * on either side (nothing else, no `atBreak`) makes each match two characters long.
 */
function isBesideLineEnding(rule: Unsafe): boolean {
  if (rule.atBreak || (rule.before == null && rule.after == null)) return false;
  return (
    (rule.before == null || lineEndingConditions.has(rule.before)) &&
    (rule.after == null || lineEndingConditions.has(rule.after))
  );
}

/** True when the rule's pattern cannot match without a line ending beside its character. */
function needsLineEnding(rule: Unsafe): boolean {
  if (rule.atBreak) return true;
  return (
    (rule.before != null && lineEndingConditions.has(rule.before)) ||
    (rule.after != null && lineEndingConditions.has(rule.after))
  );
}
