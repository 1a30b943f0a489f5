/**
 * The change-detection rules of monitors (diff.ts): what normalising and masking make equal, what
 * stays a change, the git diff and its parsed form, the JSON field diff, and keyword judging.
 */
import { describe, expect, it } from 'vitest';
import {
  comparableContent,
  contentHash,
  gitDiff,
  goalTerms,
  judgeByKeywords,
  jsonDiff,
  normaliseContent,
} from '@trawl/core/server';

const same = (a: string, b: string) =>
  contentHash(normaliseContent(a)) === contentHash(normaliseContent(b));

describe('normalised content', () => {
  it('ignores line endings, trailing spaces, blank-line runs, zero-width characters, BOM and NFC forms', () => {
    expect(same('# Title\r\n\r\n\r\n\r\nText  \r\n', '# Title\n\nText')).toBe(true);
    expect(same('\uFEFFPrice\u200B: 10', 'Price: 10')).toBe(true);
    expect(same('Cafe\u0301', 'Café')).toBe(true);
    expect(normaliseContent('  a\n\n\n\nb  ')).toBe('a\n\nb');
  });

  it('never lets masked noise make a changed text the same', () => {
    // Time stamps, relative times, copyright years and tracking parameters are text changes.
    expect(same('As of 2026-03-02T09:00:00Z', 'As of 2026-03-03T17:45:12.123+02:00')).toBe(false);
    expect(same('Server time 09:00:01', 'Server time 21:13:59')).toBe(false);
    expect(same('Updated 5 minutes ago', 'Updated an hour ago')).toBe(false);
    expect(same('Acme Inc. © 2025', 'Acme Inc. © 2026')).toBe(false);
    expect(
      same(
        '[Buy](https://shop.example/p?id=7&utm_source=mail)',
        '[Buy](https://shop.example/p?id=7&fbclid=xyz)',
      ),
    ).toBe(false);
  });

  it('masks date-times, clock times with seconds, relative times, copyright years and tracking parameters for the judge', () => {
    const masked = (a: string, b: string) => comparableContent(a) === comparableContent(b);
    expect(masked('As of 2026-03-02T09:00:00Z', 'As of 2026-03-03T17:45:12.123+02:00')).toBe(true);
    expect(masked('Built 2026-03-02 09:00', 'Built 2026-03-04 10:30')).toBe(true);
    expect(
      masked('Date: Mon, 02 Mar 2026 09:00:00 GMT', 'Date: Tue, 03 Mar 2026 10:11:12 GMT'),
    ).toBe(true);
    expect(masked('Server time 09:00:01', 'Server time 21:13:59')).toBe(true);
    expect(masked('Updated 5 minutes ago', 'Updated an hour ago')).toBe(true);
    expect(masked('Updated just now', 'Updated 10 seconds ago')).toBe(true);
    expect(masked('Acme Inc. © 2025', 'Acme Inc. © 2026')).toBe(true);
    expect(masked('Copyright 2019-2025 Acme', 'Copyright 2019–2026 Acme')).toBe(true);
    expect(masked('(c) 2025 Acme', '(c) 2026 Acme')).toBe(true);
    expect(
      masked(
        '[Buy](https://shop.example/p?id=7&utm_source=mail&gclid=abc)',
        '[Buy](https://shop.example/p?id=7&fbclid=xyz)',
      ),
    ).toBe(true);
    // Markdown escapes (`\\&`, `https\\:`) do not hide a tracking parameter.
    expect(comparableContent('See https\\://shop.example/p?id=7\\&utm_medium=x')).toBe(
      'See https://shop.example/p?id=7',
    );
  });

  it('keeps plain dates, times without seconds, other parameters and words as content', () => {
    expect(same('Deadline 2026-03-02', 'Deadline 2026-03-09')).toBe(false);
    expect(same('Opens at 18:30', 'Opens at 19:30')).toBe(false);
    expect(same('https://shop.example/p?id=7', 'https://shop.example/p?id=8')).toBe(false);
    expect(same('Price: 10 EUR', 'Price: 12 EUR')).toBe(false);
    // A question mark in prose is not a URL's.
    expect(comparableContent('Why? Because.')).toBe('Why? Because.');
  });
});

