/**
 * Change detection: what two snapshots of a page must share to count as `same`, and the diffs a
 * changed page carries.
 *
 * Pages are compared on their normalised markdown (monitoring.md, "Change-detection rules"):
 * Unicode NFC; CRLF/CR → LF; no zero-width characters or BOM; no trailing spaces; runs of blank
 * lines collapsed to one; the whole trimmed. `same` iff the normalised texts are equal: a text
 * change is always `changed`, whatever it is.
 *
 * Volatile noise is masked only for judging (`comparableContent`; judge.ts): a change whose every
 * changed line differs from its counterpart only in noise is still `changed`, and the judge may
 * call it not meaningful. What is masked:
 *
 * - date-times (ISO 8601 `2025-03-03T09:00:00Z`, `2025-03-03 09:00`, RFC 1123 `Mon, 03 Mar 2025
 *   09:00:00 GMT`) and clock times with seconds (`09:00:00`);
 * - relative times (`5 minutes ago`, `just now`);
 * - copyright years (`© 2025`, `(c) 2019-2025`, `Copyright 2025`);
 * - tracking parameters in URLs (`utm_*`, `gclid`, `fbclid`, `msclkid`, `mc_cid`, `mc_eid`,
 *   `_ga`, `_gl`, `yclid`, `igshid`, `ref_src`).
 *
 * Plain dates (`2025-03-03`, `3 March 2025`) and times without seconds on their own (`18:30`)
 * are content — a new deadline or opening hour matters — and are never masked.
 * Diffs always show the real text (normalised, unmasked) of both sides.
 */
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { createTwoFilesPatch } from 'diff';
import parseDiff from 'parse-diff';

const zeroWidth = /[\u200B-\u200D\u2060\uFEFF]/g;

/** The page text both diffs and comparison start from (see the module comment). */
export function normaliseContent(markdown: string): string {
  return markdown
    .normalize('NFC')
    .replace(/\r\n?/g, '\n')
    .replace(zeroWidth, '')
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

const months = 'jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec';
const volatilePatterns: [RegExp, string][] = [
  // ISO 8601 date-times, with T or a space, optional seconds, fraction and zone.
  [
    /\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?\b/g,
    '<datetime>',
  ],
  // RFC 1123 / HTTP dates.
  [
    new RegExp(
      String.raw`\b(?:mon|tue|wed|thu|fri|sat|sun),? \d{1,2} (?:${months})[a-z]* \d{4} \d{2}:\d{2}(?::\d{2})?(?: ?(?:gmt|utc|[+-]\d{4}))?`,
      'gi',
    ),
    '<datetime>',
  ],
  // Clock times with seconds: a live clock, a 'generated at' stamp.
  [/\b\d{1,2}:\d{2}:\d{2}(?:\.\d+)?(?:\s?[ap]m)?\b/gi, '<time>'],
  // Relative times.
  [
    /\b(?:\d+|an?|one|a few) (?:seconds?|secs?|minutes?|mins?|hours?|hrs?) ago\b|\bjust now\b/gi,
    '<ago>',
  ],
  // Copyright years: the footer turning over on New Year's Day.
  [/(?:©|\(c\)|\bcopyright\b)(?:\s*(?:©|\(c\)))?\s*\d{4}(?:\s*[-–—]\s*\d{2,4})?/gi, '© <year>'],
];

/** Query parameters that only track the visitor; they change on every render of some pages. */
const trackingKey =
  /^(?:utm_[a-z]+|gclid|fbclid|msclkid|mc_cid|mc_eid|_ga|_gl|yclid|igshid|ref_src)$/i;
const urlPattern = /https?:\/\/[^\s)"'<>\]]+/g;

/** The URL without its tracking parameters (unchanged when it has none or does not parse). */
function withoutTracking(raw: string): string {
  if (!raw.includes('?')) return raw;
  try {
    const url = new URL(raw);
    const tracking = [...url.searchParams.keys()].filter((key) => trackingKey.test(key));
    if (tracking.length === 0) return raw;
    for (const key of tracking) url.searchParams.delete(key);
    return url.href;
  } catch {
    return raw;
  }
}

/** Normalised content with volatile noise masked: what the judge reads a change as. */
export function comparableContent(normalised: string): string {
  // Markdown escapes punctuation (`https\://…?a=1\&utm_source=x`); the noise is found unescaped.
  let text = normalised.replace(/\\([!-/:-@[-`{-~])/g, '$1');
  for (const [pattern, mask] of volatilePatterns) text = text.replace(pattern, mask);
  return text.replace(urlPattern, withoutTracking);
}

/** SHA-256 of the normalised text: equal hashes mean `same` (masking plays no part). */
export function contentHash(normalised: string): string {
  return createHash('sha256').update(normalised).digest('hex');
}

/** A diff in the reference's form: unified text and the parse-diff AST of it. */
export interface GitDiff {
  text: string;
  json: { files: unknown[] };
}

/**
 * The git-style unified diff from `previous` to `current` (3 lines of context), and its parsed
 * form (the `{ files: [{ from, to, chunks: [{ content, changes }] }] }` shape the hosted service
 * returns). Diffing gives up after `timeoutMs` on huge rewrites and says so in the text.
 */
export function gitDiff(
  previous: string,
  current: string,
  name: string,
  timeoutMs = 2000,
): GitDiff {
  const text =
    createTwoFilesPatch(
      `a/${name}`,
      `b/${name}`,
      withNewline(previous),
      withNewline(current),
      '',
      '',
      {
        context: 3,
        timeout: timeoutMs,
      },
    ) ??
    `--- a/${name}\n+++ b/${name}\n(the page changed too much to diff within ${timeoutMs} ms)\n`;
  return { text, json: { files: parseDiff(text) } };
}

const withNewline = (text: string) => (text.endsWith('\n') || text === '' ? text : `${text}\n`);

/** The lines a diff adds and removes, for judging. */
export function changedLines(diff: GitDiff): { added: string[]; removed: string[] } {
  const added: string[] = [];
  const removed: string[] = [];
  for (const line of diff.text.split('\n')) {
    if (line.startsWith('+++') || line.startsWith('---')) continue;
    if (line.startsWith('+') && line.length > 1) added.push(line.slice(1));
    else if (line.startsWith('-') && line.length > 1) removed.push(line.slice(1));
  }
  return { added, removed };
}

/** Field-level diff of two JSON extractions: `{ "a.b": { previous, current } }` per changed leaf. */
export function jsonDiff(
  previous: unknown,
  current: unknown,
): Record<string, { previous: unknown; current: unknown }> {
  const changes: Record<string, { previous: unknown; current: unknown }> = {};
  const walk = (before: unknown, after: unknown, path: string) => {
    if (isPlainObject(before) && isPlainObject(after)) {
      for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
        walk(before[key], after[key], path ? `${path}.${key}` : key);
      }
      return;
    }
    // Arrays and scalars are compared whole: an item moving is a change of the list.
    if (!isDeepStrictEqual(before, after))
      changes[path || '$'] = { previous: before ?? null, current: after ?? null };
  };
  walk(previous, current, '');
  return changes;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
