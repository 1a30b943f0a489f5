/**
 * robots.txt for crawls: rule semantics on literal files (longest match, wildcards, agent
 * groups, Crawl-delay), and fetching against the fixture site (found, 404, 500, unreachable).
 */
import { afterAll, describe, expect, inject, it } from 'vitest';
import { HttpFetcher, resolveEngineConfig, type Fetcher } from '@trawl/core';
// Relative `.js` on purpose: a `.ts` specifier into the core project fails tsc (TS2878,
// rewriteRelativeImportExtensions across project references), and vite resolves `.js` to the
// `.ts` source. The crawl modules are not on the public surface yet.
import { loadRobots, parseRobots, robotsAgentToken } from '../../src/crawl/robots.js';
import { longPathLength, startHostileSite } from '../../../../test/fixture-site/hostile-site.ts';

const site = inject('fixtureUrl');
const config = resolveEngineConfig();
const http = new HttpFetcher();
afterAll(() => http.close());

/**
 * Real HTTP to the fixture site, with `/robots.txt` read from `path` instead, so one site can
 * answer robots.txt with any status its `/status/:code` route gives.
 */
const robotsFrom = (path: string): Fetcher => ({
  name: 'http',
  fetch: (request) =>
    http.fetch({
      ...request,
      url: request.url.pathname === '/robots.txt' ? new URL(path, site) : request.url,
    }),
});

const origin = new URL('https://example.com');
const at = (path: string) => new URL(path, origin);
const rulesFor = (text: string, agent = 'Trawl') =>
  parseRobots(new URL('/robots.txt', origin), text, agent);

describe('rule semantics', () => {
  it('lets the longest matching rule win, with Allow winning a tie', () => {
    const rules = rulesFor(
      [
        'User-agent: *',
        'Disallow: /docs/',
        'Allow: /docs/public/',
        'Disallow: /a',
        'Allow: /a',
      ].join('\n'),
    );
    expect(rules.isAllowed(at('/docs/secret.html'))).toBe(false);
    expect(rules.isAllowed(at('/docs/public/page.html'))).toBe(true);
    expect(rules.isAllowed(at('/a/b'))).toBe(true);
    expect(rules.isAllowed(at('/elsewhere'))).toBe(true);
  });

  it('matches * anywhere in a path and $ at its end', () => {
    const rules = rulesFor(
      ['User-agent: *', 'Disallow: /*.pdf$', 'Disallow: /*?session='].join('\n'),
    );
    expect(rules.isAllowed(at('/files/report.pdf'))).toBe(false);
    expect(rules.isAllowed(at('/files/report.pdf?download=1'))).toBe(true);
    expect(rules.isAllowed(at('/cart?session=42'))).toBe(false);
    expect(rules.isAllowed(at('/cart'))).toBe(true);
  });

  it("uses the agent's own group over * and falls back to * when it has none", () => {
    const text = [
      'User-agent: *',
      'Disallow: /private/',
      'Crawl-delay: 1',
      '',
      'User-agent: Trawl',
      'Disallow: /slow/',
      'Crawl-delay: 5',
    ].join('\n');
    const trawl = rulesFor(text, 'Trawl');
    expect(trawl.isAllowed(at('/slow/x'))).toBe(false);
    expect(trawl.isAllowed(at('/private/x'))).toBe(true);
    expect(trawl.crawlDelaySeconds).toBe(5);
    const other = rulesFor(text, 'OtherBot');
    expect(other.isAllowed(at('/private/x'))).toBe(false);
    expect(other.crawlDelaySeconds).toBe(1);
  });

  it('leaves Crawl-delay undefined when the group sets none', () => {
    expect(rulesFor('User-agent: *\nDisallow: /x').crawlDelaySeconds).toBeUndefined();
  });

  it('collects Sitemap lines in file order', () => {
    const rules = rulesFor(
      'Sitemap: https://example.com/a.xml\nUser-agent: *\nDisallow:\nSitemap: https://example.com/b.xml.gz',
    );
    expect(rules.sitemaps).toEqual(['https://example.com/a.xml', 'https://example.com/b.xml.gz']);
  });

  it('allows URLs on other origins, which the file does not govern', () => {
    const rules = rulesFor('User-agent: *\nDisallow: /');
    expect(rules.isAllowed(at('/page'))).toBe(false);
    expect(rules.isAllowed(new URL('https://other.example.com/page'))).toBe(true);
    expect(rules.isAllowed(new URL('http://example.com/page'))).toBe(true);
  });

  it('treats an HTML page served as robots.txt as no rules', () => {
    const rules = rulesFor(
      '<!DOCTYPE html>\n<html><body>\nUser-agent: *\nDisallow: /\n</body></html>',
    );
    expect(rules.isAllowed(at('/anything'))).toBe(true);
  });

  it('derives the agent token from the last non-browser product of a User-Agent', () => {
    expect(robotsAgentToken(config.userAgent)).toBe('Trawl');
    expect(robotsAgentToken('MyBot/2.1 (+https://example.com/bot)')).toBe('MyBot');
    expect(
      robotsAgentToken('Mozilla/5.0 (X11) AppleWebKit/537.36 Chrome/131.0 Safari/537.36'),
    ).toBe('*');
  });
});

