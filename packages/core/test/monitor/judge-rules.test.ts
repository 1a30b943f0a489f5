/**
 * The keyword judge's rules beside BM25 (judge-rules.ts): changed numbers and currency amounts
 * are meaningful for goals about prices, amounts or numbers, and lines that differ only in masked
 * noise (time stamps, copyright years, tracking parameters) are not.
 */
import { describe, expect, it } from 'vitest';
import { judgeByKeywords } from '@trawl/core/server';

const changed = (goal: string, removed: string[], added: string[]) =>
  judgeByKeywords({
    goal,
    url: 'https://example.com/pricing',
    status: 'changed',
    added,
    removed,
    context: ['Pricing', ...added],
  });

describe('numbers and amounts', () => {
  it("finds '$9 → $12 per month' meaningful for the goal 'price changes on the pricing page'", () => {
    const verdict = changed(
      'price changes on the pricing page',
      ['Basic: $9 per month'],
      ['Basic: $12 per month'],
    );
    expect(verdict).toMatchObject({ meaningful: true, confidence: 'high', method: 'keywords' });
    expect(verdict.meaningfulChanges).toEqual([
      expect.objectContaining({
        type: 'changed',
        before: 'Basic: $9 per month',
        after: 'Basic: $12 per month',
      }),
    ]);
    expect(verdict.reason).toContain('$9 → $12');
  });

  it('reads currency codes, separators, percentages and thousands for goals about money', () => {
    for (const [goal, before, after] of [
      ['tell me when fees go up', 'Setup fee waived', 'Setup: 49 EUR once'],
      ['cost of the team plan', 'Team 1,299.00 € a year', 'Team 1,499.00 € a year'],
      ['discount rates', 'Save 15% yearly', 'Save 20% yearly'],
      ['salaries of engineers', 'Staff: £120k', 'Staff: £130k'],
    ] as const) {
      expect(changed(goal, [before], [after]).meaningful, `${goal}: ${before} → ${after}`).toBe(
        true,
      );
    }
  });

  it('counts plain numbers only for goals about numbers, and numbers glued to letters never', () => {
    expect(
      changed('the number of seats', ['Team: 3 included'], ['Team: 5 included']),
    ).toMatchObject({ meaningful: true, confidence: 'medium' });
    // A goal about money ignores plain numbers: office hours are not a salary.
    expect(
      changed('salary of engineers', ['Office hours 9 to 5'], ['Office hours 10 to 6']).meaningful,
    ).toBe(false);
    expect(
      changed('number of plans', ['Runs on H2 and mp3'], ['Runs on H3 and mp4']).meaningful,
    ).toBe(false);
  });

  it('leaves new pages to the keyword score', () => {
    const verdict = judgeByKeywords({
      goal: 'price changes',
      url: 'u',
      status: 'new',
      added: ['Support from $5'],
      removed: [],
      context: ['Support from $5'],
    });
    expect(verdict.meaningful).toBe(false);
  });
});

describe('masked noise', () => {
  it('judges a change that is only a copyright year, a time stamp or a tracking parameter not meaningful', () => {
    const verdict = changed(
      'the number of seats and price changes',
      [
        'Acme Inc. © 2025, all rights reserved',
        'Prices as of 2026-03-02T09:00:00Z',
        '[Buy](https://shop.example/p?id=7&utm_source=mail)',
      ],
      [
        'Acme Inc. © 2026, all rights reserved',
        'Prices as of 2026-03-03T17:45:12Z',
        '[Buy](https://shop.example/p?id=7&utm_source=rss)',
      ],
    );
    // 'Prices' is a goal word and 2025 → 2026 a number: both are masked away.
    expect(verdict).toMatchObject({ meaningful: false, meaningfulChanges: [] });
    expect(verdict.reason).toMatch(/Only volatile text changed: 3 line/);
  });

  it('still judges what changed beside the noise, and the noise itself when the goal is about it', () => {
    const mixed = changed(
      'price changes',
      ['Basic $9 · updated 2026-03-02T09:00:00Z'],
      ['Basic $12 · updated 2026-03-03T09:00:00Z'],
    );
    expect(mixed.meaningful).toBe(true);
    const aboutDates = changed(
      'when the terms were last updated',
      ['Terms updated 2026-03-02T09:00:00Z'],
      ['Terms updated 2026-03-09T09:00:00Z'],
    );
    expect(aboutDates.meaningful).toBe(true);
  });
});
