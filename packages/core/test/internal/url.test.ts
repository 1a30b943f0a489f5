/**
 * The URL helpers that conversion calls for every link: `keepsHost` answers without the parser
 * and must never claim a reference keeps its host when the parser says otherwise; `toAbsoluteUrl`
 * remembers what it resolved and must answer as the parser does, base after base.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keepsHost, toAbsoluteUrl } from '../../src/internal/url.js';

// Characters that change how a reference parses: slashes, backslashes, the scheme colon, the
// white space the parser drops or trims, and ordinary path characters.
const tricky = [...'/\\:\t\n\r \u0000\u001f.?#~-_aZ09@%'];
const reference = fc
  .array(fc.constantFrom(...tricky), { minLength: 0, maxLength: 10 })
  .map((characters) => characters.join(''));

function hostAgainst(value: string, base: string): string | undefined {
  try {
    return new URL(value, base).hostname;
  } catch {
    return undefined;
  }
}

describe('keepsHost', () => {
  it('is true only for references the parser resolves on the base host', () => {
    fc.assert(
      fc.property(reference, (value) => {
        if (keepsHost(value))
          expect(hostAgainst(value, 'https://x.invalid/dir/')).toBe('x.invalid');
      }),
      { numRuns: 20_000, seed: 11 },
    );
  });

  it('answers for the common cases without the parser', () => {
    for (const value of ['/articles/1.html', 'page.html', '../up', '?q=1', '#top', '/'])
      expect(keepsHost(value)).toBe(true);
    for (const value of [
      '//ads.example/x',
      '/\\ads.example',
      '/\t/ads.example',
      'https://a.b/',
      ' //a.b',
      'a:b',
    ])
      expect(keepsHost(value)).toBe(false);
  });
});

describe('toAbsoluteUrl', () => {
  it('answers as the parser does, whatever it resolved before against other bases', () => {
    const bases = ['https://a.example/x/', 'https://b.example/y/z', 'http://a.example/'];
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...bases), reference), { minLength: 1, maxLength: 30 }),
        (calls) => {
          for (const [base, value] of calls) {
            const trimmed = value.trim();
            let expected: string | undefined;
            try {
              expected = trimmed ? new URL(trimmed, base).href : undefined;
            } catch {
              expected = undefined;
            }
            expect(toAbsoluteUrl(value, base)).toBe(expected);
          }
        },
      ),
      { numRuns: 2_000, seed: 5 },
    );
  });

  it('resolves a reference longer than what it remembers (a data: image) as the parser does', () => {
    const image = `data:image/png;base64,${'A'.repeat(5000)}`;
    expect(toAbsoluteUrl(image, 'https://a.example/')).toBe(image);
  });
});