describe('diffs', () => {
  it('gives a git-style unified diff with context, and its parse-diff form', () => {
    const diff = gitDiff('a\nb\nc\nd', 'a\nB\nc\nd\ne', 'https://example.com/x');
    expect(diff.text).toContain('--- a/https://example.com/x');
    expect(diff.text).toContain('+++ b/https://example.com/x');
    expect(diff.text).toMatch(/^@@ -1,4 \+1,5 @@$/m);
    expect(diff.text).toContain('-b\n+B\n');
    const [file] = diff.json.files as {
      from: string;
      to: string;
      chunks: { changes: { type: string; content: string; ln?: number }[] }[];
    }[];
    // parse-diff drops git's a/ and b/ prefixes.
    expect(file?.from).toBe('https://example.com/x');
    expect(file?.chunks[0]?.changes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'del', content: '-b', ln: 2 }),
        expect.objectContaining({ type: 'add', content: '+B', ln: 2 }),
        expect.objectContaining({ type: 'add', content: '+e', ln: 5 }),
        expect.objectContaining({ type: 'normal', content: ' a' }),
      ]),
    );
  });

  it('diffs JSON by field: nested objects by path, lists whole, added and removed fields as null', () => {
    expect(
      jsonDiff(
        {
          plan: 'Basic',
          price: 10,
          limits: { seats: 3, storage: '5 GB' },
          tags: ['a', 'b'],
          old: 1,
        },
        {
          plan: 'Basic',
          price: 12,
          limits: { seats: 5, storage: '5 GB' },
          tags: ['b', 'a'],
          fresh: true,
        },
      ),
    ).toEqual({
      price: { previous: 10, current: 12 },
      'limits.seats': { previous: 3, current: 5 },
      tags: { previous: ['a', 'b'], current: ['b', 'a'] },
      old: { previous: 1, current: null },
      fresh: { previous: null, current: true },
    });
    expect(jsonDiff({ a: { b: [1] } }, { a: { b: [1] } })).toEqual({});
    expect(jsonDiff(null, { a: 1 })).toEqual({ $: { previous: null, current: { a: 1 } } });
  });
});

describe('keyword judging', () => {
  it('keeps the content words of a goal', () => {
    expect(goalTerms('Tell me when the price of any plan changes!')).toEqual(['price', 'plan']);
  });

  it('finds a change meaningful when a changed line mentions the goal, and lists that line', () => {
    const verdict = judgeByKeywords({
      goal: 'new engineering jobs in Berlin',
      url: 'https://example.com/jobs',
      status: 'changed',
      added: ['Staff engineer, Berlin', 'Footer text'],
      removed: [],
      context: ['Jobs', 'Staff engineer, Berlin', 'Office hours 9 to 5', 'Footer text'],
    });
    expect(verdict).toMatchObject({ meaningful: true, method: 'keywords' });
    expect(verdict.meaningfulChanges).toEqual([
      expect.objectContaining({ type: 'added', after: 'Staff engineer, Berlin', before: null }),
    ]);
    expect(verdict.reason).toContain("'berlin'");
  });

  it('matches plural and verb forms, and removed lines too', () => {
    const verdict = judgeByKeywords({
      goal: 'price',
      url: 'u',
      status: 'changed',
      added: [],
      removed: ['Prices start at 10 EUR'],
      context: ['Prices start at 10 EUR'],
    });
    expect(verdict.meaningfulChanges).toEqual([
      expect.objectContaining({ type: 'removed', before: 'Prices start at 10 EUR', after: null }),
    ]);
  });

  it('finds nothing meaningful when no changed line mentions the goal, or the goal has no content words', () => {
    const input = {
      url: 'u',
      status: 'changed' as const,
      added: ['Office hours 10 to 6'],
      removed: ['Office hours 9 to 5'],
      context: ['Office hours 10 to 6'],
    };
    expect(judgeByKeywords({ ...input, goal: 'salary of engineers' })).toMatchObject({
      meaningful: false,
      confidence: 'low',
      meaningfulChanges: [],
    });
    expect(judgeByKeywords({ ...input, goal: 'tell me when it changes' }).reason).toMatch(
      /no content words/,
    );
  });

  it('treats goal words as words, never as patterns', () => {
    const verdict = judgeByKeywords({
      goal: 'c++ (price) [.*]',
      url: 'u',
      status: 'changed',
      added: ['Anything at all'],
      removed: [],
      context: [],
    });
    expect(verdict.meaningful).toBe(false);
  });
});
