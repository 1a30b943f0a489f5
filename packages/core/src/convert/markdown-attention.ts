/**
 * Emphasis, strong and strikethrough markers for a run of inline content, chosen so that a
 * markdown reader pairs them back as they were written: mdast-util-to-markdown's choice, made
 * the same way so that our writer's output is byte for byte the library's.
 *
 * Each span has a preferred sequence (`_`, `**`, `~~`) and alternatives (`*`, `__`, `~`). A first
 * guess avoids a marker equal to its neighbour's; then the markers are laid out, with the
 * characters around them written as references where a reader would otherwise not see a
 * marker open or close (`a_b_` → `a&#x5F;b_`), and the delimiter-run pairing of CommonMark is
 * simulated on the result. While a marker would pair with the wrong one, the spans involved
 * try their alternatives, keeping a change when it moves the first mistake later; what cannot
 * be repaired is written as first laid out.
 */
import { classifyCharacter } from 'micromark-util-classify-character';
import { characterReference, firstCharacter, lastCharacter } from './markdown-syntax.ts';

/** A span of emphasis, strong or strikethrough, its content already written. */
export interface AttentionSpan {
  readonly children: Piece[];
  /** Its marker sequences, the preferred one first. */
  readonly sequences: readonly string[];
}

/** Written inline content, or a span whose markers are still to choose. */
export type Piece = string | AttentionSpan;

interface Token {
  value: string;
  span: AttentionSpan | undefined;
}

type Choice = Map<AttentionSpan, string>;

/** A run of marker tokens with the same character, as a reader sees a delimiter run. */
interface Run {
  tokens: Token[];
  /** One entry per marker character, each its token. */
  markers: Token[];
  start: number;
  end: number;
  open: boolean;
  close: boolean;
  /** Whether runs of this marker may pair in parts (`*`, `_`), or only whole (`~`). */
  split: boolean;
}

interface Mistake {
  spans: AttentionSpan[];
  index: number;
}

// Kinds of characters as the pairing sees them (micromark's classification).
const whitespace = 1;
const punctuation = 2;

/** `*` pairs by the rule of three; `_` also only at word edges. */
const intrawordStrict = new Map([
  ['*', false],
  ['_', true],
]);

/** The pieces written out, with the markers chosen, between `before` and `after`. */
export function writePieces(pieces: readonly Piece[], before: string, after: string): string {
  let plain = true;
  for (const piece of pieces) if (typeof piece !== 'string') plain = false;
  if (plain) return (pieces as readonly string[]).join('');
  const guessed: Choice = new Map();
  guess(pieces, guessed, before, after);
  const tokens =
    (guessed.size > 0 ? repair(pieces, guessed, before, after) : undefined) ??
    repair(pieces, new Map(), before, after) ??
    layOut(pieces, new Map(), before, after);
  let result = '';
  for (const token of tokens) result += token.value;
  return result;
}

/** First choice: a sequence whose marker differs from the neighbours' first characters. */
function guess(pieces: readonly Piece[], chosen: Choice, before: string, after: string): void {
  let previous = before;
  for (let index = 0; index < pieces.length; index++) {
    const piece = pieces[index]!;
    if (typeof piece === 'string') {
      previous = '';
      continue;
    }
    const next = index === pieces.length - 1 ? after : '';
    const sequence =
      piece.sequences.find((candidate) => {
        const marker = candidate.charAt(0);
        return (
          (marker !== previous.charAt(0) && marker !== next.charAt(0)) ||
          (pieces.length === 1 && intrawordStrict.has(marker) && candidate.length > before.length)
        );
      }) ?? piece.sequences[0]!;
    if (sequence !== piece.sequences[0]) chosen.set(piece, sequence);
    guess(piece.children, chosen, sequence, sequence);
    previous = sequence;
  }
}

/** Lays out and checks, trying alternatives while they move the first mistake later. */
function repair(
  pieces: readonly Piece[],
  start: Choice,
  before: string,
  after: string,
): Token[] | undefined {
  let chosen = start;
  let tokens = layOut(pieces, chosen, before, after);
  let mistake = firstMistake(tokens, before, after);
  while (mistake) {
    let better: { chosen: Choice; tokens: Token[]; mistake: Mistake | undefined } | undefined;
    search: for (const span of mistake.spans) {
      const current = chosen.get(span) ?? span.sequences[0];
      for (const sequence of span.sequences) {
        if (sequence === current) continue;
        const trial: Choice = new Map(chosen);
        trial.set(span, sequence);
        const trialTokens = layOut(pieces, trial, before, after);
        const next = firstMistake(trialTokens, before, after);
        if (!next || next.index > mistake.index) {
          better = { chosen: trial, tokens: trialTokens, mistake: next };
          break search;
        }
      }
    }
    if (!better) return undefined;
    ({ chosen, tokens, mistake } = better);
  }
  return tokens;
}

