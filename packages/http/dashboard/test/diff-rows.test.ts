/**
 * The dashboard's diff layout: a check's unified diff becomes hunks whose removed lines face the
 * added lines that replaced them, with line numbers of each side, and changed words marked.
 */
import { createTwoFilesPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import { changedWords, diffHunks } from '../src/diff-rows.ts';

const before = [
  '# Pricing',
  '',
  'Basic plan: $9 per month',
  'Pro plan: $29 per month',
  'Contact us',
].join('\n');
const after = [
  '# Pricing',
  '',
  'Basic plan: $12 per month',
  'Pro plan: $29 per month',
  'Team plan: $99',
  'Contact us',
].join('\n');

describe('diffHunks', () => {
  it('pairs a replaced line with its replacement and leaves an added line facing nothing', () => {
    const [hunk, ...more] = diffHunks(
      createTwoFilesPatch('a/p', 'b/p', `${before}\n`, `${after}\n`),
    );
    expect(more).toEqual([]);
    expect(hunk?.header).toBe('@@ -1,5 +1,6 @@');
    const changedRows = hunk?.rows.filter((row) => row.left?.kind !== 'context') ?? [];
    expect(changedRows).toEqual([
      {
        left: { kind: 'removed', number: 3, text: 'Basic plan: $9 per month' },
        right: { kind: 'added', number: 3, text: 'Basic plan: $12 per month' },
      },
      { right: { kind: 'added', number: 5, text: 'Team plan: $99' } },
    ]);
    // Context lines carry each side's own number: after the insertion they differ.
    const contact = hunk?.rows.at(-1);
    expect([contact?.left?.number, contact?.right?.number]).toEqual([5, 6]);
    expect(hunk?.lines.map((line) => line.kind)).toEqual([
      'context',
      'context',
      'removed',
      'added',
      'context',
      'added',
      'context',
    ]);
  });

  it('has no hunk for a diff that gave up (the text is shown as it is)', () => {
    expect(
      diffHunks('--- a/p\n+++ b/p\n(the page changed too much to diff within 2000 ms)\n'),
    ).toEqual([]);
  });

  it('marks the words that changed on each side', () => {
    const left = changedWords('Basic plan: $9 per month', 'Basic plan: $12 per month', 'left');
    const right = changedWords('Basic plan: $12 per month', 'Basic plan: $9 per month', 'right');
    expect(left.filter((part) => part.changed).map((part) => part.text.trim())).toEqual(['9']);
    expect(right.filter((part) => part.changed).map((part) => part.text.trim())).toEqual(['12']);
    expect(left.map((part) => part.text).join('')).toBe('Basic plan: $9 per month');
  });
});
