/**
 * The crawl's path patterns run on a linear-time engine: a catastrophic pattern against a long
 * path answers at once, and patterns that only a backtracking engine can run are refused with a
 * message naming the construct.
 */
import { describe, expect, it } from 'vitest';
import { crawl, crawlOptionsSchema, type TrawlError } from '@trawl/core';
import { CrawlScope, type ScopeOptions } from '../../src/crawl/url-filter.js';

const scopeOptions = (overrides: Partial<ScopeOptions>): ScopeOptions => ({
  allowExternalLinks: false,
  allowSubdomains: false,
  crawlEntireDomain: true,
  includePaths: [],
  excludePaths: [],
  regexOnFullURL: false,
  ...overrides,
});

describe('CrawlScope patterns', () => {
  it('matches (a+)+$ against a 100,000-character path without backtracking', () => {
    const scope = new CrawlScope(
      new URL('http://site.test/'),
      scopeOptions({ includePaths: ['(a+)+$'] }),
    );
    // On a backtracking engine this subject takes longer than the age of the universe; the
    // test's own timeout is the bound.
    const long = new URL(`http://site.test/${'a'.repeat(100_000)}!`);
    expect(scope.refuseByPatterns(long)).toBe('not-included');
    expect(scope.refuseByPatterns(new URL(`http://site.test/${'a'.repeat(100_000)}`))).toBe(
      undefined,
    );
  }, 10_000);

  it('refuses, as BAD_REQUEST, a lookahead stored before patterns ran on RE2 (a resumed crawl)', () => {
    expect(
      () =>
        new CrawlScope(new URL('http://site.test/'), scopeOptions({ excludePaths: ['^/(?!a)'] })),
    ).toThrow(expect.objectContaining({ code: 'BAD_REQUEST' }) as TrawlError);
  });

  it('applies exclude before include, on the path or on the full URL', () => {
    const onPath = new CrawlScope(
      new URL('http://site.test/'),
      scopeOptions({ includePaths: ['^/blog/'], excludePaths: ['draft'] }),
    );
    expect(onPath.refuseByPatterns(new URL('http://site.test/blog/one'))).toBe(undefined);
    expect(onPath.refuseByPatterns(new URL('http://site.test/blog/draft-1'))).toBe('excluded');
    expect(onPath.refuseByPatterns(new URL('http://site.test/about'))).toBe('not-included');
    const onUrl = new CrawlScope(
      new URL('http://site.test/'),
      scopeOptions({ includePaths: ['^https?://site\\.test/docs/\\d+$'], regexOnFullURL: true }),
    );
    expect(onUrl.refuseByPatterns(new URL('http://site.test/docs/42'))).toBe(undefined);
    expect(onUrl.refuseByPatterns(new URL('http://site.test/docs/x'))).toBe('not-included');
  });

  it('keeps the JavaScript meaning of common syntax: classes, escapes, named groups, unicode', () => {
    const scope = new CrawlScope(
      new URL('http://site.test/'),
      scopeOptions({ includePaths: ['^/(?<section>[\\w-]+)/\\d{4}/', '\\/café$'] }),
    );
    expect(scope.refuseByPatterns(new URL('http://site.test/news-room/2024/x'))).toBe(undefined);
    expect(scope.refuseByPatterns(new URL('http://site.test/news/24/x'))).toBe('not-included');
  });
});

describe('crawl options patterns', () => {
  const problemOf = (pattern: string): string => {
    const result = crawlOptionsSchema.safeParse({ includePaths: [pattern] });
    expect(result.success).toBe(false);
    return result.error?.issues.map((issue) => issue.message).join('; ') ?? '';
  };

  it.each([
    ['(?=x)a', 'lookahead'],
    ['^/(?!admin)', 'lookahead'],
    ['(?<=/)blog', 'lookbehind'],
    ['(?<!x)y', 'lookbehind'],
    ['(a)\\1', 'backreference'],
    ['(?<n>a)\\k<n>', 'named backreference'],
  ])('refuses %s naming the %s and the pattern', (pattern, construct) => {
    const message = problemOf(pattern);
    expect(message).toContain(construct);
    expect(message).toContain(pattern);
  });

  it('refuses a syntax error with the engine message', () => {
    expect(problemOf('(unclosed')).toMatch(/'\(unclosed' is not a valid RE2 regular expression/);
  });

  it('accepts escaped look-alikes and catastrophic-on-backtracking patterns', () => {
    const result = crawlOptionsSchema.safeParse({
      includePaths: ['\\(?=literal', '\\\\1x', '(a+)+$', '(x|x)*y'],
      excludePaths: ['[a-z]+\\.pdf$'],
    });
    expect(result.error?.issues.map((issue) => issue.message)).toBeUndefined();
  });

  it('makes crawl() throw BAD_REQUEST before fetching anything', () => {
    expect(() => crawl('http://127.0.0.1:9/', { excludePaths: ['(?<=a)b'] })).toThrow(
      expect.objectContaining({ code: 'BAD_REQUEST' }) as TrawlError,
    );
  });
});
