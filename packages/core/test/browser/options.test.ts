import { describe, expect, it } from 'vitest';
import { scrapeOptionsSchema, type ScrapeOptions } from '@trawl/core';

/** The field paths zod reports for these options, or [] when they are valid. */
function problems(options: ScrapeOptions): string[] {
  const parsed = scrapeOptionsSchema.safeParse(options);
  return parsed.success ? [] : parsed.error.issues.map((issue) => issue.path.join('.'));
}

describe('browser options are validated', () => {
  it.each<[string, ScrapeOptions, string]>([
    ['a wait with neither milliseconds nor selector', { actions: [{ type: 'wait' }] }, 'actions.0'],
    [
      'a wait with both milliseconds and selector',
      { actions: [{ type: 'wait', milliseconds: 5, selector: 'p' }] },
      'actions.0',
    ],
    ['a click without a selector', { actions: [{ type: 'click' } as never] }, 'actions.0.selector'],
    [
      'an unknown action',
      { actions: [{ type: 'hover', selector: 'a' } as never] },
      'actions.0.type',
    ],
    [
      'an unknown field of an action',
      { actions: [{ type: 'scrape', deep: true } as never] },
      'actions.0',
    ],
    ['a write without text', { actions: [{ type: 'write' } as never] }, 'actions.0.text'],
    ['a press without a key', { actions: [{ type: 'press', key: '' }] }, 'actions.0.key'],
    [
      'a scroll direction sideways',
      { actions: [{ type: 'scroll', direction: 'left' as never }] },
      'actions.0.direction',
    ],
    [
      'a screenshot quality of 0',
      { actions: [{ type: 'screenshot', quality: 0 }] },
      'actions.0.quality',
    ],
    [
      'an empty script',
      { actions: [{ type: 'executeJavascript', script: '' }] },
      'actions.0.script',
    ],
    [
      'a pdf format that does not exist',
      { actions: [{ type: 'pdf', format: 'B5' as never }] },
      'actions.0.format',
    ],
    ['a pdf scale above 2', { actions: [{ type: 'pdf', scale: 3 }] }, 'actions.0.scale'],
    [
      '51 actions',
      { actions: Array.from({ length: 51 }, () => ({ type: 'scrape' as const })) },
      'actions',
    ],
    [
      'waits above 60 s in all',
      { waitFor: 30_000, timeout: 120_000, actions: [{ type: 'wait', milliseconds: 40_000 }] },
      'actions',
    ],
    [
      'a screenshot viewport wider than 7680',
      { formats: [{ type: 'screenshot', viewport: { width: 8000, height: 100 } }] },
      'formats.0.viewport.width',
    ],
    [
      'an unknown screenshot setting',
      { formats: [{ type: 'screenshot', zoom: 2 } as never] },
      'formats.0',
    ],
    ['a profile without a name', { profile: { name: '' } }, 'profile.name'],
  ])('refuses %s', (_what, options, path) => {
    expect(problems(options)).toContain(path);
  });

  it('accepts every action type with its defaults filled in', () => {
    const parsed = scrapeOptionsSchema.parse({
      actions: [
        { type: 'wait', milliseconds: 10 },
        { type: 'wait', selector: '#ready' },
        { type: 'click', selector: 'button' },
        { type: 'write', text: 'hello' },
        { type: 'press', key: 'Enter' },
        { type: 'scroll' },
        { type: 'screenshot' },
        { type: 'scrape' },
        { type: 'executeJavascript', script: 'document.title' },
        { type: 'pdf' },
      ],
      formats: [{ type: 'screenshot', fullPage: true, quality: 80 }],
    });
    expect(parsed.actions).toEqual([
      { type: 'wait', milliseconds: 10 },
      { type: 'wait', selector: '#ready' },
      { type: 'click', selector: 'button', all: false },
      { type: 'write', text: 'hello' },
      { type: 'press', key: 'Enter' },
      { type: 'scroll', direction: 'down' },
      { type: 'screenshot', fullPage: false },
      { type: 'scrape' },
      { type: 'executeJavascript', script: 'document.title' },
      { type: 'pdf', format: 'Letter', landscape: false, scale: 1 },
    ]);
    expect(parsed.formats).toEqual([{ type: 'screenshot', fullPage: true, quality: 80 }]);
  });
});
