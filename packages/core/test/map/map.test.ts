/**
 * map() against the multi-host link graph and the fixture site: sitemap and link URLs, within
 * the site, deduplicated, ranked by a search, bounded by limit and time.
 */
import { describe, expect, inject, it } from 'vitest';
import { map, TrawlError, type MapOptions } from '@trawl/core';
import { openGraphFixture } from '../crawl/graph-fixture.ts';

const { graph, fetcher, site } = await openGraphFixture();

async function urls(start: string, options: MapOptions = {}): Promise<string[]> {
  const result = await map(start, options, { fetchers: [fetcher] });
  return result.links.map((link) => {
    const url = new URL(link.url);
    const path = `${url.pathname}${url.search}`;
    return url.hostname === 'site.test' ? path : `${url.hostname}${path}`;
  });
}

describe('map', () => {
  it('lists sitemap and link URLs of the site and its subdomains, without assets or robots-blocked pages', async () => {
    const found = await urls(`${site}/`);
    expect(found).toEqual(
      expect.arrayContaining([
        '/',
        '/hidden/from-sitemap',
        '/blog/a',
        '/blog/c',
        '/deep/4',
        'docs.site.test/',
        'docs.site.test/guide',
      ]),
    );
    expect(found).not.toContain('/private/secret');
    expect(found.some((url) => url.endsWith('.png') || url.endsWith('.css'))).toBe(false);
    expect(found.some((url) => url.startsWith('other.test'))).toBe(false);
    // www. and trailing-slash variants and queries collapse: each page once.
    expect(found.filter((url) => url === '/about')).toHaveLength(1);
    expect(found.some((url) => url.includes('?'))).toBe(false);
    expect(new Set(found).size).toBe(found.length);
    // Documents are site URLs too.
    expect(found).toContain('/files/report.pdf');
  });

  it('gives titles of the pages it read', async () => {
    const result = await map(`${site}/`, {}, { fetchers: [fetcher] });
    expect(result.links.find((link) => link.url === `${site}/`)?.title).toBe('Home');
  });

  it('includeSubdomains false keeps to the host', async () => {
    const found = await urls(`${site}/`, { includeSubdomains: false });
    expect(found.some((url) => url.startsWith('docs.site.test'))).toBe(false);
    expect(found).toContain('/blog/a');
  });

  it('ignoreQueryParameters false keeps query variants apart', async () => {
    const found = await urls(`${site}/`, { ignoreQueryParameters: false });
    expect(found).toEqual(expect.arrayContaining(['/blog/b?ref=x', '/blog/b?ref=y']));
  });

  it("sitemap 'only' lists the sitemap's URLs and reads no page", async () => {
    graph.reset();
    expect((await urls(`${site}/`, { sitemap: 'only' })).sort()).toEqual(
      ['/', '/blog/a', '/hidden/from-sitemap'].sort(),
    );
    expect(graph.requests.map((r) => r.path).sort()).toEqual(['/robots.txt', '/sitemap.xml']);
  });

  it("sitemap 'skip' finds pages by links only", async () => {
    const found = await urls(`${site}/`, { sitemap: 'skip' });
    expect(found).not.toContain('/hidden/from-sitemap');
    expect(found).toContain('/deep/4');
  });

  it('keeps to the start path when it has one', async () => {
    const found = await urls(`${site}/blog/`, { sitemap: 'skip' });
    // /blog/old is linked only from /blog-archive, which is not under /blog/.
    expect(found.sort()).toEqual(['/blog/', '/blog/a', '/blog/b', '/blog/c'].sort());
  });

  it('limit truncates', async () => {
    expect(await urls(`${site}/`, { limit: 3 })).toHaveLength(3);
  });

  it('search puts the matching URLs first', async () => {
    const found = await urls(`${site}/`, { search: 'deep' });
    expect(found.slice(0, 4).sort()).toEqual(['/deep/1', '/deep/2', '/deep/3', '/deep/4']);
    const guide = await urls(`${site}/`, { search: 'guide' });
    expect(guide[0]).toBe('docs.site.test/guide');
  });

  it('search with a small limit ranks the whole site, not the first URLs found', async () => {
    const all = await urls(`${site}/`);
    const deepAt = all.indexOf('/deep/4');
    expect(deepAt).toBeGreaterThan(1);
    expect(await urls(`${site}/`, { search: 'deep 4', limit: 1 })).toEqual(['/deep/4']);
  });

  it('reads the fixture site too, honouring its robots.txt', async () => {
    const fixture = inject('fixtureUrl');
    const result = await map(fixture);
    const found = result.links.map((link) => link.url);
    expect(found).toContain(`${fixture}/articles/plain.html`);
    expect(found.some((url) => url.includes('/private/'))).toBe(false);
  });

  it('refuses bad options with the field, and fails clearly when the site is unreachable', async () => {
    await expect(map(`${site}/`, { limit: 0 }, { fetchers: [fetcher] })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      details: [{ path: ['limit'] }],
    });
    await expect(map(`${site}/`, { bogus: true } as MapOptions)).rejects.toBeInstanceOf(TrawlError);
    await expect(map('http://127.0.0.1:1/', { timeout: 5000 })).rejects.toMatchObject({
      code: 'SCRAPE_CONNECTION_REFUSED',
    });
  });
});