/** The tokens of the pieces with their chosen markers and the references they need around. */
function layOut(pieces: readonly Piece[], chosen: Choice, before: string, after: string): Token[] {
  const tokens: Token[] = [];
  let referenceIfFirst: string | undefined;
  let previous = lastCharacter(before);
  for (let index = 0; index < pieces.length; index++) {
    const piece = pieces[index]!;
    if (typeof piece === 'string') {
      const token: Token = { value: piece, span: undefined };
      if (referenceIfFirst && referenceIfFirst === firstCharacter(piece))
        asReference([token], true);
      referenceIfFirst = undefined;
      tokens.push(token);
      if (token.value) previous = lastCharacter(token.value);
      continue;
    }
    const sequence = chosen.get(piece) ?? piece.sequences[0]!;
    const marker = sequence.charAt(0);
    const next = pieces[index + 1];
    const outsideBefore = previous;
    const outsideAfter = firstCharacter(
      next === undefined
        ? after
        : typeof next === 'string'
          ? next
          : (chosen.get(next) ?? next.sequences[0]!),
    );
    const inside = layOut(piece.children, chosen, sequence, sequence);
    const head = inside[0]!.value;
    const opening = referencesAt(
      outsideBefore.charCodeAt(outsideBefore.length - 1),
      head.charCodeAt(0),
      marker,
    );
    if (opening.inside) asReference(inside, true);
    const tail = lastCharacter(inside[inside.length - 1]!.value);
    const closing = referencesAt(
      outsideAfter.charCodeAt(0),
      tail.charCodeAt(tail.length - 1),
      marker,
    );
    if (closing.inside) asReference(inside, false);
    if (opening.outside && outsideBefore !== '\n' && outsideBefore !== '\r')
      asReference(tokens, false);
    if (closing.outside) referenceIfFirst = outsideAfter;
    tokens.push({ value: sequence, span: piece }, ...inside, { value: sequence, span: piece });
    previous = sequence.charAt(sequence.length - 1);
  }
  return tokens;
}

/**
 * Which side of a marker needs its character written as a reference for the marker to open or
 * close: `outside` is the character beyond the marker, `inside` the one it wraps.
 */
function referencesAt(
  outside: number,
  inside: number,
  marker: string,
): { inside: boolean; outside: boolean } {
  const outsideKind = classifyCharacter(outside);
  const insideKind = classifyCharacter(inside);
  if (outsideKind === undefined) {
    if (insideKind === undefined)
      // Letters on both sides: only `_` fails within a word.
      return marker === '_' ? both : neither;
    return insideKind === whitespace ? both : outsideOnly;
  }
  if (outsideKind === whitespace) return insideKind === whitespace ? both : neither;
  return insideKind === whitespace ? insideOnly : neither;
}
const both = { inside: true, outside: true };
const neither = { inside: false, outside: false };
const outsideOnly = { inside: false, outside: true };
const insideOnly = { inside: true, outside: false };

/** Writes the first (or last) character of the first (or last) text token as a reference. */
function asReference(tokens: Token[], first: boolean): void {
  const token = tokens[first ? 0 : tokens.length - 1];
  if (!token || token.span) return;
  const character = first ? firstCharacter(token.value) : lastCharacter(token.value);
  const reference = characterReference(character.codePointAt(0)!);
  if (first) {
    token.value = reference + token.value.slice(character.length);
    return;
  }
  let value = token.value.slice(0, token.value.length - character.length);
  let backslashes = 0;
  while (value.charCodeAt(value.length - 1 - backslashes) === 92) backslashes++;
  // An odd backslash left at the end would escape the reference's `&`.
  if (backslashes % 2) value += '\\';
  token.value = value + reference;
}