describe('loadRobots', () => {
  it("reads the fixture site's robots.txt for the default agent", async () => {
    const rules = await loadRobots(new URL(site), { fetcher: http, config });
    expect(rules.unreachable).toBe(false);
    expect(rules.isAllowed(new URL('/private/secret.html', site))).toBe(false);
    expect(rules.isAllowed(new URL('/search?q=x', site))).toBe(false);
    expect(rules.isAllowed(new URL('/articles/plain.html', site))).toBe(true);
    expect(rules.sitemaps).toEqual([`${site}/sitemap.xml`]);
  });

  it('applies the group of an explicitly given user agent', async () => {
    const rules = await loadRobots(new URL(site), { fetcher: http, config, userAgent: 'GPTBot' });
    expect(rules.isAllowed(new URL('/articles/plain.html', site))).toBe(false);
  });

  it('allows everything when robots.txt is 404', async () => {
    const rules = await loadRobots(new URL(site), { fetcher: robotsFrom('/status/404'), config });
    expect(rules.isAllowed(new URL('/private/secret.html', site))).toBe(true);
    expect(rules.unreachable).toBe(false);
    expect(rules.sitemaps).toEqual([]);
  });

  it('allows everything but records unreachable when robots.txt answers 500', async () => {
    const rules = await loadRobots(new URL(site), { fetcher: robotsFrom('/status/500'), config });
    expect(rules.isAllowed(new URL('/private/secret.html', site))).toBe(true);
    expect(rules.unreachable).toBe(true);
  });

  it('allows everything but records unreachable when the host refuses connections', async () => {
    const rules = await loadRobots(new URL('http://127.0.0.1:1'), { fetcher: http, config });
    expect(rules.isAllowed(new URL('http://127.0.0.1:1/private/'))).toBe(true);
    expect(rules.unreachable).toBe(true);
  });

  it('rejects when the caller aborts instead of reporting robots.txt unreachable', async () => {
    const signal = AbortSignal.abort();
    await expect(loadRobots(new URL(site), { fetcher: http, config, signal })).rejects.toThrow();
  });
});

describe('files written to hurt', () => {
  const long = (tail: string) => `/${'a'.repeat(longPathLength)}${tail}`;

  it('reads the first 500 KiB of a 1.1 MB robots.txt, drops the cut line and ignores the rest', async () => {
    const hostile = await startHostileSite();
    try {
      const rules = await loadRobots(new URL(hostile.url), { fetcher: http, config });
      expect(rules.unreachable).toBe(false);
      expect(rules.isAllowed(new URL(long('0'), hostile.url))).toBe(true);
      expect(rules.isAllowed(new URL(long('5z'), hostile.url))).toBe(false);
      expect(rules.isAllowed(new URL('/after-the-limit', hostile.url))).toBe(true);
    } finally {
      await hostile.close();
    }
  });

  it('matches the pieces of wildcard rules in order, with $ only at the end', () => {
    const rules = rulesFor(
      [
        'User-agent: *',
        'Disallow: /a*b*c',
        'Disallow: /end$',
        'Disallow: /mid$dle',
        'Disallow: /x**y$',
        'Allow: /a*b*c*keep',
      ].join('\n'),
    );
    expect(rules.isAllowed(at('/a-c-b'))).toBe(true);
    expect(rules.isAllowed(at('/aXbYcZ'))).toBe(false);
    expect(rules.isAllowed(at('/abc-keep'))).toBe(true);
    expect(rules.isAllowed(at('/end'))).toBe(false);
    expect(rules.isAllowed(at('/end/more'))).toBe(true);
    expect(rules.isAllowed(at('/mid$dle/x'))).toBe(false);
    expect(rules.isAllowed(at('/x-y-y'))).toBe(false);
    expect(rules.isAllowed(at('/x-y-'))).toBe(true);
  });

  it('finds many sibling pieces in one pass and keeps the longest match', () => {
    const lines = ['User-agent: *'];
    for (let i = 0; i < 500; i++) lines.push(`Disallow: /*p${i}q`);
    lines.push('Allow: /*p250q*ok');
    const rules = rulesFor(lines.join('\n'));
    expect(rules.isAllowed(at('/x/p250q'))).toBe(false);
    expect(rules.isAllowed(at('/x/p250q/ok'))).toBe(true);
    expect(rules.isAllowed(at('/x/p999q'))).toBe(true);
  });

  it('counts a URL as disallowed when matching it would scan past the budget', () => {
    // 400 sibling pieces of every length from 1 to 400, each found in a path of `a`s: looking up
    // every place once per length is over 100 million characters.
    const lines = ['User-agent: *'];
    for (let k = 1; k <= 400; k++) lines.push(`Disallow: /*${'a'.repeat(k)}*q`);
    const rules = rulesFor(lines.join('\n'));
    expect(rules.isAllowed(at(long('')))).toBe(false);
    expect(rules.isAllowed(at('/aaq'))).toBe(false);
    expect(rules.isAllowed(at('/b'))).toBe(true);
  });
});