/** The first marker a reader would pair wrongly, and the spans that could change to avoid it. */
function firstMistake(tokens: Token[], before: string, after: string): Mistake | undefined {
  const runs: Run[] = [];
  const wrong = new Map<Token, Token[]>();
  const runOf = new Map<Token, Run>();
  let index = 0;
  while (index < tokens.length) {
    if (!tokens[index]!.span) {
      index++;
      continue;
    }
    const marker = tokens[index]!.value.charAt(0);
    const strict = intrawordStrict.get(marker);
    let end = index + 1;
    while (end < tokens.length && tokens[end]!.span && tokens[end]!.value.charAt(0) === marker)
      end++;
    const head = index ? tokens[index - 1]!.value : before;
    const previous = classifyCharacter(head.charCodeAt(head.length - 1));
    const next = classifyCharacter(
      (end < tokens.length ? tokens[end]!.value : after).charCodeAt(0),
    );
    const open = !next || (next === punctuation && Boolean(previous));
    const close = !previous || (previous === punctuation && Boolean(next));
    const run: Run = {
      tokens: tokens.slice(index, end),
      markers: [],
      start: 0,
      end: 0,
      open: strict ? open && (Boolean(previous) || !close) : open,
      close: strict ? close && (Boolean(next) || !open) : close,
      split: strict !== undefined,
    };
    for (const token of run.tokens) {
      wrong.set(token, [...run.tokens]);
      runOf.set(token, run);
      for (let size = token.value.length; size > 0; size--) run.markers.push(token);
    }
    run.end = run.markers.length;
    runs.push(run);
    index = end;
  }
  pairRuns(runs, wrong);
  for (let at = 0; at < tokens.length; at++) {
    const involved = wrong.get(tokens[at]!);
    if (involved) return { spans: spansToTry(tokens, involved, runOf), index: at };
  }
  return undefined;
}

/**
 * CommonMark's pairing of delimiter runs, closer by closer with the nearest opener: a marker
 * token paired with its own span's other token is right; any other pairing marks the tokens
 * involved wrong.
 */
function pairRuns(runs: Run[], wrong: Map<Token, Token[]>): void {
  const openersByMarker = new Map<string, Run[]>();
  for (const closer of runs) {
    const marker = closer.tokens[0]!.value.charAt(0);
    let openers = openersByMarker.get(marker);
    if (!openers) {
      openers = [];
      openersByMarker.set(marker, openers);
    }
    let open = closer.close ? openers.length : 0;
    while (open-- && closer.start < closer.end) {
      const opener = openers[open]!;
      const openerSize = opener.end - opener.start;
      const closerSize = closer.end - closer.start;
      const skip = closer.split
        ? // The rule of three, on the sizes left.
          (opener.close || closer.open) && closerSize % 3 && !((openerSize + closerSize) % 3)
        : // Whole runs of the same size only.
          openerSize !== opener.markers.length || openerSize !== closerSize;
      if (skip) continue;
      const size = closer.split ? (openerSize > 1 && closerSize > 1 ? 2 : 1) : closerSize;
      const opening = opener.markers.slice(opener.end - size, opener.end);
      const closing = closer.markers.slice(closer.start, closer.start + size);
      const openToken = opening[0]!;
      const closeToken = closing[0]!;
      if (
        openToken === opening[size - 1] &&
        openToken.value.length === size &&
        closeToken === closing[size - 1] &&
        closeToken.value.length === size &&
        openToken.span === closeToken.span
      ) {
        wrong.delete(openToken);
        wrong.delete(closeToken);
      } else {
        const involved = [...new Set([...opening, ...closing])];
        for (const token of involved) wrong.get(token)?.push(...involved);
      }
      opener.end -= size;
      closer.start += size;
      if (opener.start === opener.end) openers.splice(open, 1);
      open = openers.length;
    }
    if (closer.open && closer.start < closer.end) openers.push(closer);
  }
}

/** The spans of the runs involved in a mistake, the last written first. */
function spansToTry(tokens: Token[], involved: Token[], runOf: Map<Token, Run>): AttentionSpan[] {
  const related = new Set<AttentionSpan>();
  for (const token of tokens) {
    const run = runOf.get(token);
    if (run && token.span && involved.some((other) => other.span === token.span)) {
      for (const sibling of run.tokens) related.add(sibling.span!);
    }
  }
  const ordered: AttentionSpan[] = [];
  for (const token of tokens)
    if (token.span && related.delete(token.span)) ordered.push(token.span);
  ordered.reverse();
  return ordered;
}
